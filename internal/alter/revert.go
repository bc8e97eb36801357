package alter

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlog"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
)

// MethodRevert is the report's method of a --revert.
const MethodRevert = "revert"

// handOverWait bounds a --revert's wait for the process keeping the window
// to stop (it looks for the request every windowPoll).
const (
	handOverWait = 30 * time.Second
	windowPoll   = 200 * time.Millisecond
)

// reverseRunner is the runner of a revert window: the copy method turned
// around. Its table is the new-layout table, its "copy" the window's old
// table (already full: there is nothing to copy), its appliers write every
// changed key back into the old layout (applyKeys: the shared columns; a
// column the change added is left out, one it dropped keeps its value in
// rows that existed, its default in rows inserted since), and its swap is
// the revert (cutover, unchanged: the same lock, marker, drain and RENAME).
func (r *runner) reverseRunner(ctx context.Context, w *window) (*runner, binlogpos.Position, *schema.Table, error) {
	var pos binlogpos.Position
	rr := &runner{o: r.o, db: r.db, log: r.log.With("revert_window", w.OldTable), id: r.id, info: r.info, ctl: r.ctl,
		shadowTbl: w.OldTable, oldTbl: revertedName(r.id.Name), reverse: true, nowait: r.nowait, busyCode: r.busyCode}
	if rr.o.ServerID == 0 {
		// Not the copy's reader's id: a server drops the older of two
		// connections with one id.
		rr.o.ServerID = binlog.DefaultServerID("alter-revert:"+r.id.String(), r.o.Source.Redacted())
	}
	p := &plan{freeBytes: -1}
	var err error
	if p.oldDef, err = describe(ctx, r.db, r.id.Database, r.id.Name); err != nil {
		return nil, pos, nil, err
	}
	if p.newDef, err = describe(ctx, r.db, r.id.Database, w.OldTable); err != nil {
		return nil, pos, nil, err
	}
	p.shared, _ = sharedColumns(p.oldDef, p.newDef)
	if p.keyIndex, p.keyCols = sharedKey(p.oldDef, p.newDef); p.keyCols == nil {
		return nil, pos, nil, refuse("%s and %s share no key any more: %v", r.id, w.OldTable, errNoKey)
	}
	rr.p = p
	src, marker, err := rr.loadSource(ctx, true)
	if err != nil {
		return nil, pos, nil, err
	}
	rr.src = src
	if rr.key, rr.kc, err = rr.chunkKey(p); err != nil {
		return nil, pos, nil, err
	}
	rr.keys = newKeySet()
	rr.tr = newTracker(r.id, marker.TableID, rr.kc, rr.keys, false)
	rr.tr.reverse = true
	if pos, err = binlogpos.Parse(w.Pos); err != nil {
		return nil, pos, nil, fmt.Errorf("alter: the revert window's position: %w", err)
	}
	return rr, pos, marker, nil
}

// startReader runs the tracker on the binlog from pos; stop ends it.
func (r *runner) startReader(ctx context.Context, pos binlogpos.Position, marker *schema.Table) (stop func(), err error) {
	stream, err := binlog.New(r.streamConfig(pos, marker))
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); r.tr.run(ctx, stream) }()
	return func() { cancel(); <-done }, nil
}

// resumeWindow: a run with --revert-window whose swap an earlier,
// interrupted run did (the window's state is open, the old table there,
// the copy gone) keeps the window from the swap's position; ok false when
// there is no such window.
func (r *runner) resumeWindow(ctx context.Context) (rep *Report, ok bool, err error) {
	if r.o.RevertWindow == 0 || r.o.DryRun {
		return nil, false, nil
	}
	w, err := loadWindow(ctx, r.db, r.id.Database, r.id.Name)
	if err != nil {
		return nil, false, err
	}
	if w == nil || w.State != windowOpen {
		return nil, false, nil
	}
	shadow, err := r.tableExists(ctx, shadowName(r.id.Name))
	if err != nil || shadow {
		return nil, false, err
	}
	if old, err := r.tableExists(ctx, w.OldTable); err != nil || !old {
		return nil, false, err
	}
	if strings.TrimSpace(w.Alter) != strings.TrimSpace(r.o.Alter) {
		return nil, false, refuse("the revert window of %s is open for another change (%q): run that command to resume it, or sluice alter --revert", r.id, w.Alter)
	}
	// Killed after the RENAME: the copy's state is finished.
	if err := deleteRun(ctx, r.db, r.id.Database, r.id.Name); err != nil {
		return nil, false, err
	}
	r.log.Info("resuming the revert window of an interrupted run", "old_table", w.OldTable, "ends_at", w.EndsAt.UTC().Format(time.RFC3339))
	rep = &Report{Method: MethodCopy, Why: "swapped by an earlier, interrupted run; its revert window resumed", Resumed: true}
	return rep, true, r.keepWindow(ctx, w)
}

