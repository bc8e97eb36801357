package ddl

import (
	"fmt"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/sqlexpr"
)

// Column positions: PostgreSQL cannot reorder columns, so FIRST and AFTER
// change only the schema model (MySQL's order, which row events follow);
// the target keeps its physical order and every writer addresses columns
// by name.

func (a *alteration) addColumns(o *sqlparser.AddColumns) error {
	for _, def := range o.Columns {
		c, err := a.parseColumn(def)
		if err != nil {
			return err
		}
		if a.t.Column(c.Name) != nil {
			if lowerSet(a.x.pr.ifNotExists, c.Name) {
				continue
			}
			return a.x.unsupported("column %s already exists in sluice's schema history of %s", c.Name, a.t)
		}
		if c.AutoIncrement {
			return a.x.unsupported("ADD COLUMN %s AUTO_INCREMENT: the values MySQL numbered existing rows with "+
				"are not in the binlog", c.Name)
		}
		if c.Default != nil && isVolatileDefault(*c.Default) {
			return a.x.unsupported("ADD COLUMN %s DEFAULT %s: the values MySQL gave existing rows are not in the binlog",
				c.Name, *c.Default)
		}
		a.t.Columns = append(a.t.Columns, c)
		if err := a.place(len(a.t.Columns)-1, o.First, o.After); err != nil {
			return err
		}
		if err := a.emitAddColumn(&c); err != nil {
			return err
		}
		if err := a.columnKeys(def); err != nil {
			return err
		}
	}
	return nil
}

// isVolatileDefault reports defaults that give every existing row a
// different value when a column is added.
func isVolatileDefault(d string) bool {
	for _, f := range []string{"uuid(", "uuid_short(", "rand(", "sysdate("} {
		if strings.Contains(d, f) {
			return true
		}
	}
	return false
}

// emitAddColumn writes ADD COLUMN and what goes with it: the implicit value
// MySQL gives existing rows of a NOT NULL column without default, the ENUM
// or SET member check, the comment.
func (a *alteration) emitAddColumn(c *schema.Column) error {
	m, n := a.x.tr.Mapper, a.x.tr.Naming
	if a.excluded(c.Name) {
		a.x.warn("%s.%s: column not added on the target: --exclude-columns leaves it out", a.t, c.Name)
		return nil
	}
	if err := a.x.checkName("column", n.Column(a.t.TableID, c.Name), a.t.TableID.String()+"."+c.Name); err != nil {
		return a.x.unsupported("%v", err)
	}
	pgType, kind, err := m.PGType(*c)
	if err != nil {
		return a.x.unsupported("%v", err)
	}
	g := translateGenerated(a.t, genMapper(a.x.tr.Mapper), a.x.tr.Naming)[a.t.ColumnIndex(c.Name)]
	if c.GenerationExpr != "" && g.expr == "" && !a.x.tr.ReplayTarget {
		return a.x.unsupported("generated column %s AS (%s): %s, and the values MySQL computed for existing rows "+
			"are not in the binlog", c.Name, c.GenerationExpr, g.reason)
	}
	if g.warning != "" {
		a.x.warn("%s", g.warning)
	}
	// implicit is what existing rows get, when it is not the column's
	// default on the target: MySQL's implicit value of a NOT NULL column,
	// or the source's time for a TIMESTAMP DEFAULT CURRENT_TIMESTAMP.
	implicit, col := "", c
	if !c.Nullable && c.Default == nil && g.expr == "" {
		if implicit, err = a.implicitDefault(c, pgType); err != nil {
			return a.x.unsupported("ADD COLUMN %s NOT NULL without DEFAULT: %v", c.Name, err)
		}
	}
	if c.Default != nil && g.expr == "" {
		fsp, now := schema.IsCurrentTimestamp(*c.Default)
		_, expiry := intervalDefault(*c.Default, kind)
		switch {
		case now && c.DataType == "timestamp":
			if implicit, err = a.x.statementTime(fsp); err != nil {
				return a.x.unsupported("ADD COLUMN %s DEFAULT %s: %v", c.Name, *c.Default, err)
			}
			noDefault := *c
			noDefault.Default = nil
			col = &noDefault
		case now || expiry:
			a.refuseIfRows(fmt.Sprintf("the rows %s held got the source's time in its session's zone for the new column %s "+
				"(DEFAULT %s), which the binlog does not carry", a.t, c.Name, *c.Default))
		}
		if expr, dropped := pgDefault(a.t, c, m); expr == "" && dropped != "" && col == c {
			// Existing rows got the default on the source; on the target
			// they would be NULL (or the ADD fail on NOT NULL).
			return a.x.unsupported("ADD COLUMN %s DEFAULT %s: existing rows get that value on the source, "+
				"and the target cannot compute it (%s)", c.Name, *c.Default, dropped)
		}
	}
	def, _, warn := colDef(a.t, col, pgType, g, m, n)
	if warn != "" {
		a.x.warn("%s", warn)
	}
	if implicit != "" {
		def = strings.TrimSuffix(def, " NOT NULL") + " DEFAULT " + implicit
		if !c.Nullable {
			def += " NOT NULL"
		}
	}
	a.x.emit("ALTER TABLE " + a.qname + " ADD COLUMN " + def)
	switch {
	case col != c:
		a.setDefault(c)
	case implicit != "":
		a.x.emit("ALTER TABLE " + a.qname + " ALTER COLUMN " + a.qc(c.Name) + " DROP DEFAULT")
	}
	if chk := memberCheck(a.t, c, n); chk != "" {
		a.x.emit("ALTER TABLE " + a.qname + " ADD " + chk)
	}
	if c.Comment != "" {
		a.x.emit("COMMENT ON COLUMN " + a.qname + "." + a.qc(c.Name) + " IS " + sqlexpr.QuotePG(stripNUL(c.Comment)))
	}
	a.onUpdate = a.onUpdate || c.OnUpdateCurrentTS
	return nil
}

