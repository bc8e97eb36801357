package replicate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/ddl"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/gctune"
	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlog"
	engines "github.com/sluice-db/sluice/internal/target"
	"github.com/sluice-db/sluice/internal/typemap"
)

// replicateMemoryOverhead is the soft memory limit above --max-txn-memory:
// the garbage collector works harder as the heap approaches the sum.
const replicateMemoryOverhead = 128 << 20

// runner holds one Run's connections and parts.
type runner struct {
	o          Options
	log        *slog.Logger
	eng        engines.Engine // names and capabilities (engine.go)
	tgt        target
	src        *binlog.Source
	srcDB      *sql.DB
	info       binlog.SourceInfo
	filter     schema.Filter
	naming     schema.Naming
	cat        *schema.Catalog
	mapper     *typemap.Mapper
	stream     *binlog.Stream
	applier    *pipeline.Applier
	unregister func()
	policies   *policyWatch // values changed by a policy (policy.go)
	// recopied are the tables a re-copy copied at a position past the
	// start, with that position (recopy.go); recopyPause says this run
	// stopped to let a re-copy work.
	recopied    map[schema.TableID]model.Position
	recopyPause bool
	// moved are the tables whose source column order changed in this run
	// (colorder.go), with the source's order.
	moved colOrders
	idle  chan struct{} // the stream went idle (OnIdle), for --until-caught-up

	// room is the source's binlog retention, for the headroom (headroom.go).
	room retentionHeadroom
}

// Run replicates until ctx is cancelled (graceful stop: reading stops, apply
// commits what it received, nil is returned), --until-caught-up is reached,
// or an error. Errors carry exit codes: 2 for configuration, pre-flight, a
// missing start position or a purged binlog; 1 for failures while running.
func Run(ctx context.Context, opts Options) error {
	o, err := opts.withDefaults()
	if err != nil {
		return err
	}
	// Decoded changes held in memory are bounded by MaxTxnMemory (half in
	// apply's queue, fragments of 1/16); the rest is connections and plans.
	defer gctune.Apply(o.MaxTxnMemory + replicateMemoryOverhead)()
	// One run identity across reconnects: a run that owned the stream and
	// finds, reconnecting, that a standby took it over stops (pgsink.Config.OwnedBefore).
	o.run = &runIdentity{id: pipeline.NewRunID()}
	var lost *targetLoss // set while reconnecting to a lost target
	var srcWait sourceWait
	for {
		if err := waitRecopy(ctx, o); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		err := runOnce(ctx, o, lost != nil)
		if errors.Is(err, errRecopyPause) && ctx.Err() == nil {
			o.Log.Info("replicate: stopped for a re-copy; continuing when it is done", "stream", o.Stream)
			continue
		}
		if ctx.Err() != nil && errors.Is(err, context.Canceled) {
			// Stopped (a signal) before or while starting: a graceful stop,
			// nothing half-done; the next start continues from the checkpoint.
			return nil
		}
		if ctx.Err() == nil && isSourceLoss(err) {
			if !srcWait.next(ctx, o, err) {
				return nil
			}
			continue
		}
		if err == nil || ctx.Err() != nil || !isTargetLoss(err) {
			if lost != nil && err != nil && ctx.Err() == nil && !errors.Is(err, pipeline.ErrTakenOver) {
				err = lost.giveUp(err)
			}
			return err
		}
		if lost == nil {
			lost = &targetLoss{since: time.Now(), limit: o.TargetRetry}
		}
		wait, ok := lost.next()
		if !ok {
			return lost.giveUp(err)
		}
		o.Log.Warn("replicate: lost the target; reconnecting from its checkpoint (exactly once)",
			"attempt", lost.attempts, "cause", shortCause(err), "next_try_in", wait.String())
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
	}
}

// runOnce connects, prepares and runs one replicator until it stops.
// retrying says the target was lost before: a target that still refuses
// connections then counts as lost, not as a configuration error.
func runOnce(ctx context.Context, o Options, retrying bool) error {
	r := &runner{o: o, log: o.Log, eng: o.engine(), idle: make(chan struct{}, 1)}
	defer r.close()
	if err := r.prepare(ctx); err != nil {
		if retrying && isTargetLoss(err) {
			return err
		}
		if retrying {
			return fmt.Errorf("reconnecting after losing the target: %w", err)
		}
		return err
	}
	err := r.run(ctx)
	var af *applyFailure
	if errors.As(err, &af) && isTargetLoss(af.err) {
		return &targetLost{err: af.err}
	}
	if af != nil {
		return af.err
	}
	return err
}

