package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/schema"
)

// Schema changes are replayed on the target: the statements of model.DDL.PG
// (for a MySQL target the source's own statement, internal/replicate), each
// rewritten for the target database and engine (rewrite.go), with the
// target database as the session's default database.
//
// MySQL DDL commits on its own, so the statement and the checkpoint after it
// cannot share a transaction. The order is:
//
//  1. a pending marker naming the schema change (its end position) is
//     committed (sluice.ddl_pending);
//  2. the statement runs;
//  3. the schema history, the checkpoint past the change and the deletion
//     of the marker commit in one transaction.
//
// A crash before 1 or after 3 leaves nothing to decide. Between them the
// checkpoint is before the change, so the restarted stream delivers the same
// change again, and the marker (loaded at Open) says it may have run. The
// run's fence has ended every session of the crashed run, so the statement
// either ran completely or not at all (MySQL/MariaDB DDL is atomic per
// statement on InnoDB and MyRocks). The sink then compares the target's
// tables with the versions before and after the change (columns by name and
// type, tables present or dropped): if they match the after versions and not
// the before ones, the change is done and is not run again. Otherwise it is
// run, and an error saying the change is already there (table exists,
// duplicate column or key, unknown table, column or key to drop) is taken
// as that: the statement ran before the crash. Statements whose effect the
// comparison cannot see (TRUNCATE, index or option changes) are idempotent
// or fail with such an error when run twice.

// alreadyDone are the errors of a schema change run a second time.
var alreadyDone = map[uint16]bool{
	1050: true, // table already exists
	1051: true, // unknown table
	1054: true, // unknown column
	1060: true, // duplicate column name
	1061: true, // duplicate key name
	1068: true, // multiple primary key defined
	1091: true, // can't DROP; check that it exists
	1146: true, // table doesn't exist
	1176: true, // key doesn't exist
	1826: true, // duplicate foreign key constraint name
	4028: true, // MariaDB: duplicate constraint name
}

// ApplyDDL replays a schema change and records the new table versions and
// st, crash-safe as described above.
func (s *session) ApplyDDL(ctx context.Context, t *model.Txn, st checkpoint.State) error {
	d := t.DDL
	cfg := s.a.cfg
	fail := func(q string, err error) error {
		return &pipeline.Error{Position: t.End, GTID: t.GTID, DDL: d.Statement, SQL: q, Err: err}
	}
	for _, tb := range d.Tables {
		if tb.Database != cfg.SourceDB {
			return fail("", oneDatabase(tb.TableID, cfg))
		}
		if tb.LeftOut == "" && cfg.Engine == "" && !transactional(tb.Engine) {
			return fail("", nonTransactional(tb.TableID, tb.Engine))
		}
	}
	for _, id := range d.Dropped {
		if id.Database != cfg.SourceDB {
			return fail("", oneDatabase(id, cfg))
		}
	}
	if err := s.refuseCascades(ctx, d); err != nil {
		return fail("", err)
	}
	if d.Database != "" && d.Database != cfg.SourceDB && len(d.PG) > 0 {
		// Its unqualified names meant that database on the source; here
		// they name the target database.
		cfg.Log.Warn("apply: a schema change written with another default database is run with the target database as default",
			"statement", pipeline.Shorten(d.Statement, 200), "default_database", d.Database, "target_database", cfg.TargetDB)
	}
	stmts := s.targetStatements(d)
	key := t.End.Key()
	pending := s.a.pending != "" && s.a.pending == key
	run := len(stmts) > 0
	if run && pending {
		done, err := s.ddlDone(ctx, d)
		if err != nil {
			return fail("", err)
		}
		if done {
			cfg.Log.Warn("apply: a schema change an earlier run started was completed on the target before it stopped; not running it again",
				"statement", pipeline.Shorten(d.Statement, 200), "position", t.End.String())
			run = false
		}
	}
	if run {
		if !pending {
			if err := mysqlstate.SavePending(ctx, s.conn, cfg.Stream, key, d.Statement); err != nil {
				return err
			}
		}
		if _, err := s.conn.ExecContext(ctx, "USE "+schema.QuoteMySQL(cfg.TargetDB)); err != nil {
			return fail("USE "+cfg.TargetDB, err)
		}
		if err := s.runStatements(ctx, t, stmts, pending); err != nil {
			return err
		}
	}
	err := inTx(ctx, s.conn, func(tx *sql.Tx) error {
		if err := mysqlstate.SaveSchema(ctx, tx, cfg.Stream, d.Version, t.End, d.Statement, d.Tables, d.Dropped); err != nil {
			return err
		}
		if err := mysqlstate.Save(ctx, tx, cfg.Stream, st); err != nil {
			return err
		}
		// Everything before the barrier is committed: all applied records are covered.
		if err := mysqlstate.DeleteAllApplied(ctx, tx, cfg.Stream); err != nil {
			return err
		}
		return mysqlstate.DeletePending(ctx, tx, cfg.Stream)
	})
	if err != nil {
		return err
	}
	s.a.pending = ""
	return nil
}

