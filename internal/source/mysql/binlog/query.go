package binlog

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/go-mysql-org/go-mysql/replication"
	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
)

// query handles a QUERY event: transaction control, or a statement.
func (s *Stream) query(ctx context.Context, e *replication.QueryEvent, h *replication.EventHeader, logPos uint32) error {
	q := string(e.Query)
	switch classifyQuery(q) {
	case queryBegin:
		s.openTxn(h)
		return nil
	case queryCommit:
		if s.txn == nil {
			return s.emitMarker(ctx, h, logPos)
		}
		return s.commit(ctx, h, logPos)
	case queryRollback:
		if s.txn == nil {
			return s.emitMarker(ctx, h, logPos)
		}
		if err := s.rollback(logPos); err != nil {
			return err
		}
		return s.commit(ctx, h, logPos)
	case querySavepoint:
		// Only logged around changes of non-transactional tables; the row
		// events in the group are what really happened.
		return nil
	case queryXA:
		return s.errorf(s.statementAt(h, logPos), "XA transaction statement %q: sluice does not replicate XA transactions; "+
			"finish them on the source with XA COMMIT, or skip knowingly with --skip-ddl '%s'", clip(q), suggestSkip(q))
	}
	return s.statement(ctx, e, h, logPos)
}

// rollback keeps only the changes of non-transactional tables, which a
// ROLLBACK does not undo and which are why such a group is logged at all.
func (s *Stream) rollback(logPos uint32) error {
	t := s.txn
	if t.seq != 0 {
		return s.errorf(s.at(logPos), "a transaction larger than the fragment size ended with ROLLBACK: "+
			"its fragments were already handed to apply; raise --max-txn-memory above the transaction size")
	}
	kept := t.changes[:0]
	for _, c := range t.changes {
		if !transactional(c.Table.Engine) {
			kept = append(kept, c)
		}
	}
	clear(t.changes[len(kept):])
	t.changes = kept
	return nil
}

// transactional reports whether changes of a table with this engine are
// undone by ROLLBACK.
func transactional(engine string) bool {
	switch strings.ToLower(engine) {
	case "myisam", "aria", "memory", "heap", "csv", "archive", "merge", "mrg_myisam", "blackhole", "federated", "connect", "sequence":
		return false
	}
	return true
}

// statement handles a statement that is not transaction control: a schema
// change, something sluice ignores, or a statement-based row change.
func (s *Stream) statement(ctx context.Context, e *replication.QueryEvent, h *replication.EventHeader, logPos uint32) error {
	q := string(e.Query)
	db := string(e.Schema)
	at := s.statementAt(h, logPos)
	if s.cfg.SkipDDL != nil && s.cfg.SkipDDL(q) {
		return s.skip(ctx, q, db, h, logPos)
	}
	if isRowStatement(q) {
		if err := s.checkStatementScope(q, db, at); err != nil {
			return err
		}
		return s.afterIgnored(ctx, h, logPos)
	}
	if s.onlyLeftOut(q, db) {
		s.logger().Info("statement of a table left out of replication passed over", "statement", clip(q), "position", at.String())
		return s.afterIgnored(ctx, h, logPos)
	}
	at0 := statementTime(h, e)
	res, err := s.cfg.Translate(s.tables.tables, q, db, at0)
	if err != nil {
		hint := ""
		if !strings.Contains(err.Error(), "--skip-ddl") {
			hint = fmt.Sprintf("\n  to skip it knowingly, re-run with --skip-ddl '%s' and make the equivalent change on the target yourself", suggestSkip(q))
		}
		return fmt.Errorf("replication stopped at binlog %s:%d%s: %w\n  statement: %s%s\n"+
			"  after a skip, row events of the tables it changed are checked against the schema sluice knows, and replication stops if they no longer match",
			at.File, at.Pos, gtidNote(s.pendingGTID), err, clip(q), hint)
	}
	if res.Ignored {
		s.logger().Debug("statement ignored", "statement", clip(q), "reason", res.Reason, "position", at.String())
		return s.afterIgnored(ctx, h, logPos)
	}
	if s.txn != nil {
		return fmt.Errorf("binlog %s: schema change inside a transaction (CREATE TABLE ... SELECT?): %s; "+
			"sluice replicates schema changes only as statements of their own; create the table first, then INSERT ... SELECT, "+
			"or skip knowingly with --skip-ddl '%s'", at, clip(q), suggestSkip(q))
	}
	collation, _ := clientCollation(e.StatusVars)
	ddl := &model.DDL{Database: db, Statement: q, ClientCollation: collation, CharsetCollations: charsetCollations(e.StatusVars),
		NoForeignKeyChecks: noForeignKeyChecks(e.StatusVars), At: at0}
	return s.schemaChange(ctx, ddl, res, h, logPos)
}

