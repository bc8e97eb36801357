package ddl

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/sqlexpr"
	"github.com/sluice-db/sluice/internal/typemap"
)

// TablePlan is the PostgreSQL DDL for one MySQL table, in the phases the
// snapshot runs it: Create before the data, PostData (indexes, independent of
// each other, may run in parallel) after the table's data, ForeignKeys after
// every table's data, Finish last.
type TablePlan struct {
	Table   *schema.Table
	QName   string // quoted, schema-qualified target table name
	Columns []PlannedColumn
	Create  []string
	// CreateKeyless is Create with the primary key left out of CREATE
	// TABLE, and AddPrimaryKey the ALTER TABLE that adds it ("" for a table
	// without one). The snapshot creates the table keyless, copies the data
	// and then adds the key with the other indexes: a key built once from
	// sorted data costs far less than a btree insert for every copied row
	// (docs/snapshot.md). Replication DDL uses Create.
	CreateKeyless []string
	AddPrimaryKey string
	// PostData creates the unique and secondary indexes (IF NOT EXISTS, so a
	// resumed snapshot can re-run them) and their comments.
	PostData    []string
	ForeignKeys []string
	// Finish moves identity sequences past the copied values and ANALYZEs.
	Finish   []string
	Warnings []string
}

// PlannedColumn is one target column.
type PlannedColumn struct {
	Name   string
	PGType string
	Kind   typemap.Kind
	// Generated is true for GENERATED ALWAYS AS ... STORED columns, which
	// sluice never writes (WritableColumns leaves them out).
	Generated bool
}

// CreateTable plans the PostgreSQL DDL for t. Types come from m.PGType; the
// translation rules are in docs/schema.md. Foreign keys are planned as if the
// referenced table is migrated too; use CreateTables to drop those that are not.
func CreateTable(t *schema.Table, m *typemap.Mapper, n schema.Naming) (*TablePlan, error) {
	p := &TablePlan{Table: t, QName: n.QTable(t.TableID)}
	if err := checkName("table", n.Table(t.TableID), t.TableID.String()); err != nil {
		return nil, fmt.Errorf("table %s: %w", t, err)
	}
	gen := translateGenerated(t, genMapper(m), n)
	var defs, pre, post []string
	for i := range t.Columns {
		c := &t.Columns[i]
		if n.Excluded(t.TableID, c.Name) {
			continue // --exclude-columns: not on the target
		}
		if err := checkName("column", n.Column(t.TableID, c.Name), t.TableID.String()+"."+c.Name); err != nil {
			return nil, fmt.Errorf("table %s: %w", t, err)
		}
		pgType, kind, err := m.PGType(*c)
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", t, err)
		}
		g := gen[i]
		if g.warning != "" {
			p.Warnings = append(p.Warnings, g.warning)
		}
		p.Columns = append(p.Columns, PlannedColumn{Name: n.Column(t.TableID, c.Name), PGType: pgType, Kind: kind, Generated: g.expr != ""})
		def, seq := p.columnDef(c, pgType, g, m, n)
		defs = append(defs, def)
		if seq != "" {
			pre = append(pre, "CREATE SEQUENCE IF NOT EXISTS "+seq+" AS bigint")
			post = append(post, "ALTER SEQUENCE "+seq+" OWNED BY "+p.QName+"."+n.QColumn(t.TableID, c.Name))
		}
	}
	checks := p.checks(m, n)
	keyless := "CREATE TABLE " + p.QName + " (\n  " + strings.Join(append(defs[:len(defs):len(defs)], checks...), ",\n  ") + "\n)"
	if len(t.PrimaryKey) > 0 {
		key := "CONSTRAINT " + q(PrimaryKeyName(n.Table(t.TableID))) + " PRIMARY KEY (" + quoteCols(t, t.PrimaryKey, n) + ")"
		defs = append(defs, key)
		p.AddPrimaryKey = "ALTER TABLE " + p.QName + " ADD " + key
	}
	defs = append(defs, checks...)
	rest := append(append(post, comments(p.QName, t, n)...), onUpdateTrigger(t, m, n)...)
	p.Create = append(append(append(p.Create, pre...), "CREATE TABLE "+p.QName+" (\n  "+strings.Join(defs, ",\n  ")+"\n)"), rest...)
	p.CreateKeyless = append(append(append(p.CreateKeyless, pre...), keyless), rest...)
	for _, ix := range t.Indexes {
		if col := excludedIn(t, ix, n); col != "" {
			p.Warnings = append(p.Warnings, fmt.Sprintf("%s: index %s not created: its column %s is left out by --exclude-columns", t, ix.Name, col))
			continue
		}
		stmts, warn := createIndex(t, ix, m, n)
		p.PostData = append(p.PostData, stmts...)
		if warn != "" {
			p.Warnings = append(p.Warnings, warn)
		}
	}
	for _, fk := range t.ForeignKeys {
		p.ForeignKeys = append(p.ForeignKeys, addForeignKey(p.QName, t, fk, n))
	}
	p.Finish = append(p.Finish, identityFinish(p.QName, t, n)...)
	p.Finish = append(p.Finish, "ANALYZE "+p.QName)
	return p, nil
}

