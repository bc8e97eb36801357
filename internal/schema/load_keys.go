package schema

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"
)

// loadIndexes reads information_schema.STATISTICS into PrimaryKey and Indexes.
func (l *loader) loadIndexes(ctx context.Context, byID map[TableID]*Table) error {
	expr := "NULL"
	if l.isCols["STATISTICS.EXPRESSION"] {
		expr = "EXPRESSION" // MySQL 8.0.13+ functional key parts
	}
	rows, err := l.query(ctx, "indexes", `SELECT TABLE_SCHEMA, TABLE_NAME, INDEX_NAME, NON_UNIQUE,
		COLUMN_NAME, SUB_PART, COLLATION, INDEX_TYPE, INDEX_COMMENT, `+expr+`
		FROM information_schema.STATISTICS WHERE TABLE_SCHEMA IN %s
		ORDER BY TABLE_SCHEMA, TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var cur *Index
	var curTable *Table
	flush := func() {
		if cur != nil {
			curTable.Indexes = append(curTable.Indexes, *cur)
			cur = nil
		}
	}
	for rows.Next() {
		var (
			id                         TableID
			name, kind, comment        string
			nonUnique                  int
			col, collation, expression sql.NullString
			subPart                    sql.NullInt64
		)
		if err := rows.Scan(&id.Database, &id.Name, &name, &nonUnique, &col, &subPart, &collation,
			&kind, &comment, &expression); err != nil {
			return fmt.Errorf("read indexes: %w", err)
		}
		t := byID[id]
		if t == nil {
			continue
		}
		if name == "PRIMARY" {
			t.PrimaryKey = append(t.PrimaryKey, col.String)
			continue
		}
		if cur == nil || curTable != t || cur.Name != name {
			flush()
			curTable = t
			cur = &Index{Name: name, Unique: nonUnique == 0, Kind: strings.ToUpper(kind), Comment: comment}
		}
		ic := IndexColumn{Name: col.String, Desc: collation.String == "D"}
		if subPart.Valid && cur.Kind != "SPATIAL" { // SPATIAL reports an internal length
			ic.SubPart = int(subPart.Int64)
		}
		if expression.Valid && expression.String != "" {
			ic.Expression = CanonicalExpr(expression.String)
		}
		cur.Columns = append(cur.Columns, ic)
	}
	flush()
	return rows.Err()
}

// loadForeignKeys reads KEY_COLUMN_USAGE and REFERENTIAL_CONSTRAINTS with
// one query each and joins them here: a statement that opens two
// information_schema tables at once builds two internal temporary tables,
// the shape MariaDB 10.11 crashed on (signal 11 freeing a failed temporary
// table) under concurrent DDL, in this query and in another (docs/snapshot.md).
func (l *loader) loadForeignKeys(ctx context.Context, byID map[TableID]*Table) error {
	type fkKey struct{ db, table, name string }
	rules := map[fkKey][2]string{}
	rrows, err := l.query(ctx, "foreign key rules", `SELECT CONSTRAINT_SCHEMA, TABLE_NAME, CONSTRAINT_NAME, UPDATE_RULE, DELETE_RULE
		FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA IN %s`)
	if err != nil {
		return err
	}
	for rrows.Next() {
		var k fkKey
		var onUpdate, onDelete string
		if err := rrows.Scan(&k.db, &k.table, &k.name, &onUpdate, &onDelete); err != nil {
			rrows.Close()
			return fmt.Errorf("read foreign key rules: %w", err)
		}
		rules[k] = [2]string{strings.ToUpper(onUpdate), strings.ToUpper(onDelete)}
	}
	rrows.Close()
	if err := rrows.Err(); err != nil {
		return fmt.Errorf("read foreign key rules: %w", err)
	}
	rows, err := l.query(ctx, "foreign keys", `SELECT TABLE_SCHEMA, TABLE_NAME, CONSTRAINT_NAME,
		COLUMN_NAME, REFERENCED_TABLE_SCHEMA, REFERENCED_TABLE_NAME, REFERENCED_COLUMN_NAME
		FROM information_schema.KEY_COLUMN_USAGE
		WHERE TABLE_SCHEMA IN %s AND REFERENCED_TABLE_NAME IS NOT NULL
		ORDER BY TABLE_SCHEMA, TABLE_NAME, CONSTRAINT_NAME, ORDINAL_POSITION`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var cur *ForeignKey
	var curTable *Table
	flush := func() {
		if cur != nil {
			curTable.ForeignKeys = append(curTable.ForeignKeys, *cur)
			cur = nil
		}
	}
	for rows.Next() {
		var id TableID
		var name, col, refDB, refTable, refCol string
		if err := rows.Scan(&id.Database, &id.Name, &name, &col, &refDB, &refTable, &refCol); err != nil {
			return fmt.Errorf("read foreign keys: %w", err)
		}
		t := byID[id]
		if t == nil {
			continue
		}
		r, ok := rules[fkKey{id.Database, id.Name, name}]
		if !ok {
			continue // not a foreign key constraint after all (as the join required)
		}
		if cur == nil || curTable != t || cur.Name != name {
			flush()
			curTable = t
			cur = &ForeignKey{Name: name, RefDatabase: refDB, RefTable: refTable, OnUpdate: r[0], OnDelete: r[1]}
		}
		cur.Columns = append(cur.Columns, col)
		cur.RefColumns = append(cur.RefColumns, refCol)
	}
	flush()
	return rows.Err()
}

// loadChecks reads CHECK constraints: MariaDB 10.2+ has TABLE_NAME in
// CHECK_CONSTRAINTS, MySQL 8.0.16+ needs TABLE_CONSTRAINTS for it, MySQL 5.7
// has no CHECK constraints. MariaDB's JSON columns are LONGTEXT with a
// json_valid() check: the column is marked IsJSON and the check dropped
// (jsonb enforces validity itself).
func (l *loader) loadChecks(ctx context.Context, byID map[TableID]*Table) error {
	var q string
	switch {
	case l.isCols["CHECK_CONSTRAINTS.TABLE_NAME"]:
		q = `SELECT CONSTRAINT_SCHEMA, TABLE_NAME, CONSTRAINT_NAME, CHECK_CLAUSE
			FROM information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA IN %s
			ORDER BY CONSTRAINT_SCHEMA, TABLE_NAME, CONSTRAINT_NAME`
	case l.isCols["CHECK_CONSTRAINTS.CHECK_CLAUSE"]:
		enforced := ""
		if l.isCols["TABLE_CONSTRAINTS.ENFORCED"] {
			enforced = " AND t.ENFORCED = 'YES'" // NOT ENFORCED checks do not constrain the data
		}
		q = `SELECT t.CONSTRAINT_SCHEMA, t.TABLE_NAME, t.CONSTRAINT_NAME, c.CHECK_CLAUSE
			FROM information_schema.TABLE_CONSTRAINTS t
			JOIN information_schema.CHECK_CONSTRAINTS c
			  ON c.CONSTRAINT_SCHEMA = t.CONSTRAINT_SCHEMA AND c.CONSTRAINT_NAME = t.CONSTRAINT_NAME
			WHERE t.CONSTRAINT_TYPE = 'CHECK' AND t.CONSTRAINT_SCHEMA IN %s` + enforced + `
			ORDER BY t.CONSTRAINT_SCHEMA, t.TABLE_NAME, t.CONSTRAINT_NAME`
	default:
		return nil
	}
	rows, err := l.query(ctx, "check constraints", q)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id TableID
		var name, clause string
		if err := rows.Scan(&id.Database, &id.Name, &name, &clause); err != nil {
			return fmt.Errorf("read check constraints: %w", err)
		}
		t := byID[id]
		if t == nil {
			continue
		}
		// MariaDB names a column-level check after its column; its JSON
		// alias is one. A RENAME COLUMN keeps the check's name (the old
		// column's) and renames the column in its clause: a check named
		// after no column of the table on a utf8mb4_bin LONGTEXT, MariaDB's
		// JSON definition, is the alias too.
		if col := JSONValidColumn(clause); col != "" && (strings.EqualFold(col, name) || jsonAliasRenamed(t, col, name)) {
			if c := t.Column(col); c != nil && c.DataType == "longtext" {
				c.IsJSON = true
				continue
			}
		}
		t.Checks = append(t.Checks, Check{Name: name, Expr: CanonicalExpr(clause)})
	}
	return rows.Err()
}

// JSONValidColumn returns the column name when a CHECK clause is exactly
// json_valid(`col`), the constraint MariaDB adds for its JSON alias.
func JSONValidColumn(clause string) string {
	e, err := ParseExpr(clause)
	if err != nil {
		return ""
	}
	return jsonValidColumn(e)
}

func jsonValidColumn(e sqlparser.Expr) string {
	j, ok := e.(*sqlparser.JSONAttributesExpr)
	if !ok || j.Type != sqlparser.ValidAttributeType || j.Path != nil {
		return ""
	}
	col, ok := j.JSONDoc.(*sqlparser.ColName)
	if !ok || !col.Qualifier.IsEmpty() {
		return ""
	}
	return col.Name.String()
}

// jsonAliasRenamed says whether the check name of json_valid(`col`) is
// that of a column renamed to col: no column has the name, and col is
// MariaDB's JSON definition (LONGTEXT utf8mb4_bin).
func jsonAliasRenamed(t *Table, col, checkName string) bool {
	c := t.Column(col)
	return t.Column(checkName) == nil && c != nil && strings.EqualFold(c.Collation, "utf8mb4_bin")
}