// prepare connects, loads the scope and the schema, finds the start and
// builds the stream and the applier.
func (r *runner) prepare(ctx context.Context) error {
	o := r.o
	if err := r.connect(ctx); err != nil {
		return err
	}
	if err := r.loadSource(ctx); err != nil {
		return err
	}
	if pg, ok := r.tgt.(*pgTarget); ok {
		// The mapping routes rows and DDL: the stream's own, or a refusal.
		if err := checkpoint.CheckNaming(ctx, pg.pool, o.Stream, r.naming.Options(), false); err != nil {
			return err
		}
	}
	serverID := o.ServerID
	if serverID == 0 {
		serverID = binlog.DefaultServerID(o.Stream, o.targetRedacted())
	}
	if err := binlog.CheckServerID(ctx, r.src, r.info, serverID, o.Stream); err != nil {
		return err
	}
	var err error
	if err := r.ensureStart(ctx); err != nil {
		return err
	}
	if pg, ok := r.tgt.(*pgTarget); ok {
		// A stream from before sluice recorded its naming takes this run's.
		if err := checkpoint.RecordNaming(ctx, pg.pool, o.Stream, r.naming.Options()); err != nil {
			return err
		}
	}
	sink, err := r.tgt.sink(r)
	if err != nil {
		return err
	}
	earlier, err := r.tgt.loadPolicyChanges(ctx, o.Stream)
	if err != nil {
		return err
	}
	r.policies = newPolicyWatch(r.mapper.Changes(), earlier)
	pcfg := pipeline.Config{Stream: o.Stream, Workers: o.Workers, MaxInflightBytes: o.MaxTxnMemory / 2, Log: r.log}
	if t, ok := r.eng.(engines.PipelineTuner); ok {
		t.TunePipeline(&pcfg)
	}
	r.applier, err = pipeline.New(pcfg, sink)
	if err != nil {
		return err
	}
	st, err := r.applier.Open(ctx)
	if err != nil {
		return err
	}
	if o.run != nil {
		o.run.owned.Store(true)
	}
	start, err := r.origin(ctx, st)
	if err != nil {
		return err
	}
	// The tables the target holds at the checkpoint; those created later
	// are checked as their schema change is applied (the sink).
	if err := r.refuseCascades(ctx, r.inScope(start.tables)); err != nil {
		return err
	}
	if err := r.loadRecopied(ctx, start.pos); err != nil {
		return err
	}
	skip := func(stmt string) bool {
		for _, p := range o.SkipDDL {
			if ddl.MatchSkip(p, stmt) {
				return true
			}
		}
		return false
	}
	cfg := binlog.Config{
		Source: r.o.Source, Failover: len(o.Source.Hosts) > 1, Info: r.info, ServerID: serverID, Stream: o.Stream,
		Start: start.pos, Tables: start.tables, SchemaVersion: start.version,
		InScope:          func(id schema.TableID) bool { return r.filter.Match(id.Database, id.Name) },
		Translate:        r.translator(),
		SkipDDL:          skip,
		SkipLoopback:     true,
		WrittenGenerated: r.writtenColumns,
		KeepReplace:      r.eng.Capabilities().KeepReplace, // Kafka: events as logged, as Debezium emits them
		Reload:           r.reload,
		FragmentBytes:    o.MaxTxnMemory / 16,
		Heartbeat:        o.Heartbeat,
		Log:              r.log,
		OnIdle:           r.noteIdle,
	}
	if len(r.recopied) > 0 {
		cfg.SkipRows, cfg.SchemaChangeAt = r.skipRows, r.recopyDDL
	}
	if r.stream, err = binlog.New(cfg); err != nil {
		return err
	}
	return r.registerMetrics()
}

func (r *runner) connect(ctx context.Context) error {
	if err := r.chooseSource(ctx); err != nil {
		return err
	}
	var err error
	if r.src, err = binlog.OpenSource(r.o.Source); err != nil {
		return exitcode.ConfigError(err)
	}
	if r.info, err = r.src.Info(ctx); err != nil {
		return exitcode.ConfigError(fmt.Errorf("source %s: %w", r.o.Source.Redacted(), err))
	}
	if r.srcDB, err = r.o.Source.OpenDB(); err != nil {
		return exitcode.ConfigError(err)
	}
	r.srcDB.SetMaxOpenConns(2)
	_, r.tgt = r.o.sides()
	return r.tgt.connect(ctx, r.o)
}

