package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/target"
	"github.com/sluice-db/sluice/internal/typemap"
)

// replica is a PostgreSQL target of one replicate run (target.Replica):
// the stream's state in its schema sluice. It is also the stream's
// NamingStore and Recopier.
type replica struct{ pool *pgxpool.Pool }

// The facets replicate asserts on a PostgreSQL run's target.
var (
	_ target.NamingStore = (*replica)(nil)
	_ target.Recopier    = (*replica)(nil)
)

// ConnectReplica opens the run's pool: the apply workers' connections
// plus two for the state (target.Replicated).
func (e engine) ConnectReplica(ctx context.Context, o target.ReplicaOptions) (target.Replica, error) {
	pool, err := Connect(ctx, e.cfg.ConnString(), pipeline.PoolConns(o.Workers)+2)
	if err != nil {
		return nil, exitcode.ConfigError(fmt.Errorf("target: cannot connect to %s: %w", e.cfg.Redacted(), err))
	}
	return &replica{pool: pool}, nil
}

func (t *replica) PostGIS(ctx context.Context) (bool, error) {
	return HasExtension(ctx, t.pool, "postgis")
}

func (t *replica) LoadState(ctx context.Context, stream string) (*pipeline.State, error) {
	return checkpoint.Load(ctx, t.pool, stream, binlogpos.Decode)
}

func (t *replica) LoadSchema(ctx context.Context, stream string, version int64) (map[schema.TableID]*schema.Table, error) {
	return checkpoint.LoadSchema(ctx, t.pool, stream, version)
}

func (t *replica) RecordStart(ctx context.Context, stream string, pos model.Position, tables []*schema.Table) error {
	if err := checkpoint.Ensure(ctx, t.pool); err != nil {
		return err
	}
	return pgx.BeginFunc(ctx, t.pool, func(tx pgx.Tx) error {
		if err := checkpoint.SaveSchema(ctx, tx, stream, 1, pos, "", tables, nil); err != nil {
			return err
		}
		return checkpoint.Save(ctx, tx, stream, checkpoint.State{Position: pos, SchemaVersion: 1})
	})
}

func (t *replica) Sink(c target.SinkConfig) (pipeline.Sink, error) {
	return New(Config{Stream: c.Stream, Workers: c.Workers, Mapper: c.Mapper, Decode: binlogpos.Decode, Naming: c.Naming, Upsert: c.Upsert,
		SourceLogsFKActions: c.SourceLogsFKActions, Standby: c.Standby, Settings: c.Settings, RunID: c.RunID,
		OwnedBefore: c.OwnedBefore, Log: c.Log}, t.pool)
}

func (t *replica) LoadPolicyChanges(ctx context.Context, stream string) ([]typemap.ChangeCount, error) {
	return checkpoint.LoadPolicyChanges(ctx, t.pool, stream)
}

func (t *replica) SavePolicyChanges(ctx context.Context, stream string, counts []typemap.ChangeCount) error {
	return checkpoint.SavePolicyChanges(ctx, t.pool, stream, counts)
}

func (t *replica) CheckNaming(ctx context.Context, stream string, o schema.NamingOptions) error {
	return checkpoint.CheckNaming(ctx, t.pool, stream, o, false)
}

func (t *replica) RecordNaming(ctx context.Context, stream string, o schema.NamingOptions) error {
	return checkpoint.RecordNaming(ctx, t.pool, stream, o)
}

func (t *replica) RecopyRequested(ctx context.Context, stream string) (requested, alive bool, err error) {
	return checkpoint.RecopyRequested(ctx, t.pool, stream)
}

func (t *replica) DropRecopyRequests(ctx context.Context, stream string) error {
	return checkpoint.DropRecopyRequests(ctx, t.pool, stream)
}

func (t *replica) LoadRecopied(ctx context.Context, stream string) (map[schema.TableID]model.Position, error) {
	return checkpoint.LoadRecopied(ctx, t.pool, stream, binlogpos.Decode)
}

func (t *replica) ForgetRecopied(ctx context.Context, stream string, ids []schema.TableID) error {
	return checkpoint.ForgetRecopied(ctx, t.pool, stream, ids)
}

func (t *replica) Close() { t.pool.Close() }
