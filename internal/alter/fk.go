package alter

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/consistent"
)

// foreignKey is one constraint that ties the altered table to another:
// held by the table itself (own: it references a parent) or by a child
// that references it. The swap moves every one of them to the new table
// under the table lock (docs/alter.md "Foreign keys").
type foreignKey struct {
	holder schema.TableID // the table that holds the constraint
	name   string
	def    string // "CONSTRAINT `n` FOREIGN KEY (…) REFERENCES … ON …", as SHOW CREATE TABLE has it
	parent schema.TableID
	cols   []string // the holder's columns
	refs   []string // the parent's columns
	update string   // UPDATE_RULE
	delete string   // DELETE_RULE
}

// foreignKeys are the altered table's constraints (own) and its
// children's (children), read once by foreignKeyProblems.
type foreignKeys struct {
	own, children []foreignKey
}

func (f *foreignKeys) empty() bool { return f == nil || len(f.own)+len(f.children) == 0 }

// loadForeignKeys reads the constraints that name id, as holder or parent.
func loadForeignKeys(ctx context.Context, db *sql.DB, id schema.TableID) (*foreignKeys, error) {
	rows, err := queryMaps(ctx, db, `SELECT CONSTRAINT_SCHEMA AS s, TABLE_NAME AS t, CONSTRAINT_NAME AS n,
		UNIQUE_CONSTRAINT_SCHEMA AS ps, REFERENCED_TABLE_NAME AS pt, UPDATE_RULE AS u, DELETE_RULE AS d
		FROM information_schema.REFERENTIAL_CONSTRAINTS
		WHERE (UNIQUE_CONSTRAINT_SCHEMA = ? AND REFERENCED_TABLE_NAME = ?) OR (CONSTRAINT_SCHEMA = ? AND TABLE_NAME = ?)
		ORDER BY CONSTRAINT_SCHEMA, TABLE_NAME, CONSTRAINT_NAME`, id.Database, id.Name, id.Database, id.Name)
	if err != nil {
		return nil, fmt.Errorf("alter: read foreign keys: %w", err)
	}
	f := &foreignKeys{}
	ddl := map[schema.TableID]string{}
	for _, row := range rows {
		k := foreignKey{holder: schema.TableID{Database: row["s"], Name: row["t"]}, name: row["n"],
			parent: schema.TableID{Database: row["ps"], Name: row["pt"]}, update: row["u"], delete: row["d"]}
		if err := k.readColumns(ctx, db); err != nil {
			return nil, err
		}
		if _, ok := ddl[k.holder]; !ok {
			var n, text string
			if err := db.QueryRowContext(ctx, "SHOW CREATE TABLE "+consistent.QuoteTable(k.holder)).Scan(&n, &text); err != nil {
				return nil, fmt.Errorf("alter: read the definition of %s: %w", k.holder, err)
			}
			ddl[k.holder] = text
		}
		if k.def = constraintLine(ddl[k.holder], k.name); k.def == "" {
			return nil, fmt.Errorf("alter: foreign key %s not found in SHOW CREATE TABLE %s", k.name, k.holder)
		}
		if k.holder == id {
			f.own = append(f.own, k)
		}
		if k.parent == id {
			f.children = append(f.children, k)
		}
	}
	return f, nil
}

func (k *foreignKey) readColumns(ctx context.Context, db *sql.DB) error {
	rows, err := queryMaps(ctx, db, `SELECT COLUMN_NAME AS c, REFERENCED_COLUMN_NAME AS r FROM information_schema.KEY_COLUMN_USAGE
		WHERE CONSTRAINT_SCHEMA = ? AND TABLE_NAME = ? AND CONSTRAINT_NAME = ? AND REFERENCED_TABLE_NAME IS NOT NULL
		ORDER BY ORDINAL_POSITION`, k.holder.Database, k.holder.Name, k.name)
	if err != nil {
		return fmt.Errorf("alter: read the columns of foreign key %s: %w", k.name, err)
	}
	for _, r := range rows {
		k.cols, k.refs = append(k.cols, r["c"]), append(k.refs, r["r"])
	}
	return nil
}