// refuseIfRows makes the target stop the schema change when the table
// holds rows: reason says what those rows got on the source that the target
// cannot give them. An empty table (a new application's schema) goes on.
func (a *alteration) refuseIfRows(reason string) {
	msg := "sluice: " + reason + "; to skip this statement knowingly, run with --skip-ddl '" + SkipPattern(a.x.stmt) +
		"' and set the column on the target yourself"
	a.x.emit("DO $sluice$ BEGIN IF EXISTS (SELECT 1 FROM " + a.qname + ") THEN RAISE EXCEPTION '%', " + sqlexpr.QuotePG(msg) +
		"; END IF; END $sluice$")
}

// columnKeys handles PRIMARY KEY / UNIQUE written on an added column.
func (a *alteration) columnKeys(def *sqlparser.ColumnDefinition) error {
	o := def.Type.Options
	if o == nil {
		return nil
	}
	cols := []*sqlparser.IndexColumn{{Column: def.Name}}
	switch o.KeyOpt {
	case sqlparser.ColKeyPrimary, sqlparser.ColKey:
		return a.addIndex(&sqlparser.IndexDefinition{Info: &sqlparser.IndexInfo{Type: sqlparser.IndexTypePrimary}, Columns: cols})
	case sqlparser.ColKeyUnique, sqlparser.ColKeyUniqueKey:
		if err := a.addIndex(&sqlparser.IndexDefinition{Info: &sqlparser.IndexInfo{Type: sqlparser.IndexTypeUnique}, Columns: cols}); err != nil {
			return err
		}
	}
	if fk := columnReference(def); fk != nil {
		return a.addConstraint(&sqlparser.ConstraintDefinition{Details: fk})
	}
	return nil
}

