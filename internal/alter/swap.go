package alter

import (
	"context"
	"fmt"
	"time"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlog"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
)

// copyAndSwap reads the binlog from pos while it copies the chunks, then
// applies the changed keys, checks the copy and swaps it in.
func (r *runner) copyAndSwap(ctx context.Context, st *runState, pos binlogpos.Position, marker *schema.Table, rep *Report) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cr, err := r.startTracking(ctx, st, pos, marker, rep)
	if err != nil {
		return err
	}
	if r.o.group != nil {
		// One binlog reader for every table of the change (group.go).
		r.o.group.track(r, r.streamConfig(pos, marker))
	} else {
		stream, err := binlog.New(r.streamConfig(pos, marker))
		if err != nil {
			return err
		}
		trDone := make(chan struct{})
		go func() {
			defer close(trDone)
			if sleep(ctx, r.o.readerDelay) == nil {
				r.tr.run(ctx, stream)
			}
		}()
		defer func() { cancel(); <-trDone }()
	}
	stopProgress := r.progress(ctx, len(st.Chunks))
	defer stopProgress()

	// A key is applied once its chunk is copied: with a one-column integer
	// key its chunk is known (copiedRanges) and keys of copied chunks are
	// applied during the copy; other keys wait for the whole copy (memory:
	// one entry per distinct changed key).
	switch r.o.Parts {
	case "track":
		<-ctx.Done()
		return ctx.Err()
	case "apply":
		r.keys.releaseAll()
		stop := r.startAppliers(ctx, true)
		<-ctx.Done()
		stop()
		return ctx.Err()
	}
	if err := r.copyWithAppliers(ctx, st, cr); err != nil {
		return err
	}
	return r.applyAndSwap(ctx, st, rep)
}

// startTracking sets up the key set, the tracker and the pacer; the copied
// ranges (nil: keys wait for the whole copy) tell which keys may be
// applied during the copy.
func (r *runner) startTracking(ctx context.Context, st *runState, pos binlogpos.Position, marker *schema.Table, rep *Report) (*copiedRanges, error) {
	r.keys = newKeySet()
	// Before the first key comes in: see copyAndSwap's copy below.
	cr := newCopiedRanges(r.kc, st.Chunks)
	if cr != nil {
		r.keys.wait(cr.chunkOf)
	} else {
		r.keys.wait(func([]any) int { return afterCopy })
	}
	var why string
	var err error
	r.images, why = r.imageApply(r.p)
	rep.Apply = applyImages
	if r.images == nil {
		rep.Apply = applyReread
		r.log.Info("changed keys are re-read from the table, not written from the binlog's row images", "why", why)
	}
	r.tr = newTracker(r.id, marker.TableID, r.kc, r.keys, r.images != nil)
	if cr != nil && !rep.Resumed {
		if r.skipSeen, err = r.commitsInBinlogOrder(ctx); err != nil {
			return nil, err
		}
	}
	if r.o.KeepWriteRate > 0 {
		meter := &markerMeter{db: r.db, dbName: r.id.Database, table: r.id.Name, tr: r.tr}
		r.pacer = newWritePacer(r.o.KeepWriteRate, meter, func() func() { r.hold.Lock(); return r.hold.Unlock }, r.log)
		r.ctl.setPacer(r.pacer)
	}
	return cr, nil
}

// streamConfig reads the table's changes and the markers from pos.
func (r *runner) streamConfig(pos binlogpos.Position, marker *schema.Table) binlog.Config {
	serverID := r.o.ServerID
	if serverID == 0 {
		serverID = binlog.DefaultServerID("alter:"+r.id.String(), r.o.Source.Redacted())
	}
	return binlog.Config{
		Source: r.o.Source, Info: r.info, ServerID: serverID, Stream: "alter-" + r.id.String(), Start: pos,
		Tables:        map[schema.TableID]*schema.Table{r.id: r.src, marker.TableID: marker},
		SchemaVersion: 1,
		InScope:       func(id schema.TableID) bool { return id == r.id || id == marker.TableID },
		// The shadow table is on the same server, which computes its generated columns.
		WrittenGenerated: func(*schema.Table) []int { return nil },
		Translate:        r.tr.translator(),
		Heartbeat:        200 * time.Millisecond,
		// Read in bursts: the reader shares the source's CPU with the
		// application (docs/alter.md).
		ReadCoalesce: readCoalesce,
		Log:          r.log.With("component", "binlog"),
	}
}

