// Package postgres is the PostgreSQL (and openGauss) sink: it converts the
// source's values into PostgreSQL values (internal/typemap), writes them with
// pipelined multi-row statements and binary COPY, and keeps the stream's
// state (checkpoint, applied records, schema history: internal/checkpoint)
// in the same PostgreSQL transactions as the rows. The snapshot's writer
// (bulk*.go, the engine's bulkrun.Engine facet: tables, binary COPY of the
// chunks with their done records, indexes after the data, run state in
// sluice.snapshot_*) and the per-table apply plans live here too.
package postgres

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/ddl"
	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/typemap"
)

// Config configures the PostgreSQL sink. Zero values take the documented
// defaults; Mapper, Decode and Naming are required.
type Config struct {
	// Stream names the replication stream whose state is used.
	Stream string
	// Workers is the pipeline's worker count, to check the pool's size.
	Workers int
	// Mapper converts the source's values into PostgreSQL values.
	Mapper *typemap.Mapper
	// Decode reads the source's positions back from the state tables.
	Decode model.PositionDecoder
	// Naming maps source databases to target schemas.
	Naming schema.Naming
	// Upsert is the tables applied as upserts (upsert.go); nil: none.
	Upsert *pipeline.UpsertTables
	// CopyRows is the shortest run of inserts into one table sent with COPY
	// instead of multi-row INSERT (default 2000; 0 keeps the default, <0
	// disables COPY).
	CopyRows int
	// SyncCommit keeps synchronous_commit on for the apply transactions.
	// Off (the default) is safe: see docs/replication.md.
	SyncCommit bool
	// FenceTimeout bounds the wait at start for sessions of an earlier run
	// of the stream to end (default 60s); see session.go.
	FenceTimeout time.Duration
	// Standby makes Open wait while another replicator of the stream is
	// alive, and take over when it dies or stops answering for
	// StandbyLease (default 5s): standby.go.
	Standby      bool
	StandbyLease time.Duration
	// RunID names the run in sluice.stream_owner (default: pipeline.NewRunID);
	// OwnedBefore says this run owned the stream before (it reconnects):
	// if another run owns it now, a standby took over and Open stops with
	// exit 2 instead of competing for it.
	RunID       string
	OwnedBefore bool
	// Settings are what decides what the run writes ("name=value" lines,
	// recorded with the owner): a standby whose settings differ from the
	// owner's is refused (exit 2) before it waits.
	Settings []string
	// Writable returns the indexes of the columns sluice writes in the
	// target (generated columns of the target left out). Default:
	// ddl.WritableColumns, the rule the CREATE TABLE was made with.
	Writable func(t *schema.Table) []int
	// SourceLogsFKActions: the source logs the rows its foreign key actions
	// change (MySQL 9), so the sink performs none (cascade.go).
	SourceLogsFKActions bool
	Log                 *slog.Logger
}

