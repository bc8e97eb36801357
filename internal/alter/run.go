package alter

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/gctune"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlog"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/source/mysql/consistent"
)

type runner struct {
	o    Options
	log  *slog.Logger
	db   *sql.DB
	id   schema.TableID
	info binlog.SourceInfo
	ctl  *control

	p    *plan
	src  *schema.Table
	key  *consistent.Key
	kc   *keyCols
	keys *keySet
	tr   *tracker
	// pacer paces the copy (nil: not paced).
	pacer *writePacer
	// images writes changed keys' row images (images.go); nil: keys are
	// re-read from the table.
	images *imageWriter

	hashFn, hashArg string // the checksum's row hash
	// nowait and busyCode: the appliers' non-waiting lock clause and the
	// error of a row it could not lock (apply.go).
	nowait   string
	busyCode uint16
	// hold: the appliers apply a batch under its read lock; the checksum
	// takes it to stop them while it waits for its table lock.
	hold    sync.RWMutex
	swapPos string // binlog position of the table at the swap
	// locks: every lock attempt on the table so far (the report's Locks).
	locks []Lock

	// skipSeen: the copy leaves out keys whose last change it read
	// (copyChunks); seen counts them.
	skipSeen bool
	seen     atomic.Int64

	copied     atomic.Int64
	applied    atomic.Int64
	chunksDone atomic.Int64
}

func (r *runner) quoted(name string) string {
	return consistent.QuoteTable(schema.TableID{Database: r.id.Database, Name: name})
}