// runStatements runs a schema change's target statements in the character
// set its source text is in (statementCharset), then puts the session back
// to binary for row changes.
func (s *session) runStatements(ctx context.Context, t *model.Txn, stmts []string, pending bool) (rerr error) {
	d, cfg := t.DDL, s.a.cfg
	fail := func(q string, err error) error {
		return &pipeline.Error{Position: t.End, GTID: t.GTID, DDL: d.Statement, SQL: q, Err: err}
	}
	cs, err := s.a.statementCharset(d, stmts)
	if err != nil {
		return fail("", err)
	}
	setNames := "SET NAMES " + cs // a name the target listed
	if _, err := s.conn.ExecContext(ctx, setNames); err != nil {
		return fail(setNames, err)
	}
	for _, set := range s.sourceSession(d) {
		if _, err := s.conn.ExecContext(ctx, set[0]); err != nil {
			return fail(set[0], err)
		}
		// Row changes on this session need the defaults again (an error
		// here fails the apply, which retries on a new session).
		defer func(undo string) {
			if _, err := s.conn.ExecContext(context.WithoutCancel(ctx), undo); err != nil && rerr == nil {
				rerr = fail(undo, err)
			}
		}(set[1])
	}
	for _, q := range stmts {
		if _, err := s.conn.ExecContext(ctx, q); err != nil {
			if pending && alreadyDone[errorNumber(err)] {
				cfg.Log.Warn("apply: a schema change an earlier run started had already run on the target before it stopped",
					"statement", pipeline.Shorten(q, 200), "position", t.End.String(), "target_says", err.Error())
				continue
			}
			return fail(q, err)
		}
	}
	if _, err := s.conn.ExecContext(ctx, sessionSetup[0]); err != nil {
		return fail(sessionSetup[0], err)
	}
	return nil
}

// sourceSession lists the settings of the source session a schema change
// ran in that the target's session takes for it, each with its undo.
func (s *session) sourceSession(d *model.DDL) [][2]string {
	var out [][2]string
	if !d.At.IsZero() {
		// Rows the statement fills with the current time (ADD COLUMN ts
		// TIMESTAMP DEFAULT CURRENT_TIMESTAMP) get the source's time, which
		// the binlog carries nowhere else: keys on such a column matched
		// nothing on the target later.
		out = append(out, [2]string{fmt.Sprintf("SET SESSION timestamp = %d.%06d", d.At.Unix(), d.At.Nanosecond()/1000),
			"SET SESSION timestamp = DEFAULT"})
	}
	if d.NoForeignKeyChecks && !s.a.cfg.SourceLogsFKActions {
		// The source ran the statement without foreign key checks (a DROP
		// of a referenced table, tables created in any order): so does the
		// target, or it refuses what the source did.
		out = append(out, [2]string{"SET SESSION foreign_key_checks = 0", "SET SESSION foreign_key_checks = 1"})
	}
	return out
}