func (c Config) withDefaults() Config {
	if c.Stream == "" {
		c.Stream = checkpoint.DefaultStream
	}
	if c.Workers <= 0 {
		c.Workers = pipeline.DefaultWorkers()
	}
	if c.FenceTimeout <= 0 {
		c.FenceTimeout = 60 * time.Second
	}
	if c.RunID == "" {
		c.RunID = pipeline.NewRunID()
	}
	if c.StandbyLease <= 0 {
		c.StandbyLease = 5 * time.Second
	}
	if c.CopyRows == 0 {
		c.CopyRows = 2000
	}
	if c.Writable == nil {
		n := c.Naming
		c.Writable = func(t *schema.Table) []int { return ddl.WritableColumnsIn(t, n) }
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	return c
}

// Sink is the pipeline's PostgreSQL target (pipeline.Sink).
type Sink struct {
	cfg  Config
	pool *pgxpool.Pool
	// leader is the fenced session held from Open to Close (see fence); the
	// checkpoints are written through it.
	leader *pgxpool.Conn
	// seqs are the tables whose identity sequences must follow replicated
	// rows (sequences.go).
	seqs seqTracker
	// runs is where the sink counts itself while open (session.go).
	runs *openRuns
	// origins mark the apply's transactions after a cut-over (origin.go).
	origins origins
	// actions are the target's foreign key actions the sink performs
	// (cascade.go), read by Cascades at start and after each DDL.
	actions atomic.Pointer[fkActions]
}

var _ pipeline.Sink = (*Sink)(nil)

// New returns a sink writing through pool, which must allow
// pipeline.PoolConns(cfg.Workers) connections.
func New(cfg Config, pool *pgxpool.Pool) (*Sink, error) {
	cfg = cfg.withDefaults()
	if cfg.Mapper == nil || cfg.Decode == nil {
		return nil, fmt.Errorf("apply: the PostgreSQL sink needs a type mapper and a position decoder")
	}
	if need := pipeline.PoolConns(cfg.Workers); int(pool.Config().MaxConns) < need {
		return nil, fmt.Errorf("apply: the PostgreSQL pool allows %d connections, %d workers need %d (set pool_max_conns)",
			pool.Config().MaxConns, cfg.Workers, need)
	}
	return &Sink{cfg: cfg, pool: pool, runs: processRuns}, nil
}

// Open fences earlier runs (session.go) and loads the stream's state.
func (a *Sink) Open(ctx context.Context) (*checkpoint.State, []checkpoint.AppliedRow, error) {
	leader, err := a.fence(ctx)
	if err != nil {
		return nil, nil, err
	}
	st, rows, err := a.load(ctx, leader)
	if err == nil {
		err = a.decideOrigins(ctx, leader)
	}
	if err != nil {
		a.release(leader)
		return nil, nil, err
	}
	a.leader = leader
	a.runs.add(a.runKey(), 1)
	return st, rows, nil
}

func (a *Sink) load(ctx context.Context, conn *pgxpool.Conn) (*checkpoint.State, []checkpoint.AppliedRow, error) {
	if err := checkpoint.Ensure(ctx, conn); err != nil {
		return nil, nil, err
	}
	if err := checkpoint.EnsureApplied(ctx, conn); err != nil {
		return nil, nil, err
	}
	st, err := checkpoint.Load(ctx, conn, a.cfg.Stream, a.cfg.Decode)
	if err != nil {
		return nil, nil, err
	}
	rows, err := checkpoint.LoadApplied(ctx, conn, a.cfg.Stream, a.cfg.Decode)
	if err != nil {
		return nil, nil, err
	}
	return st, rows, nil
}

// Close releases the fenced session.
func (a *Sink) Close() {
	if a.leader != nil {
		a.runs.add(a.runKey(), -1)
		a.release(a.leader)
		a.leader = nil
	}
	a.dropOrigins()
}

// SaveCheckpoint writes the checkpoint row and deletes the covered applied
// rows in one transaction on the fenced session.
func (a *Sink) SaveCheckpoint(ctx context.Context, st checkpoint.State, covered []model.Position, durable bool) error {
	return pgx.BeginFunc(ctx, a.leader, func(tx pgx.Tx) error {
		if durable {
			if _, err := tx.Exec(ctx, `SET LOCAL synchronous_commit = on`); err != nil {
				return err
			}
		}
		if err := checkpoint.Save(ctx, tx, a.cfg.Stream, st); err != nil {
			return err
		}
		return checkpoint.DeleteAppliedRows(ctx, tx, a.cfg.Stream, covered)
	})
}

// DeleteApplied deletes applied rows of another stream history.
func (a *Sink) DeleteApplied(ctx context.Context, lasts []model.Position) error {
	return checkpoint.DeleteAppliedRows(ctx, a.leader, a.cfg.Stream, lasts)
}

// Sync moves identity sequences past the replicated rows.
func (a *Sink) Sync(ctx context.Context, final bool) error {
	return a.syncSequences(ctx, a.leader, final)
}

// TargetName names a target table as Cascades does.
func (a *Sink) TargetName(id schema.TableID) string {
	return a.cfg.Naming.Schema(id.Database) + "\x00" + a.cfg.Naming.Table(id)
}

// Cascades reads every foreign key with an action from the target's
// catalog: the catalog is what PostgreSQL will actually do. The sink keeps
// them to perform them itself (cascade.go) unless the source logs them.
func (a *Sink) Cascades(ctx context.Context) (*pipeline.Cascades, error) {
	acts, edges, err := readActions(ctx, a.pool)
	if err != nil {
		return nil, err
	}
	if a.cfg.SourceLogsFKActions {
		acts = nil
	}
	a.actions.Store(&acts)
	return pipeline.NewCascades(edges), nil
}

// Session opens a prepared session (session.go) for one worker.
func (a *Sink) Session(ctx context.Context) (pipeline.Session, error) {
	conn, err := a.acquire(ctx)
	if err != nil {
		return nil, err
	}
	return &session{a: a, conn: conn, plans: newPlanCache(a.cfg.Naming, a.cfg.Mapper, a.cfg.Writable)}, nil
}

// cascader returns what performs the foreign key actions on conn, or nil
// when there are none to perform.
func (a *Sink) cascader(conn *pgxpool.Conn) *cascader {
	acts := a.actions.Load()
	if acts == nil || len(*acts) == 0 {
		return nil
	}
	return &cascader{conn: conn.Conn(), actions: *acts}
}
