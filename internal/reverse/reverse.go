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
	"log/slog"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/schema"
	mysink "github.com/sluice-db/sluice/internal/sink/mysql"
	"github.com/sluice-db/sluice/internal/source/postgres/logical"
	"github.com/sluice-db/sluice/internal/source/postgres/lsnpos"
	"github.com/sluice-db/sluice/internal/source/postgres/pgoutput"
)

// Options are the settings of one reverse run.
type Options struct {
	Source config.Postgres // the PostgreSQL database written by the application
	Target config.MySQL    // the MySQL database the tables came from
	// Schema is the PostgreSQL schema whose tables go back (default: the
	// MySQL target database's name, as the forward stream named it).
	Schema       string
	Stream       string
	Workers      int
	MaxTxnMemory int64
	// SkipBadRows is --on-error skip-and-log.
	SkipBadRows   bool
	UntilCaughtUp bool
	StatusEvery   time.Duration
	DrainTimeout  time.Duration
	// Retry is how long a lost PostgreSQL connection is retried (default
	// 10m, negative: never); --target-retry.
	Retry time.Duration
	// Registry receives the metrics (nil: none).
	Registry prometheus.Registerer
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
		o.Schema = o.Target.Database
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

// Run replicates until ctx ends (nil), --until-caught-up is reached (nil),
// or an error. A lost PostgreSQL connection (a restart, a failover) starts
// the run again from MySQL's checkpoint, exactly once, for up to Retry.
func Run(ctx context.Context, opts Options) error {
	o, err := opts.withDefaults()
	if err != nil {
		return err
	}
	var since time.Time
	for attempt := 1; ; attempt++ {
		began := time.Now()
		err := runOnce(ctx, o)
		if time.Since(began) > time.Minute {
			since, attempt = time.Time{}, 1 // it ran: a new loss, not the same one
		}
		if ctx.Err() != nil && (err == nil || errors.Is(err, context.Canceled)) {
			return nil
		}
		var le *pgoutput.LostError
		lostNow := errors.As(err, &le) || (!since.IsZero() && err != nil && pgoutput.IsConnectionLoss(err))
		if err == nil || !lostNow || o.Retry < 0 {
			return err
		}
		if since.IsZero() {
			since = time.Now()
		}
		if time.Since(since) > o.Retry {
			return fmt.Errorf("reverse: PostgreSQL unreachable for %s (--target-retry): %w", time.Since(since).Round(time.Second), err)
		}
		wait := min(time.Duration(attempt)*time.Second, 15*time.Second)
		o.Log.Warn("reverse: lost PostgreSQL; starting again from MySQL's checkpoint (exactly once)", "attempt", attempt,
			"cause", err.Error(), "next_try_in", wait.String())
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
	}
}

// runOnce connects, prepares and runs until the stream stops.
func runOnce(ctx context.Context, o Options) error {
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
			tables[t.Name] = t
		}
	}
	if len(tables) == 0 {
		return exitcode.ConfigError(fmt.Errorf("the MySQL database %s has no tables to replicate back into", o.Target.Database))
	}
	pg, err := pgx.Connect(ctx, o.Source.ConnString())
	if err != nil {
		return exitcode.ConfigError(fmt.Errorf("source: cannot connect to %s: %w", o.Source.Redacted(), err))
	}
	defer pg.Close(context.WithoutCancel(ctx))
	if err := preflight(ctx, o, pg); err != nil {
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
	return run(ctx, o, db, tables, until)
}