// dropColumn removes a column; MySQL removes it from multi-column keys,
// which stay, while PostgreSQL drops such indexes, so they are re-created.
func (a *alteration) dropColumn(name string) error {
	i := a.t.ColumnIndex(name)
	if i < 0 {
		return a.missing("column", name)
	}
	c := a.t.Columns[i]
	a.t.Columns = append(a.t.Columns[:i:i], a.t.Columns[i+1:]...)
	renumber(a.t)
	if !a.excluded(c.Name) {
		a.x.emit("ALTER TABLE " + a.qname + " DROP COLUMN IF EXISTS " + a.qc(c.Name))
	}
	a.onUpdate = a.onUpdate || c.OnUpdateCurrentTS
	if pk := without(a.t.PrimaryKey, c.Name); len(pk) != len(a.t.PrimaryKey) {
		a.t.PrimaryKey = pk
		if len(pk) > 0 {
			a.x.emit("ALTER TABLE " + a.qname + " ADD CONSTRAINT " + q(PrimaryKeyName(a.tname())) +
				" PRIMARY KEY (" + quoteCols(a.t, pk, a.x.tr.Naming) + ")")
		}
	}
	var kept []schema.Index
	for _, ix := range a.t.Indexes {
		var parts []schema.IndexColumn
		for _, p := range ix.Columns {
			if !strings.EqualFold(p.Name, c.Name) {
				parts = append(parts, p)
			}
		}
		switch {
		case len(parts) == len(ix.Columns):
			kept = append(kept, ix)
		case len(parts) > 0:
			ix.Columns = parts
			kept = append(kept, ix)
			a.createIndex(ix)
		}
	}
	a.t.Indexes = kept
	var fks []schema.ForeignKey
	for _, fk := range a.t.ForeignKeys {
		if len(without(fk.Columns, c.Name)) == len(fk.Columns) {
			fks = append(fks, fk)
		}
	}
	a.t.ForeignKeys = fks
	var checks []schema.Check
	for _, ck := range a.t.Checks {
		if !exprMentions(ck.Expr, c.Name) {
			checks = append(checks, ck)
		}
	}
	a.t.Checks = checks
	return nil
}

func without(names []string, name string) []string {
	var out []string
	for _, n := range names {
		if !strings.EqualFold(n, name) {
			out = append(out, n)
		}
	}
	return out
}

// exprMentions reports whether a canonical expression references a column.
func exprMentions(expr, col string) bool {
	e, err := schema.ParseExpr(expr)
	if err != nil {
		return true // cannot tell: treat as dependent
	}
	found := false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if c, ok := n.(*sqlparser.ColName); ok && strings.EqualFold(c.Name.String(), col) {
			found = true
		}
		return !found, nil
	}, e)
	return found
}

// renameExpr renames a column inside a canonical expression.
func renameExpr(expr, from, to string) string {
	e, err := schema.ParseExpr(expr)
	if err != nil {
		return expr
	}
	e = sqlparser.Rewrite(e, func(c *sqlparser.Cursor) bool {
		if col, ok := c.Node().(*sqlparser.ColName); ok && strings.EqualFold(col.Name.String(), from) {
			c.Replace(sqlparser.NewColName(to))
		}
		return true
	}, nil).(sqlparser.Expr)
	return schema.FormatExpr(e)
}

func (a *alteration) renameColumn(from, to string) error {
	i := a.t.ColumnIndex(from)
	if i < 0 {
		if lowerSet(a.x.pr.ifExists, from) {
			return nil
		}
		return a.x.unsupported("column %s is not in sluice's schema history of %s", from, a.t)
	}
	if err := a.x.checkName("column", a.x.tr.Naming.Column(a.t.TableID, to), a.t.TableID.String()+"."+to); err != nil {
		return a.x.unsupported("%v", err)
	}
	if a.excluded(from) != a.excluded(to) {
		return a.x.unsupported("RENAME COLUMN %s TO %s: --exclude-columns names one of them and not the other, "+
			"so the column would have to appear on or vanish from the target", from, to)
	}
	a.renameInModel(a.t.Columns[i].Name, to)
	return nil
}