// keepWindow keeps the window's old table current until the window ends
// (the old table is then dropped, unless --keep-old-table), a --revert asks
// for it (handed over: nil), the table is changed again (the window ends,
// the old table is kept) or ctx ends (resumable by the same command).
func (r *runner) keepWindow(ctx context.Context, w *window) error {
	release, ok, err := takeWindowLock(ctx, r.db, r.id.Database, r.id.Name, 0)
	if err != nil {
		return err
	}
	if !ok {
		return refuse("the revert window of %s is kept by another sluice alter, or a --revert of it is running (it holds the server lock %q)",
			r.id, windowLockName(r.id.Database, r.id.Name))
	}
	defer release()
	if err := setRevertRequest(ctx, r.db, r.id.Database, r.id.Name, false); err != nil {
		return err
	}
	if !time.Now().Before(w.EndsAt) {
		return r.endWindow(ctx, w)
	}
	rr, pos, marker, err := r.reverseRunner(ctx, w)
	if err != nil {
		return err
	}
	stopReader, err := rr.startReader(ctx, pos, marker)
	if err != nil {
		return err
	}
	defer stopReader()
	// The appliers run until the loop below stops them; one that fails
	// ends the window's run (resumable), rather than leave it unkept.
	actx, cancelAppliers := context.WithCancel(ctx)
	applyErr := make(chan error, 1)
	go func() { applyErr <- rr.appliers(actx, true) }()
	stopped := false
	stopAppliers := func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancelAppliers()
		return <-applyErr
	}
	defer stopAppliers() //nolint:errcheck // the error is read below when it matters
	r.log.Info("revert window open: the old table is kept current from the binlog", "old_table", w.OldTable,
		"ends_at", w.EndsAt.UTC().Format(time.RFC3339), "replay_from", pos.String(),
		"revert", "sluice alter --source … --table "+r.id.Name+" --revert")
	lastLog := time.Now()
	cp := &windowCheckpoint{r: rr}
	for {
		if err := sleep(ctx, windowPoll); err != nil {
			return fmt.Errorf("revert window interrupted; run the same command again to resume it (until %s): %w", w.EndsAt.UTC().Format(time.RFC3339), err)
		}
		if err := rr.tr.failed(); err != nil {
			return r.windowFailed(ctx, w, err)
		}
		select {
		case err := <-applyErr:
			stopped = true
			return fmt.Errorf("revert window: the appliers stopped: %v\n  run the same command again to resume it", err)
		default:
		}
		if err := cp.step(ctx); err != nil {
			return err
		}
		if time.Now().After(lastLog.Add(r.o.ProgressEvery)) {
			lastLog = time.Now()
			r.log.Info("revert window", "pending_keys", rr.keys.size(), "applied", rr.applied.Load(), "left", time.Until(w.EndsAt).Round(time.Second))
		}
		if !time.Now().Before(w.EndsAt) {
			if err := stopAppliers(); err != nil {
				return err
			}
			return r.endWindow(ctx, w)
		}
		now, err := loadWindow(ctx, r.db, r.id.Database, r.id.Name)
		if err != nil {
			return err
		}
		if now == nil || now.State != windowOpen {
			return fmt.Errorf("alter: the revert window of %s was closed by another run", r.id)
		}
		if now.RevertReq {
			if err := stopAppliers(); err != nil {
				return err
			}
			r.log.Info("revert window handed over to sluice alter --revert", "applied", rr.applied.Load())
			return nil
		}
	}
}

// checkpointEvery is how often the process keeping a window moves the
// position it is replayed from (a resumed window, a revert) forward.
const checkpointEvery = 2 * time.Second

// windowCheckpoint advances the window's replay position while it is kept.
// A position q taken before a marker is safe once the tracker has read the
// marker and no key whose last change precedes the marker is still to be
// applied: every change before q then has been applied by a read after it
// (a key changed again after the marker is read again from q).
type windowCheckpoint struct {
	r      *runner
	last   time.Time
	q      binlogpos.Position
	marker int64 // 0: none pending
	seq    int64 // the table's row changes read before the marker; -1: not read yet
}

