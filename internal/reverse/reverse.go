// Package reverse runs `sluice replicate --source postgres://… --target
// mysql://…`: the way back after a cut-over. It reads the stream's pgoutput
// slot (internal/source/postgres/pgoutput), hands the transactions to the
// same engine-neutral pipeline as the forward stream, and writes them with
// the MySQL sink into the MySQL database the tables came from, exactly once
// (the state lives in the MySQL server's database sluice). docs/reverse.md.
package reverse

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"github.com/sluice-db/sluice/internal/board"
	"log/slog"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/schema"
	mysink "github.com/sluice-db/sluice/internal/sink/mysql"
	"github.com/sluice-db/sluice/internal/source/postgres/logical"
	"github.com/sluice-db/sluice/internal/source/postgres/lsnpos"
	"github.com/sluice-db/sluice/internal/source/postgres/pgoutput"
	"github.com/sluice-db/sluice/internal/supervise"
)

// Options are the settings of one reverse run.
type Options struct {
	Source config.Postgres // the PostgreSQL database written by the application
	Target config.MySQL    // the MySQL database the tables came from
	// Schema is the PostgreSQL schema whose tables go back (default: the
	// MySQL target database's name under Naming, as the forward stream
	// named it).
	Schema string
	// Naming is the forward stream's mapping (--schema-map, --identifiers,
	// --rename), read backwards: the PostgreSQL table and column of each
	// MySQL table and column.
	Naming schema.Naming
	Stream string
	// StartAtCurrentLSN is --start-at-current-lsn: a stream with neither a
	// checkpoint nor a slot starts at PostgreSQL's current position (a new
	// slot), leaving out what was committed before; without it such a start
	// is refused.
	StartAtCurrentLSN bool
	Workers           int
	MaxTxnMemory      int64
	// SkipBadRows is --on-error skip-and-log.
	SkipBadRows   bool
	UntilCaughtUp bool
	// Standby waits while another replicator of the stream runs and takes
	// over when it dies or stops answering (standby.go).
	Standby      bool
	StatusEvery  time.Duration
	DrainTimeout time.Duration
	// Retry is how long a lost PostgreSQL connection is retried (default
	// 10m, negative: never); --target-retry.
	Retry time.Duration
	// Registry receives the metrics (nil: none).
	Registry prometheus.Registerer
	// Board receives the stream's status for the status page (nil: none).
	Board *board.Board
	// IdleAfter is how long the stream is quiet before a marker moves an
	// idle slot forward (default 10s; pgoutput.Config.IdleAfter).
	IdleAfter time.Duration
	Log       *slog.Logger
}

