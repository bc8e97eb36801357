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
	// swapStart is that position in full (a revert window reads from it).
	swapStart binlogpos.Position
	// fks: the foreign keys the swap moves to the new table (fk.go).
	fks *foreignKeys
	// locks: every lock attempt on the table so far (the report's Locks).
	locks []Lock
	// shadowTbl and oldTbl, when set, replace shadowName and old's
	// default: a revert's runner applies to the window's old table and
	// renames the new-layout table away (revert.go).
	shadowTbl, oldTbl string
	// reverse: the runner keeps the old table current after the swap.
	reverse bool

	// skipSeen: the copy leaves out keys whose last change it read
	// (copyChunks); seen counts them.
	skipSeen bool
	seen     atomic.Int64

	copied     atomic.Int64
	phase      atomic.Value // string: the phase alter status shows
	pieces     atomic.Int64 // copy statements run (several a chunk below the plan's chunk size)
	applied    atomic.Int64
	chunksDone atomic.Int64
}

// shadow is the table the appliers write and the swap renames in.
func (r *runner) shadow() string {
	if r.shadowTbl != "" {
		return r.shadowTbl
	}
	return shadowName(r.id.Name)
}

// old is what the swap renames the table to: the window's name when a
// revert window follows.
func (r *runner) old() string {
	switch {
	case r.oldTbl != "":
		return r.oldTbl
	case r.o.RevertWindow > 0:
		return windowName(r.id.Name)
	}
	return oldName(r.id.Name)
}

func (r *runner) quoted(name string) string {
	return consistent.QuoteTable(schema.TableID{Database: r.id.Database, Name: name})
}

// Run alters the table as opts say.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if len(opts.More) > 0 {
		return runMany(ctx, opts)
	}
	rep, err := run(ctx, opts)
	if !opts.DryRun && !opts.Cleanup {
		opts.Board.Alter(opts.Source.Database + "." + opts.Table).Finish(err)
	}
	return rep, err
}