// CreateTables plans every table of a catalog; foreign keys that reference
// a table outside it are left out with a warning.
func CreateTables(tables []*schema.Table, m *typemap.Mapper, n schema.Naming) ([]*TablePlan, error) {
	in := map[schema.TableID]*schema.Table{}
	for _, t := range tables {
		in[t.TableID] = t
	}
	plans := make([]*TablePlan, 0, len(tables))
	for _, t := range tables {
		p, err := CreateTable(t, m, n)
		if err != nil {
			return nil, err
		}
		p.ForeignKeys = p.ForeignKeys[:0]
		for _, fk := range t.ForeignKeys {
			ref := schema.TableID{Database: fk.RefDatabase, Name: fk.RefTable}
			if in[ref] == nil {
				p.Warnings = append(p.Warnings, fmt.Sprintf("%s: foreign key %s references %s, which is not migrated: not created",
					t, fk.Name, ref))
				continue
			}
			create, warn, err := foreignKeyOnTarget(t, in[ref], fk)
			if err != nil {
				return nil, err
			}
			if !create {
				p.Warnings = append(p.Warnings, warn)
				continue
			}
			p.ForeignKeys = append(p.ForeignKeys, addForeignKey(p.QName, t, fk, n))
		}
		plans = append(plans, p)
	}
	return plans, nil
}

// columnDef writes one column definition; seq is the quoted name of a
// sequence the column's default needs (AUTO_INCREMENT on numeric(20,0)).
func (p *TablePlan) columnDef(c *schema.Column, pgType string, g generated, m *typemap.Mapper, n schema.Naming) (def, seq string) {
	def, seq, warn := colDef(p.Table, c, pgType, g, m, n)
	if warn != "" {
		p.Warnings = append(p.Warnings, warn)
	}
	return def, seq
}

// colDef writes a column definition for CREATE TABLE and ADD COLUMN, the
// sequence its AUTO_INCREMENT needs when the type cannot be an identity,
// and a warning when its default was dropped.
func colDef(t *schema.Table, c *schema.Column, pgType string, g generated, m *typemap.Mapper, n schema.Naming) (def, seq, warn string) {
	var b strings.Builder
	b.WriteString(n.QColumn(t.TableID, c.Name) + " " + pgType)
	switch {
	case g.expr != "":
		b.WriteString(" GENERATED ALWAYS AS (" + g.expr + ") STORED")
	case c.AutoIncrement && isIdentityType(pgType):
		b.WriteString(" GENERATED BY DEFAULT AS IDENTITY")
	case c.AutoIncrement:
		seq = n.QName(t.Database, SequenceName(n.Table(t.TableID), n.Column(t.TableID, c.Name)))
		b.WriteString(" DEFAULT nextval(" + sqlexpr.QuotePG(seq) + "::regclass)")
	default:
		expr, dropped := pgDefault(t, c, m)
		if dropped != "" {
			warn = fmt.Sprintf("%s.%s: default dropped: %s", t, c.Name, dropped)
		}
		if expr != "" {
			b.WriteString(" DEFAULT " + expr)
		}
	}
	if !c.Nullable {
		b.WriteString(" NOT NULL")
	}
	return b.String(), seq, warn
}

func isIdentityType(pgType string) bool {
	return pgType == "smallint" || pgType == "integer" || pgType == "bigint"
}

func quoteCols(t *schema.Table, names []string, n schema.Naming) string {
	out := make([]string, len(names))
	for i, name := range names {
		if c := t.Column(name); c != nil {
			name = c.Name // MySQL names are case-insensitive; use the column's spelling
		}
		out[i] = n.QColumn(t.TableID, name)
	}
	return strings.Join(out, ", ")
}