// Run alters the table as opts say.
func Run(ctx context.Context, opts Options) (*Report, error) {
	o := opts.withDefaults()
	if o.Source.Database == "" {
		return nil, refuse("--source must name the table's database (mysql://user:pass@host:3306/db)")
	}
	if o.Table == "" {
		return nil, refuse("--table is required")
	}
	switch o.Method {
	case MethodAuto, MethodInstant, MethodCopy:
	default:
		return nil, refuse("--method %q: want auto, instant or copy", o.Method)
	}
	switch o.Parts {
	case "", "track", "apply":
	default:
		return nil, refuse("SLUICE_ALTER_PARTS %q: want track or apply (a measurement), or nothing", o.Parts)
	}
	switch {
	case o.MaxLag < 0:
		return nil, refuse("--max-lag %s: want a positive duration", o.MaxLag)
	case o.MaxLag > 0 && len(o.Replicas) == 0:
		return nil, refuse("--max-lag needs --replica mysql://user:pass@host:port (repeatable): the replicas whose lag to watch")
	case o.KeepWriteRate < 0 || o.KeepWriteRate >= 1:
		return nil, refuse("--keep-write-rate %g: want a share of the table's write rate below 1 (0.9), or 0 for no pacing", o.KeepWriteRate)
	case o.MaxLag == 0 && len(o.Replicas) > 0:
		return nil, refuse("--replica needs --max-lag (the lag above which the copy pauses, e.g. --max-lag 1500ms)")
	}
	if len(shadowName(o.Table)) > 64 {
		return nil, refuse("table name %s is too long for the copy's name %s (64 characters at most)", o.Table, shadowName(o.Table))
	}
	db, err := o.Source.OpenDB()
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(2*o.Workers + 8)
	r := &runner{o: o, db: db, log: o.Log.With("table", o.Source.Database+"."+o.Table),
		id: schema.TableID{Database: o.Source.Database, Name: o.Table}}
	r.ctl = &control{path: o.ControlFile, db: db, maxLoad: o.MaxLoad, critical: o.CriticalLoad, log: r.log}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND TABLE_TYPE = 'BASE TABLE'`,
		r.id.Database, r.id.Name).Scan(&n); err != nil {
		return nil, fmt.Errorf("alter: source %s: %w", o.Source.Redacted(), err)
	}
	if n == 0 {
		return nil, refuse("table %s not found", r.id)
	}
	if o.Cleanup {
		return &Report{}, r.cleanup(ctx)
	}
	if err := checkAlterText(o.Alter); err != nil {
		return nil, err
	}
	if len(o.Replicas) > 0 {
		if r.ctl.lag, err = openReplicas(ctx, o.Replicas, o.MaxLag); err != nil {
			return nil, err
		}
		defer r.ctl.lag.close()
	}
	if r.info, err = binlog.SourceOnPool(db).Info(ctx); err != nil {
		return nil, err
	}
	r.nowait, r.busyCode = nowaitClause(r.info.Flavor == binlog.FlavorMariaDB)
	start := time.Now()
	st, err := loadRun(ctx, db, r.id.Database, r.id.Name)
	if err != nil {
		return nil, err
	}
	if st != nil {
		shadow, err := r.tableExists(ctx, shadowName(r.id.Name))
		if err != nil {
			return nil, err
		}
		old, err := r.tableExists(ctx, oldName(r.id.Name))
		if err != nil {
			return nil, err
		}
		if !shadow && old {
			// Killed after the RENAME, before the state was removed.
			if err := deleteRun(ctx, db, r.id.Database, r.id.Name); err != nil {
				return nil, err
			}
			r.log.Warn("an interrupted run had already swapped the tables; its state is removed and the old table kept", "old_table", oldName(r.id.Name))
			return &Report{Method: MethodCopy, Why: "finished by an earlier, interrupted run (the old table is kept as " + oldName(r.id.Name) + ")"}, nil
		}
		if strings.TrimSpace(st.Alter) != strings.TrimSpace(o.Alter) {
			return nil, refuse("an interrupted sluice alter of %s with other clauses (%q) is pending: run it again with those to resume, or with --cleanup to remove it", r.id, st.Alter)
		}
		if o.Method == MethodInstant {
			return nil, refuse("an interrupted copy of %s is pending: resume it with --method copy or auto, or remove it with --cleanup", r.id)
		}
	}
	// The plan first: it tries the change on an empty temporary copy, so
	// that a refused change (a dropped column without the flag) is refused
	// before anything, the INSTANT path included, touches the table.
	if r.p, err = r.makePlan(ctx); err != nil {
		return nil, err
	}
	if len(r.p.dropped) > 0 && !o.AllowDropColumn {
		return nil, r.checkPlan(r.p)
	}
	if st == nil && o.Method != MethodCopy && !o.DryRun {
		applied, reason, err := r.tryInstant(ctx)
		if err != nil {
			return &Report{Locks: r.locks}, err
		}
		if applied {
			r.log.Info("altered with ALGORITHM=INSTANT: metadata only, no copy", "took", time.Since(start).Round(time.Millisecond))
			return &Report{Method: MethodInstant, Why: "the server runs this change with ALGORITHM=INSTANT", Took: time.Since(start), Locks: r.locks}, nil
		}
		if o.Method == MethodInstant {
			return nil, refuse("the server cannot run this change INSTANT: %s", reason)
		}
		r.log.Info("INSTANT is not possible, copying", "server", reason)
	}
	rep, err := r.copyRun(ctx, st)
	if rep != nil {
		rep.Took = time.Since(start)
	}
	return rep, err
}

// readCoalesce is the binlog reader's wait after a short read: a few
// milliseconds of latency (markers, the swap's drain) for a reader woken
// once per burst of events instead of once per event.
const readCoalesce = 5 * time.Millisecond

// alterMemory is the soft memory limit of a copy run (gctune): the key set
// with its row images is the only large structure.
const alterMemory = 1 << 30

// copyRun is the shadow-table method, fresh (st nil) or resumed.
func (r *runner) copyRun(ctx context.Context, st *runState) (*Report, error) {
	// The binlog reader allocates a value per column of every change of
	// the table while the live heap stays small: collect less often.
	defer gctune.Apply(alterMemory)()
	if err := checkBinlog(ctx, r.db); err != nil {
		return nil, err
	}
	if err := checkDependents(ctx, r.db, r.id.Database, r.id.Name); err != nil {
		return nil, err
	}
	p := r.p
	if err := r.checkPlan(p); err != nil {
		return nil, err
	}
	if r.o.DryRun {
		return r.dryRun(ctx)
	}
	if err := ensureState(ctx, r.db); err != nil {
		return nil, err
	}
	src, marker, err := r.loadSource(ctx, true)
	if err != nil {
		return nil, err
	}
	r.src = src
	if r.key, r.kc, err = r.chunkKey(p); err != nil {
		return nil, err
	}
	shadowExists, err := r.tableExists(ctx, shadowName(r.id.Name))
	if err != nil {
		return nil, err
	}
	rep := &Report{Method: MethodCopy, Why: "a shadow copy with the new definition, swapped in by RENAME"}
	var pos binlogpos.Position
	if st != nil && !shadowExists {
		r.log.Warn("the interrupted run's copy table is gone: starting over")
		if err := deleteRun(ctx, r.db, r.id.Database, r.id.Name); err != nil {
			return nil, err
		}
		st = nil
	}
	if exists, err := r.tableExists(ctx, oldName(r.id.Name)); err != nil || exists {
		if err != nil {
			return nil, err
		}
		return nil, refuse("table %s exists (kept by an earlier --keep-old-table?): the swap renames %s to that name; drop or rename it first", oldName(r.id.Name), r.id)
	}
	if st == nil {
		if shadowExists {
			return nil, refuse("table %s already exists and no sluice alter of %s is pending: the copy needs that name; drop it if it is a leftover", shadowName(r.id.Name), r.id)
		}
		for _, q := range p.shadowDDL {
			if _, err := r.db.ExecContext(ctx, q); err != nil {
				return nil, fmt.Errorf("alter: %s: %w", q, err)
			}
		}
		// The position before the first chunk is read: every change the
		// copy may miss is after it.
		if pos, err = binlog.SourceOnPool(r.db).MasterStatus(ctx, r.info); err != nil {
			r.dropShadow(ctx)
			return nil, err
		}
		chunks, err := r.planChunks(ctx)
		if err != nil {
			r.dropShadow(ctx)
			return nil, err
		}
		st = &runState{Alter: r.o.Alter, StartPos: pos.Encode(), Chunks: chunks}
		if err := saveRun(ctx, r.db, r.id.Database, r.id.Name, st); err != nil {
			r.dropShadow(ctx)
			return nil, err
		}
		r.log.Info("copy planned", "shadow", shadowName(r.id.Name), "chunks", len(chunks), "rows_estimate", p.rows, "start", pos.String())
	} else {
		if pos, err = binlogpos.Parse(st.StartPos); err != nil {
			return nil, fmt.Errorf("alter: saved position: %w", err)
		}
		done := 0
		for _, c := range st.Chunks {
			if c.Done {
				done++
			}
		}
		rep.Resumed = true
		r.chunksDone.Store(int64(done))
		r.log.Info("resuming an interrupted copy", "chunks_done", done, "chunks", len(st.Chunks), "replay_from", pos.String())
	}
	rep.Chunks = len(st.Chunks)
	err = r.copyAndSwap(ctx, st, pos, marker, rep)
	rep.Rows, rep.Keys, rep.KeysReadByCopy = r.copied.Load(), r.applied.Load(), r.seen.Load()
	rep.Locks = r.locks
	for _, l := range r.locks {
		if l.Step == stepSwap {
			rep.CutoverLock += l.Blocked()
		}
	}
	rep.WriteRate, rep.WriteRateMeasured = r.pacer.firstBaseline()
	if r.pacer != nil {
		rep.KeepWriteRate = r.o.KeepWriteRate
	}
	switch {
	case err == nil:
		return rep, nil
	case errors.Is(err, errAbort):
		r.log.Warn("alter aborted: removing the copy and the state", "reason", err)
		if cerr := r.cleanup(context.WithoutCancel(ctx)); cerr != nil {
			r.log.Error("cleanup after abort", "err", cerr)
		}
		return rep, exitcode.WithCode(exitcode.Failure, err)
	case ctx.Err() != nil:
		return rep, fmt.Errorf("alter interrupted; run the same command again to resume, or with --cleanup to remove the copy: %w", ctx.Err())
	}
	if r.tr != nil && r.tr.sealed.Load() {
		return rep, err
	}
	return rep, fmt.Errorf("%w\n  the table is unchanged; run the same command again to resume, or with --cleanup to remove the copy", err)
}

func (r *runner) copyAndSwap(ctx context.Context, st *runState, pos binlogpos.Position, marker *schema.Table, rep *Report) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
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
			return err
		}
	}
	if r.o.KeepWriteRate > 0 {
		meter := &markerMeter{db: r.db, dbName: r.id.Database, table: r.id.Name, tr: r.tr}
		r.pacer = newWritePacer(r.o.KeepWriteRate, meter, func() func() { r.hold.Lock(); return r.hold.Unlock }, r.log)
	}
	serverID := r.o.ServerID
	if serverID == 0 {
		serverID = binlog.DefaultServerID("alter:"+r.id.String(), r.o.Source.Redacted())
	}
	stream, err := binlog.New(binlog.Config{
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
	})
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
	stopEarly := r.startAppliers(ctx, true)
	stopPacer := func() {}
	if r.pacer != nil {
		pctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { defer close(done); r.pacer.run(pctx) }()
		stopPacer = func() { cancel(); <-done }
	}
	err = r.copyChunks(ctx, st.Chunks, cr)
	stopPacer()
	r.keys.releaseAll()
	if serr := stopEarly(); err == nil {
		err = serr
	}
	if err != nil {
		return err
	}
	if err := r.tr.failed(); err != nil {
		return err
	}
	r.log.Info("copy done; applying the changed keys", "rows", r.copied.Load(), "changed_keys", r.keys.size(),
		"left_to_the_copy", r.seen.Load())
	stop := r.startAppliers(ctx, false)
	if err := r.catchUp(ctx); err != nil {
		stop()
		return err
	}
	if err := r.checksum(ctx, st.Chunks); err != nil {
		stop()
		return err
	}
	r.log.Info("checksum equal: the copy has the table's rows")
	if err := r.waitCutover(ctx); err != nil {
		stop()
		return err
	}
	if err := r.readyToSwap(ctx); err != nil {
		stop()
		return err
	}
	if err := stop(); err != nil {
		return err
	}
	paused, err := r.cutover(ctx)
	if err != nil {
		return err
	}
	rep.SwapPosition = r.swapPos
	r.log.Info("cut-over done", "writes_blocked", paused.Round(time.Millisecond), "binlog", r.swapPos)
	if err := r.afterSwap(ctx); err != nil {
		return err
	}
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
			"it is kept: compare it with %s and re-apply them", n, oldName(r.id.Name), r.id))
	}
	if !r.o.KeepOldTable {
		if _, err := r.db.ExecContext(ctx, "DROP TABLE IF EXISTS "+r.quoted(oldName(r.id.Name))); err != nil {
			r.log.Warn("drop the old table", "table", oldName(r.id.Name), "err", err)
		}
	} else {
		r.log.Info("old table kept", "table", oldName(r.id.Name))
	}
	return deleteRun(ctx, r.db, r.id.Database, r.id.Name)
}

func (r *runner) tableExists(ctx context.Context, name string) (bool, error) {
	var n int
	err := r.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?`, r.id.Database, name).Scan(&n)
	return n > 0, err
}