func run(ctx context.Context, opts Options) (*Report, error) {
	o := opts.withDefaults()
	if err := checkOptions(o); err != nil {
		return nil, err
	}
	db, err := o.Source.OpenDB()
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(2*o.Workers + 8)
	r := &runner{o: o, db: db, log: o.Log.With("table", o.Source.Database+"."+o.Table),
		id: schema.TableID{Database: o.Source.Database, Name: o.Table}}
	r.ctl = newControl(o, db, r.log)
	if err := r.checkTable(ctx); err != nil {
		return nil, err
	}
	if o.Cleanup {
		return &Report{}, r.cleanup(ctx)
	}
	if o.Revert {
		if r.info, err = binlog.SourceOnPool(db).Info(ctx); err != nil {
			return nil, err
		}
		r.nowait, r.busyCode = nowaitClause(r.info.Flavor == binlog.FlavorMariaDB)
		return r.revert(ctx)
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
	if rep, ok, err := r.resumeWindow(ctx); ok || err != nil {
		return rep, err
	}
	st, finished, err := r.pendingRun(ctx)
	if err != nil || finished != nil {
		return finished, err
	}
	// The plan first: it tries the change on an empty temporary copy, so
	// that a refused change (a dropped column without the flag) is refused
	// before anything, the INSTANT path included, touches the table.
	if r.p, err = r.makePlan(ctx); err != nil {
		return nil, err
	}
	if len(r.p.dropped) > 0 && !o.AllowDropColumn {
		return nil, r.refusals(ctx)
	}
	if st == nil && o.Method != MethodCopy && !o.DryRun && o.RevertWindow == 0 {
		if rep, err := r.instantFirst(ctx, start); rep != nil || err != nil {
			return rep, err
		}
	}
	rep, err := r.copyRun(ctx, st)
	if rep != nil {
		rep.Took = time.Since(start)
	}
	if err == nil && o.RevertWindow > 0 && !o.DryRun {
		// The swap is done (and reported in the log): the window follows.
		w, err := loadWindow(ctx, r.db, r.id.Database, r.id.Name)
		if err != nil {
			return rep, err
		}
		if w == nil {
			return rep, fmt.Errorf("alter: swapped, but the revert window's state is missing from sluice.alter_windows")
		}
		return rep, r.keepWindow(ctx, w)
	}
	return rep, err
}

// checkOptions refuses flags that contradict each other or the table's
// name before anything connects to the server.
func checkOptions(o Options) error {
	if o.Source.Database == "" {
		return refuse("--source must name the table's database (mysql://user:pass@host:3306/db)")
	}
	if o.Table == "" {
		return refuse("--table is required")
	}
	switch o.Method {
	case MethodAuto, MethodInstant, MethodCopy:
	default:
		return refuse("--method %q: want auto, instant or copy", o.Method)
	}
	switch o.Parts {
	case "", "track", "apply":
	default:
		return refuse("SLUICE_ALTER_PARTS %q: want track or apply (a measurement), or nothing", o.Parts)
	}
	switch {
	case o.MaxLag < 0:
		return refuse("--max-lag %s: want a positive duration", o.MaxLag)
	case o.MaxLag > 0 && len(o.Replicas) == 0:
		return refuse("--max-lag needs --replica mysql://user:pass@host:port (repeatable): the replicas whose lag to watch")
	case o.KeepWriteRate < 0 || o.KeepWriteRate >= 1:
		return refuse("--keep-write-rate %g: want a share of the table's write rate below 1 (0.9), or 0 for no pacing", o.KeepWriteRate)
	case o.MaxLag == 0 && len(o.Replicas) > 0:
		return refuse("--replica needs --max-lag (the lag above which the copy pauses, e.g. --max-lag 1500ms)")
	}
	switch {
	case o.RevertWindow < 0:
		return refuse("--revert-window %s: want a positive duration (30m)", o.RevertWindow)
	case o.Revert && (o.RevertWindow > 0 || o.Alter != "" || len(o.More) > 0 || o.DryRun || o.Cleanup):
		return refuse("--revert swaps back the table of an open revert window: give it only --source and --table (no --alter, --revert-window, --dry-run or --cleanup)")
	case o.RevertWindow > 0 && len(o.More) > 0:
		return refuse("--revert-window is for one table: several tables in one swap cannot be reverted yet")
	case o.RevertWindow > 0 && o.Method == MethodInstant:
		return refuse("--revert-window needs the copy method (an INSTANT change leaves no old table to revert to): use --method auto or copy")
	}
	if len(shadowName(o.Table)) > 64 {
		return refuse("table name %s is too long for the copy's name %s (64 characters at most)", o.Table, shadowName(o.Table))
	}
	return nil
}

// checkTable refuses a table that is not there (or is a view) before
// --cleanup or a plan looks at it.
func (r *runner) checkTable(ctx context.Context) error {
	var n int
	if err := r.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND TABLE_TYPE = 'BASE TABLE'`,
		r.id.Database, r.id.Name).Scan(&n); err != nil {
		return fmt.Errorf("alter: source %s: %w", r.o.Source.Redacted(), err)
	}
	if n == 0 {
		return refuse("table %s not found", r.id)
	}
	return nil
}

// pendingRun loads an interrupted run's state (nil: none) and checks this
// run may resume it; finished is the report of a run that an interrupted
// one had already swapped in, whose state it removes.
func (r *runner) pendingRun(ctx context.Context) (st *runState, finished *Report, err error) {
	st, err = loadRun(ctx, r.db, r.id.Database, r.id.Name)
	if err != nil {
		return nil, nil, err
	}
	if st == nil {
		return nil, nil, nil
	}
	shadow, err := r.tableExists(ctx, shadowName(r.id.Name))
	if err != nil {
		return nil, nil, err
	}
	old, err := r.tableExists(ctx, r.old())
	if err != nil {
		return nil, nil, err
	}
	if !shadow && old {
		// Killed after the RENAME, before the state was removed.
		if err := deleteRun(ctx, r.db, r.id.Database, r.id.Name); err != nil {
			return nil, nil, err
		}
		r.log.Warn("an interrupted run had already swapped the tables; its state is removed and the old table kept", "old_table", r.old())
		return nil, &Report{Method: MethodCopy, Why: "finished by an earlier, interrupted run (the old table is kept as " + r.old() + ")"}, nil
	}
	if strings.TrimSpace(st.Alter) != strings.TrimSpace(r.o.Alter) {
		return nil, nil, refuse("an interrupted sluice alter of %s with other clauses (%q) is pending: run it again with those to resume, or with --cleanup to remove it", r.id, st.Alter)
	}
	if r.o.Method == MethodInstant {
		return nil, nil, refuse("an interrupted copy of %s is pending: resume it with --method copy or auto, or remove it with --cleanup", r.id)
	}
	return st, nil, nil
}

// instantFirst tries ALGORITHM=INSTANT before a copy: its report when the
// server ran the change, nil and nil when the copy is to follow.
func (r *runner) instantFirst(ctx context.Context, start time.Time) (*Report, error) {
	applied, reason, err := r.tryInstant(ctx)
	if err != nil {
		return &Report{Locks: r.locks}, err
	}
	if applied {
		r.log.Info("altered with ALGORITHM=INSTANT: metadata only, no copy", "took", time.Since(start).Round(time.Millisecond))
		return &Report{Method: MethodInstant, Why: "the server runs this change with ALGORITHM=INSTANT", Took: time.Since(start), Locks: r.locks}, nil
	}
	if r.o.Method == MethodInstant {
		return nil, refuse("the server cannot run this change INSTANT: %s", reason)
	}
	r.log.Info("INSTANT is not possible, copying", "server", reason)
	return nil, nil
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
	if st != nil {
		if err := r.restoreForeignKeys(ctx); err != nil {
			return nil, err
		}
	}
	if err := r.refusals(ctx); err != nil {
		return nil, err
	}
	if r.o.group != nil && !r.o.DryRun {
		// Nothing is created unless every table of the change passed.
		if err := r.o.group.passed(ctx); err != nil {
			return nil, err
		}
	}
	p := r.p
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
	rep := &Report{Method: MethodCopy, Why: "a shadow copy with the new definition, swapped in by RENAME"}
	st, pos, err := r.prepareCopy(ctx, st, rep)
	if err != nil {
		return nil, err
	}
	rep.Chunks = len(st.Chunks)
	err = r.copyAndSwap(ctx, st, pos, marker, rep)
	r.fillReport(rep)
	return r.copyResult(ctx, rep, err)
}

// prepareCopy checks the shadow and old table names, then plans a fresh
// copy or resumes the interrupted one (st); it returns the run's state and
// the binlog position the changes are read from.
func (r *runner) prepareCopy(ctx context.Context, st *runState, rep *Report) (*runState, binlogpos.Position, error) {
	var pos binlogpos.Position
	shadowExists, err := r.tableExists(ctx, shadowName(r.id.Name))
	if err != nil {
		return nil, pos, err
	}
	if st != nil && !shadowExists {
		r.log.Warn("the interrupted run's copy table is gone: starting over")
		if err := deleteRun(ctx, r.db, r.id.Database, r.id.Name); err != nil {
			return nil, pos, err
		}
		st = nil
	}
	if exists, err := r.tableExists(ctx, r.old()); err != nil || exists {
		if err != nil {
			return nil, pos, err
		}
		return nil, pos, refuse("table %s exists (kept by an earlier --keep-old-table?): the swap renames %s to that name; drop or rename it first", r.old(), r.id)
	}
	if st == nil {
		if shadowExists {
			return nil, pos, refuse("table %s already exists and no sluice alter of %s is pending: the copy needs that name; drop it if it is a leftover", shadowName(r.id.Name), r.id)
		}
		return r.planCopy(ctx)
	}
	if pos, err = binlogpos.Parse(st.StartPos); err != nil {
		return nil, pos, fmt.Errorf("alter: saved position: %w", err)
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
	return st, pos, nil
}

// planCopy creates the shadow table, takes the start position and saves
// the chunk plan; on failure the shadow table is dropped again.
func (r *runner) planCopy(ctx context.Context) (*runState, binlogpos.Position, error) {
	var pos binlogpos.Position
	var err error
	for _, q := range r.p.shadowDDL {
		if _, err := r.db.ExecContext(ctx, q); err != nil {
			return nil, pos, fmt.Errorf("alter: %s: %w", q, err)
		}
	}
	// The position before the first chunk is read: every change the
	// copy may miss is after it.
	if pos, err = binlog.SourceOnPool(r.db).MasterStatus(ctx, r.info); err != nil {
		r.dropShadow(ctx)
		return nil, pos, err
	}
	chunks, err := r.planChunks(ctx)
	if err != nil {
		r.dropShadow(ctx)
		return nil, pos, err
	}
	st := &runState{Alter: r.o.Alter, StartPos: pos.Encode(), Chunks: chunks}
	if err := saveRun(ctx, r.db, r.id.Database, r.id.Name, st); err != nil {
		r.dropShadow(ctx)
		return nil, pos, err
	}
	r.log.Info("copy planned", "shadow", shadowName(r.id.Name), "chunks", len(chunks), "rows_estimate", r.p.rows, "start", pos.String())
	return st, pos, nil
}

// fillReport copies the run's counters, locks and pacing into its report,
// whatever the copy's outcome.
func (r *runner) fillReport(rep *Report) {
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
}

// copyResult turns the copy's error into the run's: an abort cleans up,
// an interruption or a failure before the swap says how to resume.
func (r *runner) copyResult(ctx context.Context, rep *Report, err error) (*Report, error) {
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
	if err := r.restoreForeignKeys(ctx); err != nil {
		return err
	}
	r.dropShadow(ctx)
	if err := deleteRun(ctx, r.db, r.id.Database, r.id.Name); err != nil {
		return err
	}
	if err := deleteStatus(ctx, r.db, r.id.Database, r.id.Name); err != nil {
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
	for _, st := range r.swapSteps() {
		add("at the swap, under its lock: %s", st.do)
	}
	add("checks: binlog ROW/FULL, no triggers, foreign keys the swap can carry, no renames: passed")
	return rep, nil
}