// checks returns the CHECK constraint definitions: the table's own CHECKs
// (translated; untranslatable ones are skipped with a warning) and the
// member checks of ENUM and SET columns.
func (p *TablePlan) checks(m *typemap.Mapper, n schema.Naming) []string {
	t := p.Table
	var defs []string
	for _, ck := range t.Checks {
		if col := excludedMentioned(t, ck.Expr, n); col != "" {
			p.Warnings = append(p.Warnings, fmt.Sprintf("%s: CHECK constraint %s not created: its column %s is left out by --exclude-columns", t, ck.Name, col))
			continue
		}
		e, err := checkExpr(t, m, n, ck.Expr)
		if err != nil {
			p.Warnings = append(p.Warnings, fmt.Sprintf("%s: CHECK constraint %s (%s) not created: %v", t, ck.Name, ck.Expr, err))
			continue
		}
		defs = append(defs, "CONSTRAINT "+q(ConstraintName(n.Ident(ck.Name)))+" CHECK "+parens(e))
	}
	for i := range t.Columns {
		if n.Excluded(t.TableID, t.Columns[i].Name) {
			continue
		}
		if d := memberCheck(t, &t.Columns[i], n); d != "" {
			defs = append(defs, d)
		}
	}
	return defs
}

// memberCheck holds an ENUM column to its members (” included: MySQL
// stores it for invalid values) and a SET column to subsets of its members.
func memberCheck(t *schema.Table, c *schema.Column, n schema.Naming) string {
	if len(c.Elements) == 0 || (c.DataType != "enum" && c.DataType != "set") {
		return ""
	}
	name := n.Column(t.TableID, c.Name)
	members := make([]string, 0, len(c.Elements)+1)
	hasEmpty := false
	for _, e := range c.Elements {
		members = append(members, sqlexpr.QuotePG(e))
		hasEmpty = hasEmpty || e == ""
	}
	if c.DataType == "enum" {
		if !hasEmpty {
			members = append(members, "''")
		}
		return "CONSTRAINT " + q(EnumCheckName(name)) + " CHECK (" + q(name) + " IN (" + strings.Join(members, ", ") + "))"
	}
	return "CONSTRAINT " + q(SetCheckName(name)) + " CHECK (string_to_array(" + q(name) + ", ',') <@ ARRAY[" +
		strings.Join(members, ", ") + "]::text[])"
}

func parens(s string) string {
	if strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") && balanced(s[1:len(s)-1]) {
		return s
	}
	return "(" + s + ")"
}

// balanced reports whether parentheses in s (outside quotes) never close more than they opened.
func balanced(s string) bool {
	depth, inQuote := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\'':
			inQuote = !inQuote
		case inQuote:
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth < 0 {
				return false
			}
		}
	}
	return depth == 0
}

func comments(qname string, t *schema.Table, n schema.Naming) []string {
	var out []string
	if t.Comment != "" {
		out = append(out, "COMMENT ON TABLE "+qname+" IS "+sqlexpr.QuotePG(stripNUL(t.Comment)))
	}
	for _, c := range t.Columns {
		if c.Comment != "" && !n.Excluded(t.TableID, c.Name) {
			out = append(out, "COMMENT ON COLUMN "+qname+"."+n.QColumn(t.TableID, c.Name)+" IS "+sqlexpr.QuotePG(stripNUL(c.Comment)))
		}
	}
	return out
}

func stripNUL(s string) string { return strings.ReplaceAll(s, "\x00", "") }

// identityFinish moves the sequence of an AUTO_INCREMENT column past both
// the largest copied value and the source's next AUTO_INCREMENT value.
func identityFinish(qname string, t *schema.Table, n schema.Naming) []string {
	for _, c := range t.Columns {
		if !c.AutoIncrement || n.Excluded(t.TableID, c.Name) {
			continue
		}
		col := n.Column(t.TableID, c.Name)
		next := int64(1)
		if t.AutoIncrement > 1 && t.AutoIncrement <= 1<<62 {
			next = int64(t.AutoIncrement)
		}
		last := "greatest((SELECT max(" + q(col) + ") FROM " + qname + "), " + strconv.FormatInt(next-1, 10) + ")"
		// setval(seq, v, true) makes v+1 the next value; with no rows and no
		// AUTO_INCREMENT history the next value is 1: setval(seq, 1, false).
		return []string{"SELECT setval(pg_get_serial_sequence(" + sqlexpr.QuotePG(qname) + ", " + sqlexpr.QuotePG(col) + "), " +
			"greatest(" + last + ", 1)::bigint, " + last + " >= 1)"}
	}
	return nil
}

// CreateSchema returns the statement that creates the target schema of a
// source database (idempotent).
func CreateSchema(db string, n schema.Naming) string {
	return "CREATE SCHEMA IF NOT EXISTS " + n.QSchema(db)
}