// afterIgnored moves the position past an ignored statement; inside a
// transaction the transaction's commit does that.
func (s *Stream) afterIgnored(ctx context.Context, h *replication.EventHeader, logPos uint32) error {
	if s.txn != nil {
		return nil
	}
	return s.emitMarker(ctx, h, logPos)
}

// schemaChange installs the new table versions and emits the DDL Txn: ddl
// is the statement as the source session ran it, completed here with res.
func (s *Stream) schemaChange(ctx context.Context, ddl *model.DDL, res *DDLResult, h *replication.EventHeader, logPos uint32) error {
	q := ddl.Statement
	if err := s.gtid.commit(); err != nil {
		return s.errorf(s.at(logPos), "%v", err)
	}
	end := s.at(logPos)
	if s.cfg.SchemaChangeAt != nil {
		if err := s.cfg.SchemaChangeAt(res, q, end); err != nil {
			return err
		}
	}
	version := s.tables.version + 1
	ddl.PG, ddl.Version, ddl.Tables, ddl.Dropped = res.PG, version, res.Tables, res.Dropped
	txn := &model.Txn{
		GTID:      s.pendingGTID,
		End:       end,
		Timestamp: time.Unix(int64(h.Timestamp), 0).UTC(),
		Seq:       s.nextSeq(),
		DDL:       ddl,
	}
	s.pendingGTID = ""
	s.tables.apply(version, res.Tables, res.Dropped)
	s.logger().Info("schema change", "statement", clip(q), "position", end.String(), "schema_version", version,
		"tables", len(res.Tables), "dropped", len(res.Dropped))
	if err := s.emit(ctx, txn); err != nil {
		return err
	}
	s.setBoundary(end)
	return nil
}

// isRowStatement reports statements that change rows: in a row-format
// binlog they only appear when a session wrote with binlog_format=STATEMENT
// or MIXED.
func isRowStatement(q string) bool {
	word, _, _ := strings.Cut(strings.TrimSpace(q), " ")
	switch strings.ToUpper(word) {
	case "INSERT", "UPDATE", "DELETE", "REPLACE", "LOAD":
		return true
	}
	return false
}

// checkStatementScope stops on a statement-based change of a replicated
// table: its rows are not in the binlog, so they would be lost silently.
func (s *Stream) checkStatementScope(q, db string, at binlogpos.Position) error {
	ids, err := statementTables(q, db)
	if err != nil {
		return fmt.Errorf("binlog %s: a row change logged as a statement (a session with binlog_format=STATEMENT or MIXED) "+
			"that sluice cannot parse to check its tables (%v): %s; set binlog_format=ROW for every session, "+
			"or skip knowingly with --skip-ddl '%s'", at, err, clip(q), suggestSkip(q))
	}
	for _, id := range ids {
		if s.cfg.InScope(id) {
			return fmt.Errorf("binlog %s: table %s was changed by a statement-based event (a session with binlog_format=STATEMENT or MIXED), "+
				"whose rows are not in the binlog: %s; set binlog_format=ROW for every session and re-run `sluice snapshot --restart`, "+
				"or skip knowingly with --skip-ddl '%s'", at, id, clip(q), suggestSkip(q))
		}
	}
	return nil
}

var stmtParser = func() *sqlparser.Parser {
	p, err := sqlparser.New(sqlparser.Options{MySQLServerVersion: "8.0.40"})
	if err != nil {
		panic(err) // a constant version string
	}
	return p
}()

// statementTables returns the tables a statement names, qualified with the
// default database.
func statementTables(q, db string) ([]schema.TableID, error) {
	stmt, err := stmtParser.Parse(q)
	if err != nil {
		return nil, err
	}
	var ids []schema.TableID
	err = sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
		if tn, ok := node.(sqlparser.TableName); ok && !tn.Name.IsEmpty() {
			id := schema.TableID{Database: tn.Qualifier.String(), Name: tn.Name.String()}
			if id.Database == "" {
				id.Database = db
			}
			ids = append(ids, id)
		}
		return true, nil
	}, stmt)
	return ids, err
}

// suggestSkip is a --skip-ddl pattern matching a statement: a glob of its
// first words (the syntax of ddl.MatchSkip, spelled like ddl.SkipPattern;
// kept here so the stream does not depend on the translator).
func suggestSkip(q string) string {
	words := strings.Fields(q)
	if len(words) > 4 {
		words = words[:4]
	}
	return strings.NewReplacer("'", "?", "[", "?", "]", "?").Replace(strings.Join(words, " ") + "*")
}

// clip shortens a statement for messages.
func clip(q string) string {
	q = strings.TrimSpace(q)
	if len(q) > 500 {
		return q[:500] + "..."
	}
	return q
}

// gtidNote is " (GTID g)" for messages, or nothing without GTIDs.
func gtidNote(g string) string {
	if g == "" {
		return ""
	}
	return " (GTID " + g + ")"
}