// statementCharset is the character set a schema change runs in on the
// target. The source statement's bytes are text in its session's
// character_set_client: a string literal in it (a DEFAULT, a comment, an
// ENUM member) is read in that charset and converted to the column's. Apply
// sessions are binary, which would store a utf8mb4 literal's bytes as
// latin1 characters, and make every literal of an expression a binary
// string even in ASCII: ADD COLUMN ... DEFAULT (LOWER('ALL')) filled the
// existing rows with 'ALL' (LOWER of a binary string changes nothing). So
// the statement always runs in its client charset; when the binlog does not
// give it, an ASCII statement runs in utf8mb4 (the same text in any ASCII-
// compatible charset).
func (a *Sink) statementCharset(d *model.DDL, stmts []string) (string, error) {
	if d.ClientCollation == 0 {
		ascii := true
		for _, q := range stmts {
			for i := 0; i < len(q) && ascii; i++ {
				ascii = q[i] < 0x80
			}
		}
		if ascii {
			return "utf8mb4", nil
		}
		return "", fmt.Errorf("the binlog does not say which character set the schema change's text is in, and it is not ASCII: " +
			"run it on the target yourself and skip it with --skip-ddl")
	}
	if cs, ok := a.charsets[d.ClientCollation]; ok {
		return cs, nil
	}
	if d.ClientCollation >= 255 && d.ClientCollation <= 323 {
		// MySQL 8 and later number their utf8mb4 collations (utf8mb4_0900_ai_ci
		// and its language variants) 255 to 323; MariaDB has none of them.
		return "utf8mb4", nil
	}
	return "", fmt.Errorf("the schema change was written in a client character set the target does not know (collation id %d): "+
		"run it on the target yourself and skip it with --skip-ddl", d.ClientCollation)
}

// targetStatements rewrites the statements of a schema change for the
// target; the collation of a created table is its version's.
func (s *session) targetStatements(d *model.DDL) []string {
	cfg := s.a.cfg
	var out []string
	for _, q := range d.PG {
		r := rewriter{sourceDB: cfg.SourceDB, targetDB: cfg.TargetDB, engine: cfg.Engine,
			charsetCollations: s.a.sourceCharsetDefaults()}
		if !s.a.mysqlJSON && cfg.SourceUTF8MB4Collation != "" {
			// A MySQL 8+ source into MariaDB: its collations, and its
			// default for utf8mb4, as MariaDB names them.
			has := CollationsFor(cfg.Engine, s.a.hasCollation)
			r.mapCollation = func(c string) string {
				if m, ok := TargetCollation(c, has); ok && !strings.EqualFold(m, c) {
					return m
				}
				return ""
			}
			if m, ok := TargetCollation(cfg.SourceUTF8MB4Collation, has); ok {
				r.charsetCollations["utf8mb4"] = m
			}
		}
		if !s.a.mysqlJSON {
			for cs, coll := range s.a.sessionCollations(d.CharsetCollations) {
				r.charsetCollations[cs] = coll
			}
		}
		for _, t := range d.Tables {
			if t.Collation != "" && createsTable(q, t.Name) {
				coll, ok := TargetCollation(t.Collation, CollationsFor(cfg.Engine, s.a.hasCollation))
				r.collation = "COLLATE=" + coll
				if !ok {
					// The target has nothing close (a MySQL 8 collation on an
					// old MariaDB): the charset with the target's default
					// collation keeps the bytes; comparisons may differ,
					// which a unique key would report as a duplicate, never hide.
					cs, _, _ := strings.Cut(t.Collation, "_")
					r.collation = "DEFAULT CHARSET=" + cs
					cfg.Log.Warn("apply: the target has no collation "+t.Collation+"; creating the table with its charset's default collation",
						"table", t.TableID.String(), "charset", cs)
				}
			}
		}
		out = append(out, r.rewrite(q))
	}
	return out
}