// constraintLine is the CONSTRAINT line of name in a SHOW CREATE TABLE
// text, without its trailing comma ("" when absent).
func constraintLine(ddl, name string) string {
	prefix := "CONSTRAINT " + schema.QuoteMySQL(name) + " FOREIGN KEY "
	for _, line := range strings.Split(ddl, "\n") {
		if line = strings.TrimSpace(line); strings.HasPrefix(line, prefix) {
			return strings.TrimSuffix(line, ",")
		}
	}
	return ""
}

// referencesRE finds the parent in a constraint line: REFERENCES `t` (…)
// or REFERENCES `db`.`t` (…).
var referencesRE = regexp.MustCompile("REFERENCES ((?:`(?:[^`]|``)+`\\.)?)`(?:[^`]|``)+` \\(")

// pointedAt is the constraint line with its parent renamed to table (same
// database).
func (k foreignKey) pointedAt(table string) string {
	return referencesRE.ReplaceAllLiteralString(k.def, "REFERENCES "+referencesPrefix(k.def)+schema.QuoteMySQL(table)+" (")
}

func referencesPrefix(def string) string {
	if m := referencesRE.FindStringSubmatch(def); m != nil {
		return m[1]
	}
	return ""
}

// foreignKeyProblems reads the table's foreign keys into r.fks and says
// which of them the swap cannot carry exactly.
func (r *runner) foreignKeyProblems(ctx context.Context) ([]string, error) {
	fks, err := loadForeignKeys(ctx, r.db, r.id)
	if err != nil {
		return nil, err
	}
	r.fks = fks
	var bad []string
	for _, k := range fks.own {
		switch {
		case k.parent == r.id:
			bad = append(bad, fmt.Sprintf("foreign key %s of %s references the table itself: sluice alter does not carry self-references; "+
				"drop it for the change and add it again after, or run the server's own ALTER TABLE", k.name, r.id))
		case (cascades(k.delete) || cascades(k.update)) && !r.info.SQLForeignKeys:
			bad = append(bad, fmt.Sprintf("foreign key %s of %s is ON DELETE %s ON UPDATE %s: the server applies such changes to %s without writing them "+
				"to the row binlog (MariaDB, MySQL before 9, MySQL 9 with innodb_native_foreign_keys=ON), so the copy would miss them; "+
				"make it RESTRICT/NO ACTION for the change, or run the server's own ALTER TABLE", k.name, r.id, k.delete, k.update, r.id))
		}
		if p := r.fkColumnProblem(k, k.cols); p != "" {
			bad = append(bad, p)
		}
	}
	for _, k := range fks.children {
		if k.holder == r.id {
			continue // a self-reference, refused above
		}
		if p := r.fkColumnProblem(k, k.refs); p != "" {
			bad = append(bad, p)
		}
	}
	return bad, nil
}

// cascades: a referential action that changes the child's rows.
func cascades(rule string) bool {
	return rule == "CASCADE" || rule == "SET NULL" || rule == "SET DEFAULT"
}

// fkColumnProblem: the altered table's columns of a constraint must keep
// their type and collation (the constraint would not fit the new table)
// and an index that starts with them (else adding the constraint to the
// new table under the swap's lock would build one).
func (r *runner) fkColumnProblem(k foreignKey, cols []string) string {
	for _, c := range cols {
		o, n := r.p.oldDef.column(c), r.p.newDef.column(c)
		if n == nil || o == nil || n.Type != o.Type || n.Collation != o.Collation {
			return fmt.Sprintf("the change alters or drops column %s of %s, which foreign key %s (on %s) uses: "+
				"drop the foreign key first, or change the column in a separate step without sluice alter", c, r.id, k.name, k.holder)
		}
	}
	for _, ix := range r.p.newDef.Indexes {
		if len(ix) >= len(cols) && slices.EqualFunc(ix[:len(cols)], cols, strings.EqualFold) {
			return ""
		}
	}
	return fmt.Sprintf("the new definition of %s has no index starting with (%s), which foreign key %s (on %s) needs: keep or add one in --alter",
		r.id, strings.Join(cols, ", "), k.name, k.holder)
}