func (r *runner) dropShadow(ctx context.Context) {
	if _, err := r.db.ExecContext(context.WithoutCancel(ctx), "DROP TABLE IF EXISTS "+r.quoted(shadowName(r.id.Name))); err != nil {
		r.log.Warn("drop the copy table", "err", err)
	}
}

// cleanup removes the copy table and the state of the table's run. A
// table named like the copy without a state naming it may be the user's:
// it is never dropped.
func (r *runner) cleanup(ctx context.Context) error {
	st, err := loadRun(ctx, r.db, r.id.Database, r.id.Name)
	if err != nil {
		return err
	}
	if st == nil {
		if exists, err := r.tableExists(ctx, shadowName(r.id.Name)); err == nil && exists {
			return refuse("no sluice alter of %s is pending, so %s is not dropped (it may be yours); drop it yourself if it is a leftover", r.id, shadowName(r.id.Name))
		}
		r.log.Info("nothing to clean up")
		return nil
	}
	r.dropShadow(ctx)
	if err := deleteRun(ctx, r.db, r.id.Database, r.id.Name); err != nil {
		return err
	}
	r.log.Info("removed the copy table and the state", "shadow", shadowName(r.id.Name))
	return nil
}

// dryRun reports the plan.
func (r *runner) dryRun(ctx context.Context) (*Report, error) {
	src, _, err := r.loadSource(ctx, false)
	if err != nil {
		return nil, err
	}
	r.src = src
	if _, _, err := r.chunkKey(r.p); err != nil {
		return nil, err
	}
	p := r.p
	rep := &Report{}
	add := func(format string, a ...any) { rep.Plan = append(rep.Plan, fmt.Sprintf(format, a...)) }
	switch {
	case r.o.Method == MethodCopy:
		rep.Why = "copy (--method copy)"
	default:
		// An empty temporary table is no witness: servers run changes
		// INSTANT there that they rebuild a real table for, or refuse
		// INSTANT on temporary tables altogether.
		rep.Why = "the run first tries ALGORITHM=INSTANT on the table (only the server can tell, by doing it); when refused, this copy"
	}
	add("method: %s", rep.Why)
	for _, q := range p.shadowDDL {
		add("shadow DDL: %s", q)
	}
	add("copied columns: %s", strings.Join(p.shared, ", "))
	if len(p.dropped) > 0 {
		add("dropped columns (--allow-drop-column): %s", strings.Join(p.dropped, ", "))
	}
	add("row identity: %s (%s)", strings.Join(p.keyCols, ", "), p.keyIndex)
	add("estimate: %d rows, %d MB, about %d chunks of %d rows, %d workers", p.rows, p.bytes>>20, p.rows/r.o.ChunkRows+1, r.o.ChunkRows, r.o.Workers)
	if p.freeBytes < 0 {
		add("disk: the server does not report free space; the copy needs about %d MB", p.bytes>>20)
	} else {
		add("disk: %d MB free, the copy needs about %d MB", p.freeBytes>>20, p.bytes>>20)
	}
	if r.ctl.lag != nil {
		r.ctl.lag.check(ctx)
		add("replicas (--max-lag %s): %s", r.o.MaxLag, r.ctl.lag.lastStatus())
	}
	add("checks: binlog ROW/FULL, no triggers, no foreign keys, no renames: passed")
	return rep, nil
}
