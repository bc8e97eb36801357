package binlog

import (
	"context"
	"fmt"

	"github.com/go-mysql-org/go-mysql/replication"

	"github.com/sluice-db/sluice/internal/schema"
)

// skip handles a statement matched by --skip-ddl: nothing runs on the
// target. When the stream can re-read table definitions (Config.Reload),
// the tables the statement names that are in scope are re-read from the
// source and recorded as a new schema version, so rows written after the
// statement decode with the table's new columns; the definitions are
// assumed to be those right after the statement (as for a start without
// snapshot), which is logged. Without Reload, or when the statement cannot
// be parsed, the schema history stays as it was and the next row of a
// changed table stops replication with the column mismatch.
func (s *Stream) skip(ctx context.Context, q, db string, h *replication.EventHeader, logPos uint32) error {
	at := s.statementAt(h, logPos)
	ids, err := statementTables(q, db)
	var inScope []schema.TableID
	for _, id := range ids {
		if s.cfg.InScope(id) {
			inScope = append(inScope, id)
		}
	}
	if s.txn != nil || s.cfg.Reload == nil || err != nil || len(inScope) == 0 {
		s.logger().Warn("skipping a statement knowingly (--skip-ddl); the schema history is unchanged: if the statement "+
			"changed the columns of a replicated table, its next row event will not match and replication stops",
			"statement", clip(q), "position", at.String(), "gtid", s.pendingGTID)
		return s.afterIgnored(ctx, h, logPos)
	}
	tables, err := s.cfg.Reload(ctx, inScope)
	if err != nil {
		return fmt.Errorf("binlog %s: --skip-ddl: re-read the definitions of %v: %w", at, inScope, err)
	}
	res := &DDLResult{}
	for _, id := range inScope {
		if t := tables[id]; t != nil {
			res.Tables = append(res.Tables, t)
		} else if s.tables.tables[id] != nil {
			res.Dropped = append(res.Dropped, id)
		}
	}
	s.logger().Warn("skipping a statement knowingly (--skip-ddl): nothing runs on the target (make the equivalent change there yourself); "+
		"the tables it names are re-read from the source and assumed to be defined now as right after it",
		"statement", clip(q), "position", at.String(), "gtid", s.pendingGTID, "tables", inScope)
	return s.schemaChange(ctx, q, db, res, h, logPos)
}