// copyWithAppliers copies the chunks, paced, while the early appliers
// apply the keys of copied chunks; it ends both before it returns.
func (r *runner) copyWithAppliers(ctx context.Context, st *runState, cr *copiedRanges) error {
	stopEarly := r.startAppliers(ctx, true)
	stopPacer := func() {}
	if r.pacer != nil {
		pctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { defer close(done); r.pacer.run(pctx) }()
		stopPacer = func() { cancel(); <-done }
	}
	err := r.copyChunks(ctx, st.Chunks, cr)
	stopPacer()
	r.keys.releaseAll()
	if serr := stopEarly(); err == nil {
		err = serr
	}
	return err
}

// applyAndSwap applies the changed keys after the copy, checks the copy
// against the table, waits for the cut-over and swaps the tables.
func (r *runner) applyAndSwap(ctx context.Context, st *runState, rep *Report) error {
	if err := r.tr.failed(); err != nil {
		return err
	}
	r.log.Info("copy done; applying the changed keys", "rows", r.copied.Load(), "changed_keys", r.keys.size(),
		"left_to_the_copy", r.seen.Load())
	r.setPhase(phaseCatchUp)
	stop := r.startAppliers(ctx, false)
	if err := r.catchUp(ctx); err != nil {
		stop()
		return err
	}
	r.setPhase(phaseCheck)
	if err := r.checksum(ctx, st.Chunks); err != nil {
		stop()
		return err
	}
	r.log.Info("checksum equal: the copy has the table's rows")
	if err := r.waitCutover(ctx); err != nil {
		stop()
		return err
	}
	if r.o.group != nil {
		// One swap for every table of the change (group.go).
		if err := r.o.group.swap(ctx, r, stop); err != nil {
			return err
		}
		return r.swapped(ctx, rep)
	}
	if err := r.readyToSwap(ctx); err != nil {
		stop()
		return err
	}
	if err := stop(); err != nil {
		return err
	}
	r.setPhase(phaseSwap)
	paused, err := r.cutover(ctx)
	if err != nil {
		return err
	}
	r.log.Info("cut-over done", "writes_blocked", paused.Round(time.Millisecond), "binlog", r.swapPos)
	return r.swapped(ctx, rep)
}

// swapped finishes a run whose table was swapped in.
func (r *runner) swapped(ctx context.Context, rep *Report) error {
	rep.SwapPosition = r.swapPos
	if err := r.afterSwap(ctx); err != nil {
		return err
	}
	r.setPhase(phaseDone)
	return nil
}

// commitsInBinlogOrder: whether every transaction before a committed one
// in the binlog is committed too (copyChunks' markers rely on it). MariaDB
// commits in binlog order (its group commit's commit_ordered); MySQL when
// binlog_order_commits is on (the default).
func (r *runner) commitsInBinlogOrder(ctx context.Context) (bool, error) {
	if r.info.Flavor == binlog.FlavorMariaDB {
		return true, nil
	}
	var on int
	if err := r.db.QueryRowContext(ctx, "SELECT @@GLOBAL.binlog_order_commits").Scan(&on); err != nil {
		return false, fmt.Errorf("alter: read binlog_order_commits: %w", err)
	}
	return on == 1, nil
}

// startAppliers runs the background appliers; stop ends them and returns
// their error.
func (r *runner) startAppliers(ctx context.Context, gather bool) (stop func() error) {
	actx, cancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() { errc <- r.appliers(actx, gather) }()
	var stopped bool
	var err error
	return func() error {
		if !stopped {
			stopped = true
			cancel()
			err = <-errc
		}
		return err
	}
}