// renameInModel renames a column everywhere the model names it and on the
// target (PostgreSQL follows the rename in its own indexes and constraints).
func (a *alteration) renameInModel(from, to string) {
	if from == to {
		return
	}
	i := a.t.ColumnIndex(from)
	c := &a.t.Columns[i]
	n := a.x.tr.Naming
	oldName, newName := n.Column(a.t.TableID, c.Name), n.Column(a.t.TableID, to)
	if oldName != newName && !a.excluded(c.Name) {
		a.x.emit("ALTER TABLE " + a.qname + " RENAME COLUMN " + q(oldName) + " TO " + q(newName))
		if c.DataType == "enum" || c.DataType == "set" {
			oldChk, newChk := EnumCheckName(oldName), EnumCheckName(newName)
			if c.DataType == "set" {
				oldChk, newChk = SetCheckName(oldName), SetCheckName(newName)
			}
			a.x.emit("ALTER TABLE " + a.qname + " RENAME CONSTRAINT " + q(oldChk) + " TO " + q(newChk))
		}
	}
	c.Name = to
	a.onUpdate = a.onUpdate || c.OnUpdateCurrentTS
	for j, k := range a.t.PrimaryKey {
		if strings.EqualFold(k, from) {
			a.t.PrimaryKey[j] = to
		}
	}
	for j := range a.t.Indexes {
		for k := range a.t.Indexes[j].Columns {
			if p := &a.t.Indexes[j].Columns[k]; strings.EqualFold(p.Name, from) {
				p.Name = to
			}
		}
	}
	for j := range a.t.ForeignKeys {
		for k, n := range a.t.ForeignKeys[j].Columns {
			if strings.EqualFold(n, from) {
				a.t.ForeignKeys[j].Columns[k] = to
			}
		}
	}
	for j := range a.t.Checks {
		a.t.Checks[j].Expr = renameExpr(a.t.Checks[j].Expr, from, to)
	}
	for j := range a.t.Columns {
		if g := a.t.Columns[j].GenerationExpr; g != "" {
			a.t.Columns[j].GenerationExpr = renameExpr(g, from, to)
		}
	}
	a.retargetColumn(from, to)
}

// retargetColumn renames a referenced column in other tables' foreign keys.
func (a *alteration) retargetColumn(from, to string) {
	for id := range a.work.cur {
		t := a.work.get(id)
		if t == nil || id == a.t.TableID {
			continue
		}
		for i, fk := range t.ForeignKeys {
			if fk.RefDatabase != a.t.Database || fk.RefTable != a.t.Name {
				continue
			}
			for k, rc := range fk.RefColumns {
				if strings.EqualFold(rc, from) {
					if _, mine := a.work.changed[id]; !mine {
						t = cloneTable(t)
						a.work.put(t)
					}
					t.ForeignKeys[i].RefColumns[k] = to
				}
			}
		}
	}
	for i := range a.t.ForeignKeys { // self-references
		fk := &a.t.ForeignKeys[i]
		if fk.RefDatabase == a.t.Database && fk.RefTable == a.t.Name {
			for k, rc := range fk.RefColumns {
				if strings.EqualFold(rc, from) {
					fk.RefColumns[k] = to
				}
			}
		}
	}
}

func (a *alteration) alterColumn(o *sqlparser.AlterColumn) error {
	name := o.Column.Name.String()
	i := a.t.ColumnIndex(name)
	if i < 0 {
		return a.x.unsupported("column %s is not in sluice's schema history of %s", name, a.t)
	}
	c := &a.t.Columns[i]
	if o.Invisible != nil {
		c.Invisible = *o.Invisible
	}
	switch {
	case o.DropDefault:
		c.Default = nil
		if !a.excluded(c.Name) {
			a.x.emit("ALTER TABLE " + a.qname + " ALTER COLUMN " + a.qc(c.Name) + " DROP DEFAULT")
		}
	case o.DefaultVal != nil:
		d, err := canonicalDefault(c, o.DefaultVal)
		if err != nil {
			return a.x.unsupported("%v", err)
		}
		c.Default = d
		a.setDefault(c)
	}
	return nil
}

// setDefault emits SET/DROP DEFAULT for the column's (new) default.
func (a *alteration) setDefault(c *schema.Column) {
	if a.excluded(c.Name) {
		return
	}
	expr, dropped := pgDefault(a.t, c, a.x.tr.Mapper)
	if dropped != "" {
		a.x.warn("%s.%s: default dropped: %s", a.t, c.Name, dropped)
	}
	if expr == "" {
		a.x.emit("ALTER TABLE " + a.qname + " ALTER COLUMN " + a.qc(c.Name) + " DROP DEFAULT")
		return
	}
	a.x.emit("ALTER TABLE " + a.qname + " ALTER COLUMN " + a.qc(c.Name) + " SET DEFAULT " + expr)
}