// loadSource builds the filter and naming, reads the current catalog (for
// the DDL translator's database defaults, and as the schema of a start
// without a snapshot) and the type mapper with the same policies and
// server tables the snapshot uses.
func (r *runner) loadSource(ctx context.Context) error {
	var err error
	if r.filter, err = schema.NewFilter(r.o.Include, r.o.Exclude, r.o.Source.Database); err != nil {
		return exitcode.ConfigError(err)
	}
	if r.naming, err = schema.NewNamingOptions(r.o.NamingOptions()); err != nil {
		return exitcode.ConfigError(err)
	}
	if r.eng.Capabilities().KeepsSourceNames {
		r.naming = r.naming.ForMySQLTarget()
	}
	if r.cat, err = schema.Load(ctx, r.srcDB, r.filter); err != nil {
		return fmt.Errorf("source: %w", err)
	}
	if err := r.naming.Check(r.cat.Tables); err != nil {
		// A stream's naming is fixed by its snapshot (a --rename added now
		// is refused as another naming): what is left is the scope.
		return exitcode.ConfigError(fmt.Errorf("%w (the stream's names are fixed by its snapshot: to go on, leave the table "+
			"that came later out with --exclude db.table, or start a new stream with --rename)", err))
	}
	for _, u := range r.naming.Unmatched(r.cat.Tables) {
		r.log.Warn("naming entry matches nothing yet; it applies when DDL creates it (a typo?)", "entry", u)
	}
	// The DDL translator checks new columns against the mapper: a MySQL
	// target takes MySQL 9's VECTOR as the source has it.
	opts := typemap.Options{ZeroDate: r.o.ZeroDate, Nul: r.o.Nul, RawVector: r.eng.Capabilities().RawVector}
	if my, ok := r.tgt.(*mysqlTarget); ok {
		if my.sourceDB, err = scopeDatabase(r.o, r.cat); err != nil {
			return err
		}
		if err := my.refuseFlavor(ctx, r.info.Flavor, r.info.Version); err != nil {
			return err
		}
		if err := my.refuseSourceDatabase(ctx, r.srcDB); err != nil {
			return err
		}
		if err := my.refuseTriggers(ctx); err != nil {
			return err
		}
	}
	if opts.PostGIS, err = r.tgt.postGIS(ctx); err != nil {
		return err
	}
	if opts.Charsets, err = typemap.LoadCharsets(ctx, r.srcDB, typemap.CharsetsOf(r.cat.Tables)...); err != nil {
		return fmt.Errorf("source: %w", err)
	}
	r.mapper = typemap.New(opts, nil)
	return nil
}

func (r *runner) close() {
	if r.unregister != nil {
		r.unregister()
	}
	if r.applier != nil {
		r.applier.Close() // when Run did not start; safe twice
	}
	if r.src != nil {
		r.src.Close()
	}
	if r.srcDB != nil {
		r.srcDB.Close()
	}
	if r.tgt != nil {
		r.tgt.close()
	}
}

// run starts the stream and the applier and supervises them. The stream
// stops first (signal, caught up, or apply failed); closing its channel lets
// apply commit what it has and return, bounded by DrainTimeout.
func (r *runner) run(ctx context.Context) error {
	streamCtx, stopStream := context.WithCancel(ctx)
	defer stopStream()
	// apply must outlive a cancelled ctx to drain: it stops when its input closes.
	applyCtx, stopApply := context.WithCancel(context.WithoutCancel(ctx))
	defer stopApply()
	ch := make(chan *model.Txn, 4)
	streamDone, applyDone := make(chan error, 1), make(chan error, 1)
	go func() { streamDone <- r.stream.Run(streamCtx, ch) }()
	go func() { applyDone <- r.applier.Run(applyCtx, ch) }()
	statusCtx, stopStatus := context.WithCancel(ctx)
	defer stopStatus()
	go r.statusLoop(statusCtx)
	recopyReq := make(chan struct{})
	go r.watchRecopy(statusCtx, recopyReq)
	caughtUp := make(chan struct{})
	if r.o.UntilCaughtUp {
		go r.watchCaughtUp(streamCtx, caughtUp)
	}

	var streamErr, applyErr error
	streamRunning, applyRunning := true, true
	var drain <-chan time.Time
	stopping := func(why string) {
		if drain == nil {
			r.log.Info("stopping: no more reading, apply commits what it received", "why", why)
			drain = time.After(r.o.DrainTimeout)
		}
		stopStream()
	}
	ctxDone := ctx.Done()
	for streamRunning || applyRunning {
		select {
		case streamErr = <-streamDone:
			streamRunning = false
			if streamErr != nil {
				stopping("binlog stream failed")
			}
		case applyErr = <-applyDone:
			applyRunning = false
			stopping("apply ended")
		case <-ctxDone:
			ctxDone = nil
			stopping("signal")
		case <-caughtUp:
			caughtUp = nil
			stopping("caught up")
		case <-recopyReq:
			recopyReq = nil
			r.recopyPause = true
			stopping("a re-copy of tables of the stream asked for the way")
		case <-drain:
			r.log.Warn("apply did not finish within the drain timeout; stopping it (the checkpoint stays at what is committed)",
				"timeout", r.o.DrainTimeout)
			stopApply()
			drain = nil
		}
	}
	r.log.Info("replication stopped", "applied", r.applier.Position().String(), "lag_s", roundLag(r.lagSeconds()))
	r.reportPolicies()
	r.reportMoves()
	if applyErr != nil && !errors.Is(applyErr, context.Canceled) {
		return &applyFailure{err: applyErr}
	}
	if streamErr == nil && r.recopyPause && ctx.Err() == nil {
		return errRecopyPause
	}
	return streamErr
}

// writtenColumns are the columns of t the target is written (binlog.Config.WrittenGenerated):
// a MySQL target computes generated columns itself, PostgreSQL those whose expression
// translates (ddl.WritableColumns), Kafka gets every column.
func (r *runner) writtenColumns(t *schema.Table) []int {
	switch r.eng.Capabilities().Generated {
	case engines.GeneratedComputed:
		return nil
	case engines.GeneratedAll:
		all := make([]int, len(t.Columns))
		for i := range all {
			all[i] = i
		}
		return all
	}
	return ddl.WritableColumns(t)
}