// createsTable reports whether q is a CREATE TABLE of a table named name.
func createsTable(q, name string) bool {
	toks := lexSQL(q)
	var words []string
	for _, t := range toks {
		if t.kind == tkSpace {
			continue
		}
		w := q[t.start:t.end]
		if t.kind == tkQuoted {
			w = strings.ReplaceAll(w[1:len(w)-1], "``", "`")
		}
		words = append(words, w)
		if len(words) > 10 {
			break
		}
	}
	i := 0
	if len(words) < 3 || !strings.EqualFold(words[0], "CREATE") {
		return false
	}
	i++
	if i+1 < len(words) && strings.EqualFold(words[i], "OR") {
		i += 2
	}
	if i < len(words) && strings.EqualFold(words[i], "TEMPORARY") {
		i++
	}
	if i >= len(words) || !strings.EqualFold(words[i], "TABLE") {
		return false
	}
	i++
	if i+2 < len(words) && strings.EqualFold(words[i], "IF") {
		i += 3
	}
	if i+2 < len(words) && words[i+1] == "." {
		i += 2
	}
	return i < len(words) && words[i] == name
}

// ddlDone reports whether the target's tables are as the change leaves
// them and not as it found them.
func (s *session) ddlDone(ctx context.Context, d *model.DDL) (bool, error) {
	before, err := mysqlstate.LoadSchema(ctx, s.conn, s.a.cfg.Stream, d.Version-1)
	if err != nil {
		return false, err
	}
	after := map[string]*schema.Table{}
	for _, id := range d.Dropped {
		after[id.Name] = nil
	}
	for _, t := range d.Tables {
		if t.LeftOut == "" {
			after[t.Name] = t
		}
	}
	matchesAfter, matchesBefore := true, true
	for name, want := range after {
		cols, err := s.targetColumns(ctx, name)
		if err != nil {
			return false, err
		}
		if !sameColumns(cols, want) {
			matchesAfter = false
		}
		if !sameColumns(cols, before[schema.TableID{Database: s.a.cfg.SourceDB, Name: name}]) {
			matchesBefore = false
		}
	}
	return matchesAfter && !matchesBefore, nil
}

// targetColumns returns "name type" of each column of a target table in
// order; nil when the table does not exist.
func (s *session) targetColumns(ctx context.Context, name string) ([]string, error) {
	rows, err := s.conn.QueryContext(ctx, `SELECT COLUMN_NAME, DATA_TYPE FROM information_schema.COLUMNS
		WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`, s.a.cfg.TargetDB, name)
	if err != nil {
		return nil, fmt.Errorf("apply: read the columns of %s.%s: %w", s.a.cfg.TargetDB, name, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var c, t string
		if err := rows.Scan(&c, &t); err != nil {
			return nil, err
		}
		out = append(out, c+" "+strings.ToLower(t))
	}
	return out, rows.Err()
}

func sameColumns(got []string, t *schema.Table) bool {
	if t == nil {
		return got == nil
	}
	if len(got) != len(t.Columns) {
		return false
	}
	for i, c := range t.Columns {
		if got[i] != c.Name+" "+strings.ToLower(c.DataType) {
			return false
		}
	}
	return true
}

// sourceCharsetDefaults is what a charset clause without COLLATE means on the
// source (Config.SourceCharsetDefaults), as the target names it: charset →
// collation, for the collations the target has or has one close to. A
// MariaDB 10 source's CHARACTER SET utf16 is utf16_general_ci; replayed as
// written on MariaDB 11.8 it would be utf16_uca1400_ai_ci.
func (a *Sink) sourceCharsetDefaults() map[string]string {
	out := map[string]string{}
	has := CollationsFor(a.cfg.Engine, a.hasCollation)
	for cs, coll := range a.cfg.SourceCharsetDefaults {
		if m, ok := TargetCollation(coll, has); ok {
			out[strings.ToLower(cs)] = m
		}
	}
	return out
}

// sessionCollations is what a MariaDB 11 session's character_set_collations (pairs of collation
// ids: a charset's default, the collation it meant) names on the target: charset → collation,
// for the pairs whose ids the target knows (MariaDB 10.10+ has the uca1400 ids of 11's defaults).
func (a *Sink) sessionCollations(pairs [][2]uint16) map[string]string {
	out := map[string]string{}
	for _, p := range pairs {
		cs, ok := a.charsets[p[0]]
		name, known := a.collationNames[p[1]]
		if ok && known {
			out[strings.ToLower(cs)] = name
		}
	}
	return out
}
