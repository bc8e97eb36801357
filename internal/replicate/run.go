package replicate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"

	"github.com/sluice-db/sluice/internal/ddl"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlog"
	"github.com/sluice-db/sluice/internal/supervise"
	engines "github.com/sluice-db/sluice/internal/target"
	"github.com/sluice-db/sluice/internal/typemap"
)

// runner holds one Run's connections and parts.
type runner struct {
	o          Options
	log        *slog.Logger
	eng        engines.Engine  // names and capabilities (Options.Target)
	tgt        engines.Replica // the engine's connection for this run (connect)
	src        *binlog.Source
	srcDB      *sql.DB
	info       binlog.SourceInfo
	filter     schema.Filter
	naming     schema.Naming
	cat        *schema.Catalog
	mapper     *typemap.Mapper
	stream     *binlog.Stream
	tr         *ddl.Translator   // the stream's DDL translator (translator)
	translate  binlog.Translator // tr adapted to the stream
	join       *joiner           // tables joining the running stream (join.go); nil: the target takes none
	applier    *pipeline.Applier
	unregister func()
	policies   *policyWatch // values changed by a policy (policy.go)
	// recopied are the tables a re-copy copied at a position past the
	// start, with that position (recopy.go); recopyPause says this run
	// stopped to let a re-copy work.
	recopied    map[schema.TableID]model.Position
	recopyPause atomic.Bool
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
// A lost target or source starts the run again from the checkpoint
// (internal/supervise, retry.go, failover.go).
func Run(ctx context.Context, opts Options) error {
	o, err := opts.withDefaults()
	if err != nil {
		return err
	}
	// One run identity across reconnects: a run that owned the stream and
	// finds, reconnecting, that a standby took it over stops (pgsink.Config.OwnedBefore).
	o.run = pipeline.NewRunIdentity()
	return supervise.Command{Subsystem: "replicate", Stream: o.Stream, Registry: o.Registry, Card: o.BoardCard(),
		ReachableHelp: "1 while replicate applies to the target, 0 while it reconnects to a lost target (--target-retry).",
		TxnMemory:     o.MaxTxnMemory, Policy: o.loopPolicy,
	}.Loop(ctx, func(ctx context.Context, retrying bool, running func()) error {
		return runOnce(ctx, o, retrying, running)
	})
}

// runOnce connects, prepares and runs one replicator until it stops.
// retrying says the target was lost before: a target that still refuses
// connections then counts as lost, not as a configuration error.
// running is called once the target answered and the run starts applying.
func runOnce(ctx context.Context, o Options, retrying bool, running func()) error {
	r := &runner{o: o, log: o.Log, eng: o.Target, idle: make(chan struct{}, 1)}
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
	running()
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
	if ns, ok := r.tgt.(engines.NamingStore); ok {
		// The mapping routes rows and DDL: the stream's own, or a refusal.
		if err := ns.CheckNaming(ctx, o.Stream, r.naming.Options()); err != nil {
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
	if ns, ok := r.tgt.(engines.NamingStore); ok {
		// A stream from before sluice recorded its naming takes this run's.
		if err := ns.RecordNaming(ctx, o.Stream, r.naming.Options()); err != nil {
			return err
		}
	}
	r.join = newJoiner(r)
	sink, err := r.tgt.Sink(r.sinkConfig())
	if err != nil {
		return err
	}
	earlier, err := r.tgt.LoadPolicyChanges(ctx, o.Stream)
	if err != nil {
		return err
	}
	r.policies = newPolicyWatch(r.mapper.Changes(), earlier)
	pcfg := pipeline.Config{Stream: o.Stream, Workers: o.Workers, MaxInflightBytes: o.MaxTxnMemory / 2, Log: r.log}
	if !o.RowPolicy.Empty() {
		pcfg.Rows = o.RowPolicy
	}
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
		o.run.Owned.Store(true)
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
	r.translate = r.translator()
	if r.join != nil {
		r.join.at = start.pos
		if err := r.join.resume(ctx, start.tables); err != nil {
			return err
		}
	}
	// o is the options as given: connect chose one server of a multi-host
	// source (r.o.Source is that one now), and its list makes the stream
	// end on a lost server so the next run chooses again.
	failover := len(o.Source.Hosts) > 1
	if r.stream, err = binlog.New(r.binlogConfig(start, serverID, failover)); err != nil {
		return err
	}
	return r.registerMetrics()
}

// binlogConfig is the binlog reader's configuration from the stream's
// starting point: its scope (with the tables joining it), the translation
// of its schema changes and the re-copied tables' skips; failover: the
// source names several servers.
func (r *runner) binlogConfig(start *origin, serverID uint32, failover bool) binlog.Config {
	o := r.o
	skip := func(stmt string) bool {
		for _, p := range o.SkipDDL {
			if ddl.MatchSkip(p, stmt) {
				return true
			}
		}
		return false
	}
	cfg := binlog.Config{
		Source: r.o.Source, Failover: failover, Info: r.info, ServerID: serverID, Stream: o.Stream,
		Start: start.pos, Tables: start.tables, SchemaVersion: start.version,
		InScope:          func(id schema.TableID) bool { return r.filter.Match(id.Database, id.Name) || r.join.has(id) },
		Translate:        r.translate,
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
	if r.join != nil {
		cfg.Join = r.join.join
	}
	if len(r.recopied) > 0 {
		cfg.SkipRows, cfg.SchemaChangeAt = r.skipRows, r.recopyDDL
	}
	return cfg
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
	r.srcDB.SetMaxOpenConns(4) // and a session per table being added (join_copy.go)
	rep, ok := r.eng.(engines.Replicated)
	if !ok {
		return exitcode.ConfigError(fmt.Errorf("target: sluice replicate does not write a %s target", r.eng.Name()))
	}
	r.tgt, err = rep.ConnectReplica(ctx, engines.ReplicaOptions{Stream: r.o.Stream, Workers: r.o.Workers})
	return err
}

// sinkConfig is what the run's sink is built with.
func (r *runner) sinkConfig() engines.SinkConfig {
	c := engines.SinkConfig{Stream: r.o.Stream, Workers: r.o.Workers, Mapper: r.mapper, Naming: r.naming,
		SourceLogsFKActions: r.info.SQLForeignKeys, SourceUTF8MB4Collation: r.info.UTF8MB4Collation,
		SourceCharsetDefaults: r.info.CharsetDefaults, Standby: r.o.Standby, Settings: r.o.scopeSettings(), Log: r.log}
	if r.join != nil {
		c.Upsert = r.join.upsert
	}
	if r.o.run != nil {
		c.RunID, c.OwnedBefore = r.o.run.ID, r.o.run.Owned.Load()
	}
	return c
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
	if err := r.o.RowPolicy.Check(r.cat.Tables); err != nil {
		return err
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
	opts := typemap.Options{ZeroDate: r.o.ZeroDate, Nul: r.o.Nul, RawVector: r.eng.Capabilities().RawVector, SourceFlavor: r.info.Flavor}
	if sc, ok := r.tgt.(engines.ScopeChecker); ok {
		if err := sc.CheckScope(ctx, engines.Scope{Source: r.o.Source, SourceDB: r.srcDB, Flavor: r.info.Flavor, Version: r.info.Version,
			Catalog: r.cat, Include: r.o.Include, Exclude: r.o.Exclude, SchemaMap: r.o.SchemaMap, Naming: r.o.NamingOptions()}); err != nil {
			return err
		}
	}
	if opts.PostGIS, err = r.tgt.PostGIS(ctx); err != nil {
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
		r.tgt.Close()
	}
}

// run starts the stream and the applier and supervises them (supervise.Run).
func (r *runner) run(ctx context.Context) error {
	watch := []func(context.Context, func(string)){
		func(ctx context.Context, _ func(string)) { r.statusLoop(ctx) },
		func(ctx context.Context, stop func(string)) {
			req := make(chan struct{})
			go r.watchRecopy(ctx, req)
			select {
			case <-ctx.Done():
			case <-req:
				r.recopyPause.Store(true)
				stop("a re-copy of tables of the stream asked for the way")
			}
		},
	}
	if r.o.UntilCaughtUp {
		watch = append(watch, func(ctx context.Context, stop func(string)) {
			caughtUp := make(chan struct{})
			go r.watchCaughtUp(ctx, caughtUp)
			select {
			case <-ctx.Done():
			case <-caughtUp:
				stop("caught up")
			}
		})
	}
	apply := r.applier.Run
	if r.join != nil {
		apply = r.join.apply
		watch = append(watch, func(ctx context.Context, _ func(string)) { r.join.watch(ctx) })
	}
	streamErr, applyErr := supervise.Run{Source: r.stream, Apply: apply, Watch: watch,
		DrainTimeout: r.o.DrainTimeout, StreamFailed: "binlog stream failed",
		Stopping: func(why string) { r.log.Info("stopping: no more reading, apply commits what it received", "why", why) },
		DrainTimedOut: func() {
			r.log.Warn("apply did not finish within the drain timeout; stopping it (the checkpoint stays at what is committed)",
				"timeout", r.o.DrainTimeout)
		}}.Go(ctx)
	r.log.Info("replication stopped", "applied", r.applier.Position().String(), "lag_s", roundLag(r.lagSeconds()))
	r.reportPolicies()
	r.reportMoves()
	if applyErr != nil {
		return &applyFailure{err: applyErr}
	}
	if streamErr == nil && r.recopyPause.Load() && ctx.Err() == nil {
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