func (o Options) withDefaults() (Options, error) {
	if o.Stream == "" {
		o.Stream = checkpoint.DefaultStream
	}
	if o.Schema == "" {
		o.Schema = o.Naming.Schema(o.Target.Database)
	}
	if o.MaxTxnMemory == 0 {
		o.MaxTxnMemory = 256 << 20
	}
	if o.StatusEvery <= 0 {
		o.StatusEvery = 5 * time.Second
	}
	if o.DrainTimeout <= 0 {
		o.DrainTimeout = 10 * time.Second
	}
	if o.Retry == 0 {
		o.Retry = 10 * time.Minute
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Target.Database == "" {
		return o, exitcode.ConfigError(errors.New("the MySQL --target URL names no database: add the database the tables came from, e.g. mysql://user:pw@host:3306/shop"))
	}
	if err := mysqlstate.CheckStream(o.Stream); err != nil {
		return o, exitcode.ConfigError(err)
	}
	return o, nil
}

// queueTxns bounds each apply worker's queue of PostgreSQL transactions
// (the pipeline's default is 512). A worker's group takes what is queued,
// and an application's transactions are small (sysbench's oltp_insert: one
// row), so with 512 a group that falls behind holds ~512 rows, a tenth of
// the pipeline's group bound; the per-group and per-statement work on
// MySQL (commit, applied record, one multi-row INSERT per table) then
// weighs on every row. With 2048 the groups of a target that fell behind
// grow to ~2000 rows: measured under the bench's oltp_insert catch-up of
// 30 s backlogs, MariaDB's CPU per transaction fell from 11.7–12.2 to
// 9.6–10.3 µs (docs/benchmarks.md "## reverse"). Memory stays bounded by
// MaxInflightBytes; a target that keeps up sees no difference.
const queueTxns = 2048

// Run replicates until ctx ends (nil), --until-caught-up is reached (nil),
// or an error. A lost PostgreSQL connection (a restart, a failover) starts
// the run again from MySQL's checkpoint, exactly once, for up to Retry
// (internal/supervise: the forward stream's loop).
func Run(ctx context.Context, opts Options) error {
	o, err := opts.withDefaults()
	if err != nil {
		return err
	}
	// One identity across the reconnects: a reconnect of this run is not
	// fenced out by its own owner record, a run taken over stops.
	ident := pipeline.NewRunIdentity()
	return supervise.Command{Subsystem: "reverse", Stream: o.Stream, Registry: o.Registry, Card: o.card(),
		ReachableHelp: "1 while the way back applies, 0 while it reconnects to a lost PostgreSQL (--target-retry).",
		TxnMemory:     o.MaxTxnMemory, Policy: o.loopPolicy,
	}.Loop(ctx, func(ctx context.Context, _ bool, running func()) error {
		return takenOver(ctx, o, ident, runOnce(ctx, o, ident, running))
	})
}

// loopPolicy is the way back's side of the one replication loop: a lost
// PostgreSQL is retried for --target-retry (while retrying, any connection
// loss counts), a takeover by a standby ends the run (exit 2).
func (o Options) loopPolicy(reach *supervise.Reachable) supervise.Policy {
	lost := &supervise.Retry{Limit: o.Retry, Target: true,
		Warn: func(t supervise.Try, err error) {
			o.Log.Warn("reverse: lost PostgreSQL; starting again from MySQL's checkpoint (exactly once)", "attempt", t.Attempt,
				"cause", err.Error(), "next_try_in", t.Wait.String())
		},
		GiveUp: func(t supervise.Try, err error) error {
			if o.Retry < 0 {
				return err
			}
			return fmt.Errorf("reverse: PostgreSQL unreachable for %s (--target-retry): %w", t.Lost.Round(time.Second), err)
		}}
	return supervise.Policy{Reachable: reach, Classify: func(err error, retrying bool) (supervise.Class, *supervise.Retry) {
		var le *pgoutput.LostError
		switch {
		case errors.Is(err, pipeline.ErrTakenOver):
			return supervise.TakenOver, nil
		case errors.As(err, &le), retrying && pgoutput.IsConnectionLoss(err):
			return supervise.Lost, lost
		}
		return supervise.Stop, nil
	}}
}

// runOnce connects, prepares and runs until the stream stops; running is
// called once it got going (the stream opened: supervise.Attempt).
func runOnce(ctx context.Context, o Options, ident *pipeline.RunIdentity, running func()) error {
	db, err := mysink.Open(o.Target)
	if err != nil {
		return exitcode.ConfigError(err)
	}
	defer db.Close()
	if err := db.PingContext(ctx); err != nil {
		return exitcode.ConfigError(fmt.Errorf("target: cannot connect to %s: %w", o.Target.Redacted(), err))
	}
	filter, err := schema.NewFilter(nil, nil, o.Target.Database)
	if err != nil {
		return exitcode.ConfigError(err)
	}
	cat, err := schema.Load(ctx, db, filter)
	if err != nil {
		return fmt.Errorf("target: %w", err)
	}
	tables := map[string]*schema.Table{}
	for _, t := range cat.Tables {
		if t.Database == o.Target.Database {
			tables[o.Naming.Table(t.TableID)] = t
		}
	}
	if len(tables) == 0 {
		return exitcode.ConfigError(fmt.Errorf("the MySQL database %s has no tables to replicate back into", o.Target.Database))
	}
	if err := refuseTriggers(ctx, db, o.Target.Database); err != nil {
		return err
	}
	pg, err := pgx.Connect(ctx, o.Source.ConnString())
	if err != nil {
		return exitcode.ConfigError(fmt.Errorf("source: cannot connect to %s: %w", o.Source.Redacted(), err))
	}
	defer pg.Close(context.WithoutCancel(ctx))
	if err := preflight(ctx, o, pg); err != nil {
		return err
	}
	if err := checkForwardNaming(ctx, o, pg); err != nil {
		return err
	}
	if err := prepareStart(ctx, o, db, pg, tables); err != nil {
		return err
	}
	// --until-caught-up: everything PostgreSQL had committed when the run
	// started, which a marker transaction closes (pgoutput.Mark): caught up
	// once the checkpoint is past it.
	var until pglogrepl.LSN
	if o.UntilCaughtUp {
		if until, err = pgoutput.Mark(ctx, pg, "until-caught-up"); err != nil {
			return err
		}
	}
	_ = pg.Close(ctx)
	return explainDuplicate(run(ctx, o, ident, db, tables, until, running))
}

// run streams and applies until stopped.
func run(ctx context.Context, o Options, ident *pipeline.RunIdentity, db *sql.DB, tables map[string]*schema.Table, until pglogrepl.LSN,
	running func()) error {
	// PostgreSQL's foreign key actions are row changes of its own (RI
	// triggers) that logical decoding carries like any other: MySQL must
	// not run its actions on top (a cascaded delete would arrive for a row
	// MySQL's own cascade had already removed), so the sink writes with
	// foreign_key_checks off, as for a MySQL 9 source. An UPDATE writes
	// only the columns the application changed: MySQL keeps what PostgreSQL
	// holds differently (NUL bytes stripped, zero dates, MariaDB JSON text).
	sink, err := mysink.New(mysink.Config{Stream: o.Stream, Decode: lsnpos.Decode, SourceDB: o.Target.Database,
		TargetDB: o.Target.Database, AppliedFirst: true, SourceLogsFKActions: true,
		UpdateChangedColumns: true, Standby: o.Standby, RunID: ident.ID, OwnedBefore: ident.Owned.Load(),
		Settings: o.scopeSettings(), Log: o.Log}, db)
	if err != nil {
		return err
	}
	applier, err := pipeline.New(pipeline.Config{Stream: o.Stream, Workers: o.Workers,
		MaxInflightBytes: o.MaxTxnMemory / 2, QueueTxns: queueTxns, Log: o.Log}, sink)
	if err != nil {
		return err
	}
	defer applier.Close()
	// A standby waits here for its turn (the MySQL fence), before the
	// stream opens the slot.
	st, err := applier.Open(ctx)
	if err != nil {
		return err
	}
	ident.Owned.Store(true)
	var start pglogrepl.LSN
	if st != nil {
		if start, err = lsnpos.From(st.Position); err != nil {
			return exitcode.ConfigError(fmt.Errorf("stream %s: %w", o.Stream, err))
		}
	}
	stream, err := pgoutput.New(pgoutput.Config{ConnString: o.Source.ConnString(),
		Slot: logical.SlotName(o.Stream), Publication: logical.PublicationName(o.Stream),
		Start: start, Schema: o.Schema, Tables: tables, Naming: o.Naming, FragmentBytes: o.MaxTxnMemory / 16,
		Acked: applier.SavedPosition, SkipBadRows: o.SkipBadRows, IdleAfter: o.IdleAfter, Log: o.Log})
	if err != nil {
		return err
	}
	unregister, err := registerMetrics(o.Registry, o.Stream, applier, stream)
	if err != nil {
		return err
	}
	defer unregister()
	defer publish(o, applier, stream)()
	running()
	return superviseRun(ctx, o, applier, stream, until)
}
