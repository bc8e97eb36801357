package mysql

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/target"
	"github.com/sluice-db/sluice/internal/typemap"
)

// replica is a MySQL/MariaDB target database of one replicate run
// (target.Replica): state in the target server's database sluice. It is
// also a target.ScopeChecker: it receives one source database.
type replica struct {
	db       *sql.DB
	e        engine
	sourceDB string // set by CheckScope, once the scope is known
}

// The facet replicate asserts on a MySQL run's target.
var _ target.ScopeChecker = (*replica)(nil)

// ConnectReplica opens the target database (target.Replicated).
func (e engine) ConnectReplica(ctx context.Context, o target.ReplicaOptions) (target.Replica, error) {
	if err := mysqlstate.CheckStream(o.Stream); err != nil {
		return nil, exitcode.ConfigError(err)
	}
	db, err := Open(e.cfg)
	if err != nil {
		return nil, exitcode.ConfigError(err)
	}
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close()
		return nil, exitcode.ConfigError(fmt.Errorf("target: cannot connect to %s: %w", e.cfg.Redacted(), err))
	}
	return &replica{db: db, e: e}, nil
}

func (t *replica) PostGIS(context.Context) (bool, error) { return false, nil }

func (t *replica) LoadPolicyChanges(context.Context, string) ([]typemap.ChangeCount, error) {
	return nil, nil
}

func (t *replica) SavePolicyChanges(context.Context, string, []typemap.ChangeCount) error {
	return nil
}

func (t *replica) LoadState(ctx context.Context, stream string) (*pipeline.State, error) {
	return mysqlstate.Load(ctx, t.db, stream, binlogpos.Decode)
}

func (t *replica) LoadSchema(ctx context.Context, stream string, version int64) (map[schema.TableID]*schema.Table, error) {
	return mysqlstate.LoadSchema(ctx, t.db, stream, version)
}

func (t *replica) RecordStart(ctx context.Context, stream string, pos model.Position, tables []*schema.Table) error {
	if err := EnsureState(ctx, t.db, t.e.storage); err != nil {
		return err
	}
	if err := mysqlstate.RefuseOtherWriters(ctx, t.db, stream, t.e.cfg.Database, schema.TableNames(tables)); err != nil {
		return err
	}
	tx, err := t.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("target: begin: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	if err := mysqlstate.SaveSchema(ctx, tx, stream, 1, pos, "", tables, nil); err != nil {
		return err
	}
	if err := mysqlstate.Save(ctx, tx, stream, checkpoint.State{Position: pos, SchemaVersion: 1}); err != nil {
		return err
	}
	if err := mysqlstate.SaveTarget(ctx, tx, stream, t.e.cfg.Database); err != nil {
		return err
	}
	return tx.Commit()
}

func (t *replica) Sink(c target.SinkConfig) (pipeline.Sink, error) {
	return New(Config{Stream: c.Stream, Upsert: c.Upsert, Decode: binlogpos.Decode, SourceDB: t.sourceDB,
		TargetDB: t.e.cfg.Database, Engine: t.e.storage, SourceLogsFKActions: c.SourceLogsFKActions,
		SourceUTF8MB4Collation: c.SourceUTF8MB4Collation, SourceCharsetDefaults: c.SourceCharsetDefaults,
		Standby: c.Standby, Settings: c.Settings, RunID: c.RunID, OwnedBefore: c.OwnedBefore, Log: c.Log}, t.db)
}

func (t *replica) Close() { _ = t.db.Close() }
