package binlog

import (
	"context"
	"time"

	"github.com/sluice-db/sluice/internal/model"
)

// Joining is tables brought into the stream's scope at a transaction
// boundary (Config.Join): the statement that creates them as the source
// has them now (SHOW CREATE TABLE) and its translation, installed like a
// CREATE TABLE read from the binlog at that position.
type Joining struct {
	DDL    *model.DDL // Database, Statement and At; the rest is filled here
	Result *DDLResult
}

// join asks Config.Join at a boundary and installs what it returns: a new
// schema-history version with the tables and a DDL Txn ending at the
// boundary, so the target creates them (the engine's DDL path, a barrier)
// before any of their row events, which are decoded from the next
// transaction on (the caller's InScope says yes for them by then; the
// binlog table id cache is dropped with the schema change).
func (s *Stream) join(ctx context.Context) error {
	if s.cfg.Join == nil || s.txn != nil || s.resume != nil || s.boundary.Compare(s.cfg.Start) <= 0 {
		// Not at the start position: apply skips what ends there as
		// covered by the checkpoint it started from, so the table joins at
		// the first boundary the stream read past it.
		return nil
	}
	j, err := s.cfg.Join(ctx, s.tables.snapshot())
	if err != nil || j == nil {
		return err
	}
	version := s.tables.version + 1
	d := j.DDL
	d.PG, d.Version, d.Tables, d.Dropped = j.Result.PG, version, j.Result.Tables, j.Result.Dropped
	txn := &model.Txn{End: s.boundary, Timestamp: time.Now().UTC(), Seq: s.nextSeq(), DDL: d}
	s.tables.apply(version, j.Result.Tables, j.Result.Dropped)
	s.logger().Info("tables join the stream", "statement", clip(d.Statement), "position", s.boundary.String(), "schema_version", version)
	return s.emit(ctx, txn)
}