func (c *windowCheckpoint) step(ctx context.Context) error {
	r := c.r
	if c.marker == 0 {
		if time.Since(c.last) < checkpointEvery {
			return nil
		}
		q, err := binlog.SourceOnPool(r.db).MasterStatus(ctx, r.info)
		if err != nil {
			return err
		}
		id, err := writeMarker(ctx, r.db, r.id.Database, r.id.Name)
		if err != nil {
			return err
		}
		c.q, c.marker, c.seq = q, id, -1
		return nil
	}
	if c.seq < 0 {
		seq, err := r.tr.seqAt(ctx, c.marker, time.Millisecond)
		if errors.Is(err, errAwaitTimeout) {
			return nil
		}
		if err != nil {
			return nil // the tracker's failure is handled by the caller
		}
		c.seq = seq
	}
	if r.keys.pendingUpTo(c.seq) {
		return nil
	}
	if err := advanceWindow(ctx, r.db, r.id.Database, r.id.Name, c.q.Encode()); err != nil {
		return err
	}
	r.log.Debug("revert window checkpoint", "replay_from", c.q.String())
	c.marker, c.last = 0, time.Now()
	return nil
}

// windowFailed ends the window on a change of the table (the old table
// is kept: the operator decides), or returns the reader's error
// (resumable).
func (r *runner) windowFailed(ctx context.Context, w *window, err error) error {
	if !errors.Is(err, errTableChanged) {
		return fmt.Errorf("revert window: %w\n  run the same command again to resume it", err)
	}
	why := "the table was changed again during the window; the old table is kept as " + w.OldTable
	if cerr := closeWindow(context.WithoutCancel(ctx), r.db, r.id.Database, r.id.Name, windowEnded, why); cerr != nil {
		return cerr
	}
	return exitcode.WithCode(exitcode.Failure, fmt.Errorf("revert window of %s ended: %w; %s (drop it when it is not needed)", r.id, err, w.OldTable))
}

// endWindow ends a window whose time is up: the old table is dropped
// (kept with --keep-old-table) and the state says so.
func (r *runner) endWindow(ctx context.Context, w *window) error {
	why := "the window ended at " + w.EndsAt.UTC().Format(time.RFC3339)
	if r.o.KeepOldTable {
		why += "; the old table is kept as " + w.OldTable
	} else {
		if _, err := r.db.ExecContext(ctx, "DROP TABLE IF EXISTS "+r.quoted(w.OldTable)); err != nil {
			return fmt.Errorf("alter: drop the old table %s at the window's end: %w", w.OldTable, err)
		}
		why += "; the old table was dropped"
	}
	if err := closeWindow(ctx, r.db, r.id.Database, r.id.Name, windowEnded, why); err != nil {
		return err
	}
	r.log.Info("revert window ended", "why", why)
	return nil
}

// revertRefusal says why the table's window cannot be reverted now (""
// when it can).
func (r *runner) revertRefusal(ctx context.Context, w *window) (string, error) {
	switch {
	case w == nil:
		return fmt.Sprintf("no revert window of %s: only a change run with --revert-window D can be reverted", r.id), nil
	case w.State == windowReverted:
		return fmt.Sprintf("%s was already reverted (%s)", r.id, w.Why), nil
	case w.State != windowOpen:
		return fmt.Sprintf("the revert window of %s is closed: %s", r.id, w.Why), nil
	case !time.Now().Before(w.EndsAt):
		return fmt.Sprintf("the revert window of %s ended at %s: the old table is no longer kept current", r.id, w.EndsAt.UTC().Format(time.RFC3339)), nil
	}
	if ok, err := r.tableExists(ctx, w.OldTable); err != nil || !ok {
		return fmt.Sprintf("the old table %s of the revert window is gone", w.OldTable), err
	}
	fp, err := fingerprint(ctx, r.db, r.id.Database, r.id.Name)
	if err != nil {
		return "", err
	}
	if fp != w.Fingerprint {
		return fmt.Sprintf("%s was changed after the swap (its definition is not the one the window reverts from): "+
			"the old table %s cannot take its rows back", r.id, w.OldTable), nil
	}
	return "", nil
}