// lockList are the tables the swap's LOCK TABLES adds for the foreign
// keys: the children WRITE (their constraints are altered), the parents
// READ (the new table's constraints are added against them).
func (f *foreignKeys) lockList(id schema.TableID) string {
	if f.empty() {
		return ""
	}
	var out []string
	seen := map[schema.TableID]bool{id: true}
	for _, k := range f.children {
		if !seen[k.holder] {
			seen[k.holder] = true
			out = append(out, consistent.QuoteTable(k.holder)+" WRITE")
		}
	}
	for _, k := range f.own {
		if !seen[k.parent] {
			seen[k.parent] = true
			out = append(out, consistent.QuoteTable(k.parent)+" READ")
		}
	}
	return ", " + strings.Join(out, ", ")
}

// fkStep is one statement of the swap's constraint move and its undo.
type fkStep struct{ do, undo string }

// swapSteps move every constraint to the copy before the RENAME, under the
// swap's lock: the table's own constraints are dropped from it and added,
// same names, to the copy (InnoDB wants a constraint name once per
// database, so the copy cannot hold them earlier under these names, and
// under other names they would stay renamed: InnoDB cannot rename one);
// each child's constraint is dropped and added again referencing the copy,
// which the RENAME then turns into the table (InnoDB follows a RENAME of
// the referenced table). Two statements per table, as one ALTER cannot
// drop and add a constraint of one name. With foreign_key_checks=0 adding
// a constraint is INPLACE and reads no row: metadata only.
func (r *runner) swapSteps() []fkStep {
	f := r.fks
	if f.empty() {
		return nil
	}
	alter := fkAlter
	var steps []fkStep
	shadow := schema.TableID{Database: r.id.Database, Name: shadowName(r.id.Name)}
	if len(f.own) > 0 {
		var drop, add []string
		for _, k := range f.own {
			drop, add = append(drop, "DROP FOREIGN KEY "+schema.QuoteMySQL(k.name)), append(add, "ADD "+k.def)
		}
		steps = append(steps,
			fkStep{do: alter(r.id, drop), undo: alter(r.id, add)},
			fkStep{do: alter(shadow, add), undo: alter(shadow, drop)})
	}
	for i := 0; i < len(f.children); {
		holder := f.children[i].holder
		var drop, add, orig []string
		for ; i < len(f.children) && f.children[i].holder == holder; i++ {
			k := f.children[i]
			drop = append(drop, "DROP FOREIGN KEY "+schema.QuoteMySQL(k.name))
			add, orig = append(add, "ADD "+k.pointedAt(shadowName(r.id.Name))), append(orig, "ADD "+k.def)
		}
		steps = append(steps,
			fkStep{do: alter(holder, drop), undo: alter(holder, orig)},
			fkStep{do: alter(holder, add), undo: alter(holder, drop)})
	}
	return steps
}

// fkAlter is one ALTER of the swap's constraint move: metadata only with
// foreign_key_checks=0 (fkSession).
func fkAlter(t schema.TableID, clauses []string) string {
	return "ALTER TABLE " + consistent.QuoteTable(t) + " " + strings.Join(clauses, ", ") + ", ALGORITHM=INPLACE"
}

// fkSession turns foreign_key_checks off on conn; restore turns them on
// again (conn goes back to the pool).
func fkSession(ctx context.Context, conn *sql.Conn) (restore func(), err error) {
	if _, err := conn.ExecContext(ctx, "SET SESSION foreign_key_checks = 0"); err != nil {
		return nil, fmt.Errorf("alter: foreign keys: %w", err)
	}
	return func() {
		conn.ExecContext(context.WithoutCancel(ctx), "SET SESSION foreign_key_checks = 1") //nolint:errcheck
	}, nil
}

