package postgres

import (
	"context"
	"fmt"
	"sort"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/target"
)

// ReadStatus reads a stream's checkpoint in a PostgreSQL target, who
// replicates it now, its policy counts, naming and column order.
func (e engine) ReadStatus(ctx context.Context, stream string) (*target.StreamState, error) {
	conn, err := pgx.Connect(ctx, e.cfg.ConnString())
	if err != nil {
		return nil, exitcode.ConfigError(fmt.Errorf("target: cannot connect to %s: %w", e.cfg.Redacted(), err))
	}
	defer conn.Close(context.Background())
	ts := &target.StreamState{}
	if ts.Checkpoint, err = checkpoint.Load(ctx, conn, stream, binlogpos.Decode); err != nil || ts.Checkpoint == nil {
		return ts, err
	}
	holders, err := checkpoint.StreamHolders(ctx, conn, stream)
	if err != nil {
		return nil, err
	}
	ts.Replicator = checkpoint.Describe(holders)
	if ts.SnapshotPolicy, err = checkpoint.LoadSnapshotPolicyChanges(ctx, conn, stream); err != nil {
		return nil, err
	}
	if ts.ReplicatePolicy, err = checkpoint.LoadPolicyChanges(ctx, conn, stream); err != nil {
		return nil, err
	}
	if ts.Naming, err = checkpoint.LoadNaming(ctx, conn, stream); err != nil {
		return nil, err
	}
	tables, err := checkpoint.LoadSchema(ctx, conn, stream, ts.Checkpoint.SchemaVersion)
	if err != nil {
		return nil, err
	}
	for _, t := range tables {
		if d := t.TargetOrderText(); d != "" {
			ts.ColumnOrder = append(ts.ColumnOrder, t.TableID.String()+": "+d)
		}
	}
	sort.Strings(ts.ColumnOrder)
	return ts, nil
}

// ListStreams names the streams with a checkpoint in the target.
func (e engine) ListStreams(ctx context.Context) ([]string, error) {
	conn, err := pgx.Connect(ctx, e.cfg.ConnString())
	if err != nil {
		return nil, fmt.Errorf("target: cannot connect to %s: %w", e.cfg.Redacted(), err)
	}
	defer conn.Close(context.Background())
	return checkpoint.Streams(ctx, conn)
}

var _ target.StreamLister = engine{}
