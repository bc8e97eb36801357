package binlog

import (
	"context"
	"fmt"
	"strings"

	"github.com/go-mysql-org/go-mysql/replication"

	"github.com/sluice-db/sluice/internal/model"
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
	creates := isCreateTable(q)
	for _, id := range inScope {
		if t := tables[id]; t != nil {
			if creates && s.tables.tables[id] == nil {
				// The target will not have this table: it is left out of
				// replication from here on, in the history too, so that
				// neither its rows nor its later DDL stop the stream.
				t.LeftOut = fmt.Sprintf("its CREATE TABLE was skipped with --skip-ddl at %s", at)
				s.logger().Warn("a table created by a skipped statement is left out of replication: its rows and schema changes "+
					"are passed over (create it on the target and re-copy it to include it)", "table", id.String(), "position", at.String())
			}
			res.Tables = append(res.Tables, t)
		} else if s.tables.tables[id] != nil {
			res.Dropped = append(res.Dropped, id)
		}
	}
	s.logger().Warn("skipping a statement knowingly (--skip-ddl): nothing runs on the target (make the equivalent change there yourself); "+
		"the tables it names are re-read from the source and assumed to be defined now as right after it",
		"statement", clip(q), "position", at.String(), "gtid", s.pendingGTID, "tables", inScope)
	return s.schemaChange(ctx, &model.DDL{Database: db, Statement: q}, res, h, logPos) // nothing runs on the target
}

// isCreateTable reports whether a statement is a CREATE [TEMPORARY] TABLE.
func isCreateTable(q string) bool {
	w := strings.Fields(strings.ToLower(q))
	return len(w) > 2 && w[0] == "create" && (w[1] == "table" || (w[1] == "temporary" && w[2] == "table"))
}

// onlyLeftOut reports whether every table a statement names is a table
// left out of replication (and it names at least one).
func (s *Stream) onlyLeftOut(q, db string) bool {
	ids, err := statementTables(q, db)
	if err != nil || len(ids) == 0 {
		return false
	}
	for _, id := range ids {
		if t := s.tables.tables[id]; t == nil || t.LeftOut == "" {
			return false
		}
	}
	return true
}