// preflight checks what logical decoding needs on the PostgreSQL side,
// every problem at once with its fix.
func preflight(ctx context.Context, o Options, pg *pgx.Conn) error {
	var level string
	var repl bool
	if err := pg.QueryRow(ctx, `SELECT current_setting('wal_level'),
		(SELECT rolreplication OR rolsuper FROM pg_roles WHERE rolname = current_user)`).Scan(&level, &repl); err != nil {
		return fmt.Errorf("source: %w", err)
	}
	var errs []error
	if level != "logical" {
		errs = append(errs, fmt.Errorf("source %s: wal_level is %s; the reverse stream reads logical decoding, which needs "+
			"wal_level = logical (ALTER SYSTEM SET wal_level = logical, then restart PostgreSQL)", o.Source.Redacted(), level))
	}
	if !repl {
		errs = append(errs, fmt.Errorf("source %s: the role %s has no REPLICATION attribute, which a replication connection needs: "+
			"ALTER ROLE %s REPLICATION", o.Source.Redacted(), pg.Config().User, pg.Config().User))
	}
	if err := errors.Join(errs...); err != nil {
		return exitcode.ConfigError(err)
	}
	return nil
}

// prepareStart records the stream's start when it has no checkpoint yet:
// the slot's position when it exists (armed by sluice cutover), else a new
// slot and publication created here for the tables of the schema.
func prepareStart(ctx context.Context, o Options, db *sql.DB, pg *pgx.Conn, tables map[string]*schema.Table) error {
	st, err := mysqlstate.Load(ctx, db, o.Stream, lsnpos.Decode)
	if err != nil {
		return err
	}
	if st != nil {
		return nil
	}
	slot := logical.SlotName(o.Stream)
	var flushed *string
	err = pg.QueryRow(ctx, "SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = $1", slot).Scan(&flushed)
	var start string
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		armed, err := arm(ctx, o, pg, tables)
		if err != nil {
			return err
		}
		start = armed.ConsistentLSN
		o.Log.Info("reverse: created the replication slot and publication (no slot existed for the stream)",
			"slot", armed.Slot, "publication", armed.Publication, "start", start)
	case err != nil:
		return fmt.Errorf("source: read slot %s: %w", slot, err)
	default:
		if flushed != nil {
			start = *flushed
		}
		o.Log.Info("reverse: starting at the existing slot's position", "slot", slot, "start", start)
	}
	pos, err := lsnpos.Decode(start)
	if err != nil || pos == nil {
		return fmt.Errorf("source: slot %s has no usable position (%q): %v", slot, start, err)
	}
	var list []*schema.Table
	for _, t := range tables {
		list = append(list, t)
	}
	if err := mysink.EnsureState(ctx, db, ""); err != nil {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("target: begin: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	if err := mysqlstate.SaveSchema(ctx, tx, o.Stream, 1, pos, "", list, nil); err != nil {
		return err
	}
	if err := mysqlstate.Save(ctx, tx, o.Stream, checkpoint.State{Position: pos, SchemaVersion: 1}); err != nil {
		return err
	}
	return tx.Commit()
}