// revert swaps the window's old table back in: it takes the window over
// from the process keeping it (or from nothing, after a kill), replays the
// binlog from the swap into the old table, and swaps with the copy's
// cut-over (the same lock, marker, drain and RENAME).
func (r *runner) revert(ctx context.Context) (*Report, error) {
	start := time.Now()
	w, err := loadWindow(ctx, r.db, r.id.Database, r.id.Name)
	if err != nil {
		return nil, err
	}
	if why, err := r.revertRefusal(ctx, w); err != nil || why != "" {
		if err != nil {
			return nil, err
		}
		return nil, refuse("%s; nothing changed", why)
	}
	if err := setRevertRequest(ctx, r.db, r.id.Database, r.id.Name, true); err != nil {
		return nil, err
	}
	release, ok, err := takeWindowLock(ctx, r.db, r.id.Database, r.id.Name, handOverWait)
	if err != nil || !ok {
		setRevertRequest(context.WithoutCancel(ctx), r.db, r.id.Database, r.id.Name, false) //nolint:errcheck
		if err == nil {
			err = fmt.Errorf("alter: the process keeping the revert window of %s did not hand it over within %s; nothing changed", r.id, handOverWait)
		}
		return nil, err
	}
	defer release()
	// The keeper may have ended the window meanwhile.
	if w, err = loadWindow(ctx, r.db, r.id.Database, r.id.Name); err != nil {
		return nil, err
	}
	if why, err := r.revertRefusal(ctx, w); err != nil || why != "" {
		if err != nil {
			return nil, err
		}
		return nil, refuse("%s; nothing changed", why)
	}
	rr, err := r.revertSwap(ctx, w)
	rep := &Report{Method: MethodRevert, Why: "the old table kept by the revert window, swapped back in by RENAME", Took: time.Since(start)}
	if rr != nil {
		rep.Keys, rep.Locks, rep.SwapPosition = rr.applied.Load(), rr.locks, rr.swapPos
		for _, l := range rr.locks {
			rep.CutoverLock += l.Blocked()
		}
	}
	if err != nil {
		setRevertRequest(context.WithoutCancel(ctx), r.db, r.id.Database, r.id.Name, false) //nolint:errcheck
		if rr != nil && rr.tr.sealed.Load() {
			return rep, err
		}
		return rep, fmt.Errorf("%w\n  nothing was reverted; run --revert again, or the change's own command to keep the window", err)
	}
	return rep, nil
}

// revertSwap catches the old table up and swaps it in, then checks no
// change slipped past the drain and closes the window.
func (r *runner) revertSwap(ctx context.Context, w *window) (*runner, error) {
	rr, pos, marker, err := r.reverseRunner(ctx, w)
	if err != nil {
		return nil, err
	}
	stopReader, err := rr.startReader(ctx, pos, marker)
	if err != nil {
		return nil, err
	}
	defer stopReader()
	r.log.Info("revert: catching the old table up", "old_table", w.OldTable, "replay_from", pos.String())
	stop := rr.startAppliers(ctx, false)
	if err := rr.catchUp(ctx); err != nil {
		stop()
		return rr, err
	}
	if err := rr.readyToSwap(ctx); err != nil {
		stop()
		return rr, err
	}
	if err := stop(); err != nil {
		return rr, err
	}
	blocked, err := rr.cutover(ctx)
	if err != nil {
		return rr, err
	}
	r.log.Info("revert: swapped back", "writes_blocked", blocked.Round(time.Millisecond), "binlog", rr.swapPos)
	if id, err := writeMarker(ctx, r.db, r.id.Database, r.id.Name); err == nil {
		if err := rr.tr.waitMarker(ctx, id, 5*time.Second); err != nil && !rr.tr.renamed.Load() {
			r.log.Warn("after the revert: the binlog reader did not reach the RENAME; the swap is not checked", "err", err)
		}
	}
	if n := rr.tr.slipped.Load(); n > 0 {
		return rr, exitcode.WithCode(exitcode.Failure, fmt.Errorf("alter: %d row change(s) reached %s after the revert's final drain; "+
			"it is kept: compare it with %s and re-apply them", n, revertedName(r.id.Name), r.id))
	}
	why := "reverted at binlog " + rr.swapPos
	if r.o.KeepOldTable {
		why += "; the new-layout table is kept as " + revertedName(r.id.Name)
	} else if _, err := r.db.ExecContext(ctx, "DROP TABLE IF EXISTS "+r.quoted(revertedName(r.id.Name))); err != nil {
		r.log.Warn("drop the reverted table", "table", revertedName(r.id.Name), "err", err)
	}
	return rr, closeWindow(ctx, r.db, r.id.Database, r.id.Name, windowReverted, why)
}