// moveForeignKeys runs the swap's constraint steps on the locking session;
// it returns the undo of those done, to run (undoForeignKeys) when the
// swap fails after all.
func (r *runner) moveForeignKeys(ctx context.Context, lock *sql.Conn) (undo []string, err error) {
	steps := r.swapSteps()
	if len(steps) == 0 {
		return nil, nil
	}
	restore, err := fkSession(ctx, lock)
	if err != nil {
		return nil, err
	}
	defer restore()
	for _, s := range steps {
		if _, err := lock.ExecContext(ctx, s.do); err != nil {
			return undo, fmt.Errorf("alter: foreign keys at the swap: %s: %w", s.do, err)
		}
		undo = append([]string{s.undo}, undo...)
	}
	return undo, nil
}

// undoForeignKeys puts the constraints back on the table and its children
// (a swap that failed after moving them); conn nil: a session of its own.
// A statement that fails is logged with the statement to run by hand.
func (r *runner) undoForeignKeys(ctx context.Context, conn *sql.Conn, undo []string) {
	if err := r.runFKStatements(ctx, conn, undo); err != nil {
		r.log.Error("foreign keys: put back on the table after a failed swap; run what failed by hand", "err", err, "statements", undo)
	}
}

// runFKStatements runs every statement, the checks off, past failures;
// conn nil: a session of its own.
func (r *runner) runFKStatements(ctx context.Context, conn *sql.Conn, stmts []string) error {
	if len(stmts) == 0 {
		return nil
	}
	ctx = context.WithoutCancel(ctx)
	if conn == nil {
		c, err := r.db.Conn(ctx)
		if err != nil {
			return fmt.Errorf("alter: foreign keys: %w", err)
		}
		defer c.Close()
		conn = c
	}
	restore, err := fkSession(ctx, conn)
	if err != nil {
		return err
	}
	defer restore()
	var errs []error
	for _, q := range stmts {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", q, err))
		}
	}
	return errors.Join(errs...)
}

// restoreForeignKeys repairs a swap killed between moving the foreign keys
// and the RENAME (its lock died with it, so the application writes the
// table again): constraints the copy holds go back to the table, children
// that reference the copy reference the table again. Run before a resumed
// run or --cleanup reads the table's foreign keys or drops the copy.
func (r *runner) restoreForeignKeys(ctx context.Context) error {
	shadow := schema.TableID{Database: r.id.Database, Name: shadowName(r.id.Name)}
	f, err := loadForeignKeys(ctx, r.db, shadow)
	if err != nil || f.empty() {
		return err
	}
	var stmts []string
	for _, k := range f.own {
		stmts = append(stmts, fkAlter(shadow, []string{"DROP FOREIGN KEY " + schema.QuoteMySQL(k.name)}), fkAlter(r.id, []string{"ADD " + k.def}))
	}
	for _, k := range f.children {
		stmts = append(stmts, fkAlter(k.holder, []string{"DROP FOREIGN KEY " + schema.QuoteMySQL(k.name)}),
			fkAlter(k.holder, []string{"ADD " + k.pointedAt(r.id.Name)}))
	}
	// Until now the children referenced the copy: a delete of the table's
	// rows ran no action on them, and a child row could reference a row
	// the copy lacks. Checking would scan every child; the log says how.
	r.log.Warn("an interrupted swap had moved foreign keys to the copy: putting them back on the table; "+
		"writes made since the kill ran no constraint action (a delete of a row of the table left its children): check the children for orphans",
		"table", r.id.String(), "statements", stmts)
	if err := r.runFKStatements(ctx, nil, stmts); err != nil {
		return fmt.Errorf("alter: put the foreign keys back on %s after an interrupted swap (run what failed by hand): %w", r.id, err)
	}
	return nil
}

// lockNames is lockList's tables for the report's lock label.
func (f *foreignKeys) lockNames(id schema.TableID) string {
	return strings.ReplaceAll(f.lockList(id), "`", "")
}