// arm creates the slot and publication for the tables of the schema that
// the MySQL database has. Every table gets REPLICA IDENTITY FULL (Table.HasKey
// false): the whole old row lets an unchanged TOASTed value be written back
// exactly and orders changes of unique keys besides the primary key.
func arm(ctx context.Context, o Options, pg *pgx.Conn, tables map[string]*schema.Table) (logical.Armed, error) {
	rows, err := pg.Query(ctx, `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY 1`, o.Schema)
	if err != nil {
		return logical.Armed{}, fmt.Errorf("source: list the tables of schema %s: %w", o.Schema, err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return logical.Armed{}, fmt.Errorf("source: list the tables of schema %s: %w", o.Schema, err)
	}
	var ts []logical.Table
	for _, n := range names {
		if tables[n] != nil {
			ts = append(ts, logical.Table{Schema: o.Schema, Name: n})
		} else {
			o.Log.Warn("reverse: PostgreSQL table not in the MySQL database; not carried back", "table", o.Schema+"."+n)
		}
	}
	if len(ts) == 0 {
		return logical.Armed{}, exitcode.ConfigError(fmt.Errorf("schema %s on PostgreSQL has no table that the MySQL database %s has", o.Schema, o.Target.Database))
	}
	return logical.Arm(ctx, pg, o.Stream, ts)
}

// run streams and applies until stopped.
func run(ctx context.Context, o Options, db *sql.DB, tables map[string]*schema.Table, until pglogrepl.LSN) error {
	sink, err := mysink.New(mysink.Config{Stream: o.Stream, Decode: lsnpos.Decode, SourceDB: o.Target.Database,
		TargetDB: o.Target.Database, AppliedFirst: true, Log: o.Log}, db)
	if err != nil {
		return err
	}
	applier, err := pipeline.New(pipeline.Config{Stream: o.Stream, Workers: o.Workers,
		MaxInflightBytes: o.MaxTxnMemory / 2, Log: o.Log}, sink)
	if err != nil {
		return err
	}
	defer applier.Close()
	st, err := applier.Open(ctx)
	if err != nil {
		return err
	}
	var start pglogrepl.LSN
	if st != nil {
		if start, err = lsnpos.From(st.Position); err != nil {
			return exitcode.ConfigError(fmt.Errorf("stream %s: %w", o.Stream, err))
		}
	}
	stream, err := pgoutput.New(pgoutput.Config{ConnString: o.Source.ConnString(),
		Slot: logical.SlotName(o.Stream), Publication: logical.PublicationName(o.Stream),
		Start: start, Schema: o.Schema, Tables: tables, FragmentBytes: o.MaxTxnMemory / 16,
		Acked: applier.SavedPosition, SkipBadRows: o.SkipBadRows, IdleAfter: o.IdleAfter, Log: o.Log})
	if err != nil {
		return err
	}
	unregister, err := registerMetrics(o.Registry, o.Stream, applier, stream)
	if err != nil {
		return err
	}
	defer unregister()
	return supervise(ctx, o, applier, stream, until)
}

// supervise runs the stream and the applier: the stream stops first
// (signal, caught up, or a failure), then apply commits what it received.
func supervise(ctx context.Context, o Options, applier *pipeline.Applier, stream *pgoutput.Stream, until pglogrepl.LSN) error {
	streamCtx, stopStream := context.WithCancel(ctx)
	defer stopStream()
	applyCtx, stopApply := context.WithCancel(context.WithoutCancel(ctx))
	defer stopApply()
	ch := make(chan *model.Txn, 4)
	streamDone, applyDone := make(chan error, 1), make(chan error, 1)
	go func() {
		err := stream.Run(streamCtx, ch)
		close(ch)
		streamDone <- err
	}()
	go func() { applyDone <- applier.Run(applyCtx, ch) }()
	status := time.NewTicker(o.StatusEvery)
	defer status.Stop()
	poll := time.NewTicker(200 * time.Millisecond)
	defer poll.Stop()
	var streamErr, applyErr error
	streamRunning, applyRunning := true, true
	var drain <-chan time.Time
	stopping := func(why string) {
		if drain == nil {
			o.Log.Info("reverse: stopping; apply commits what it received", "why", why)
			drain = time.After(o.DrainTimeout)
		}
		stopStream()
	}
	ctxDone := ctx.Done()
	for streamRunning || applyRunning {
		select {
		case streamErr = <-streamDone:
			streamRunning = false
			if streamErr != nil {
				stopping("PostgreSQL stream failed")
			} else {
				stopping("stream ended")
			}
		case applyErr = <-applyDone:
			applyRunning = false
			stopping("apply ended")
		case <-ctxDone:
			ctxDone = nil
			stopping("signal")
		case <-poll.C:
			if o.UntilCaughtUp {
				if at, _ := lsnpos.From(applier.SavedPosition()); at > until {
					stopping("caught up")
				}
			}
		case <-status.C:
			o.Log.Info("reverse: status", "applied", model.PositionString(applier.Position()),
				"checkpoint", model.PositionString(applier.SavedPosition()), "received", stream.Received().String(),
				"queue", applier.QueueDepth(), "skipped_sluice_origin", stream.Skipped())
		case <-drain:
			o.Log.Warn("reverse: apply did not finish within the drain timeout; stopping it (the checkpoint stays at what is committed)")
			stopApply()
			drain = nil
		}
	}
	o.Log.Info("reverse: stopped", "applied", model.PositionString(applier.Position()))
	if applyErr != nil && !errors.Is(applyErr, context.Canceled) {
		return applyErr
	}
	return streamErr
}