// catchUp waits until the binlog reader has read every change made before
// it was called and the key set is small: a table lock taken then holds
// the writers back for the last moment's changes only, not for a backlog
// the reader had yet to read (after a copy that took its CPU, it was
// seconds behind with a set that looked small) and the drain of it.
func (r *runner) catchUp(ctx context.Context) error {
	if err := r.readerCaughtUp(ctx); err != nil {
		return err
	}
	for {
		if err := r.tr.failed(); err != nil {
			return err
		}
		if r.keys.size() <= applyBatch {
			return nil
		}
		if err := sleep(ctx, 50*time.Millisecond); err != nil {
			return err
		}
	}
}

// readerCaughtUp waits until the binlog reader has read a marker written
// now, however long that takes (logged every 30 s).
func (r *runner) readerCaughtUp(ctx context.Context) error {
	id, err := writeMarker(ctx, r.db, r.id.Database, r.id.Name)
	if err != nil {
		return err
	}
	for start := time.Now(); ; {
		err := r.tr.waitMarker(ctx, id, 30*time.Second)
		if err == nil || r.tr.failed() != nil || ctx.Err() != nil {
			return err
		}
		r.log.Info("waiting for the binlog reader to catch up", "waited", time.Since(start).Round(time.Second))
	}
}

// readyToSwap waits, with the appliers running, until the run is not
// paused (control file, --max-load, replicas within --max-lag: the swap
// must not add a lag spike to a lagging replica) and the key set is small
// again.
func (r *runner) readyToSwap(ctx context.Context) error {
	if r.ctl.lag != nil {
		r.ctl.lag.expire()
	}
	if err := r.ctl.gate(ctx); err != nil {
		return err
	}
	return r.catchUp(ctx)
}

// waitCutover holds the swap while --postpone-cutover is set, until the
// control file says "cutover" (or "abort").
func (r *runner) waitCutover(ctx context.Context) error {
	if !r.o.PostponeCutover {
		return nil
	}
	r.setPhase(phaseWait)
	r.log.Info("cut-over postponed: write \"cutover\" into the control file to swap", "control_file", r.o.ControlFile)
	for {
		switch r.ctl.command() {
		case "cutover":
			return nil
		case "abort":
			return fmt.Errorf("%w by the control file %s", errAbort, r.o.ControlFile)
		}
		if err := r.tr.failed(); err != nil {
			return err
		}
		if err := sleep(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
}

// afterSwap checks nothing reached the old table after the drain, then
// drops it (unless --keep-old-table) and the state.
func (r *runner) afterSwap(ctx context.Context) error {
	// Read the binlog past the RENAME: a change of the old table between
	// the drain and the RENAME would be a lost write. (The reader may stop
	// at the first row of the new table, which its schema does not know;
	// that is after the RENAME too.)
	if id, err := writeMarker(ctx, r.db, r.id.Database, r.id.Name); err == nil {
		err := r.tr.waitMarker(ctx, id, 5*time.Second)
		if err != nil && !r.tr.renamed.Load() {
			r.log.Warn("after the swap: the binlog reader did not reach the RENAME; the swap is not checked", "err", err)
		}
	}
	if n := r.tr.slipped.Load(); n > 0 {
		return exitcode.WithCode(exitcode.Failure, fmt.Errorf("alter: %d row change(s) reached the old table %s after the final drain; "+
			"it is kept: compare it with %s and re-apply them", n, r.old(), r.id))
	}
	switch {
	case r.o.RevertWindow > 0:
		// Kept current for the revert window (window.go) by the caller.
	case !r.o.KeepOldTable:
		if _, err := r.db.ExecContext(ctx, "DROP TABLE IF EXISTS "+r.quoted(r.old())); err != nil {
			r.log.Warn("drop the old table", "table", r.old(), "err", err)
		}
	default:
		r.log.Info("old table kept", "table", r.old())
	}
	return deleteRun(ctx, r.db, r.id.Database, r.id.Name)
}
