package mysql

import (
	"context"
	"fmt"

	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/source/postgres/lsnpos"
	"github.com/sluice-db/sluice/internal/target"
)

// ReadStatus reads a stream's checkpoint in a MySQL target (database
// sluice) and who replicates it now.
func (e engine) ReadStatus(ctx context.Context, stream string) (*target.StreamState, error) {
	db, err := Open(e.cfg)
	if err != nil {
		return nil, exitcode.ConfigError(err)
	}
	defer db.Close()
	if err := db.PingContext(ctx); err != nil {
		return nil, exitcode.ConfigError(fmt.Errorf("target: cannot connect to %s: %w", e.cfg.Redacted(), err))
	}
	ts := &target.StreamState{}
	if ts.Checkpoint, err = mysqlstate.Load(ctx, db, stream, anyPosition); err != nil || ts.Checkpoint == nil {
		return ts, err
	}
	if ts.Replicator, err = Replicator(ctx, db, stream); err != nil {
		return nil, err
	}
	return ts, nil
}

// anyPosition decodes a checkpoint of either direction: a MySQL binlog
// position, or the reverse stream's PostgreSQL LSN.
func anyPosition(s string) (model.Position, error) {
	if p, err := lsnpos.Decode(s); err == nil {
		return p, nil
	}
	return binlogpos.Decode(s)
}

// ListStreams names the streams with a checkpoint in the target.
func (e engine) ListStreams(ctx context.Context) ([]string, error) {
	db, err := Open(e.cfg)
	if err != nil {
		return nil, exitcode.ConfigError(err)
	}
	defer db.Close()
	return mysqlstate.Streams(ctx, db)
}

var _ target.StreamLister = engine{}
