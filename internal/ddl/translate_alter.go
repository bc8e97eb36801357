package ddl

import (
	"fmt"
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/sqlexpr"
)

// alteration is one ALTER TABLE being translated: t is the new version,
// changed in place clause by clause, while PostgreSQL statements are emitted.
type alteration struct {
	x     *translation
	work  *overlay
	old   *schema.Table
	t     *schema.Table
	qname string
	// onUpdate is set when the ON UPDATE CURRENT_TIMESTAMP trigger must be rebuilt.
	onUpdate bool
	renameTo *schema.TableID
}

func (x *translation) alterTable(s *sqlparser.AlterTable) error {
	id := tableID(s.Table, x.db)
	if !x.inScope(id) {
		x.ignore("table %s is not in scope", id)
		return nil
	}
	old := x.cur[id]
	if old == nil {
		return x.unsupported("table %s is in scope but not in sluice's schema history", id)
	}
	if ps := s.PartitionSpec; ps != nil {
		switch ps.Action {
		case sqlparser.DropAction, sqlparser.TruncateAction, sqlparser.ExchangeAction, sqlparser.DiscardAction,
			sqlparser.ImportAction:
			return x.unsupported("this partition operation removes or replaces rows without row events")
		}
	}
	a := &alteration{x: x, work: newOverlay(x.cur), old: old, t: cloneTable(old), qname: x.tr.Naming.QTable(id)}
	a.work.put(a.t)
	for _, opt := range keyDropsFirst(s.AlterOptions) {
		if err := a.option(opt); err != nil {
			return err
		}
	}
	return a.finish()
}

// keyDropsFirst orders an ALTER's clauses as MySQL applies them: the keys
// it drops go before everything else, whatever their place in the
// statement. So a column MODIFYed NULL next to DROP PRIMARY KEY is nullable
// (the primary key no longer holds it NOT NULL), an ADD PRIMARY KEY or ADD
// UNIQUE KEY may come before the DROP of the key it replaces, and PostgreSQL
// is asked to drop the constraint before the column loses its NOT NULL.
func keyDropsFirst(opts []sqlparser.AlterOption) []sqlparser.AlterOption {
	out := make([]sqlparser.AlterOption, 0, len(opts))
	for _, opt := range opts {
		if _, ok := opt.(*sqlparser.DropKey); ok {
			out = append(out, opt)
		}
	}
	for _, opt := range opts {
		if _, ok := opt.(*sqlparser.DropKey); !ok {
			out = append(out, opt)
		}
	}
	return out
}

func (a *alteration) option(opt sqlparser.AlterOption) error {
	switch o := opt.(type) {
	case *sqlparser.AddColumns:
		return a.addColumns(o)
	case *sqlparser.DropColumn:
		return a.dropColumn(o.Name.Name.String())
	case *sqlparser.ModifyColumn:
		return a.changeColumn(o.NewColDefinition.Name.String(), o.NewColDefinition, o.First, o.After)
	case *sqlparser.ChangeColumn:
		return a.changeColumn(o.OldColumn.Name.String(), o.NewColDefinition, o.First, o.After)
	case *sqlparser.RenameColumn:
		return a.renameColumn(o.OldName.Name.String(), o.NewName.Name.String())
	case *sqlparser.AlterColumn:
		return a.alterColumn(o)
	case *sqlparser.AddIndexDefinition:
		return a.addIndex(o.IndexDefinition)
	case *sqlparser.AddConstraintDefinition:
		return a.addConstraint(o.ConstraintDefinition)
	case *sqlparser.DropKey:
		return a.dropKey(o)
	case *sqlparser.RenameIndex:
		return a.renameIndex(o.OldName.String(), o.NewName.String())
	case *sqlparser.RenameTableName:
		to := tableID(o.Table, a.x.db)
		a.renameTo = &to
		return nil
	case sqlparser.TableOptions:
		return a.tableOptions(o)
	case *sqlparser.AlterCharset:
		return a.convertCharset(o)
	case *sqlparser.AlterCheck:
		if !o.Enforced {
			return a.dropCheck(o.Name.String())
		}
		if a.checkIndex(o.Name.String()) < 0 {
			return a.x.unsupported("ALTER CHECK %s ENFORCED: sluice does not keep NOT ENFORCED checks", o.Name.String())
		}
		return nil
	case sqlparser.AlgorithmValue, *sqlparser.LockOption, *sqlparser.Force, *sqlparser.KeyState,
		*sqlparser.OrderByOption, *sqlparser.Validation, *sqlparser.TablespaceOperation, *sqlparser.AlterIndex:
		return nil // no effect on data or on the PostgreSQL table
	}
	return a.x.unsupported("ALTER TABLE clause %s", sqlparser.String(opt))
}

// finish rebuilds the ON UPDATE trigger when needed, applies a rename and
// moves the new versions into the result.
func (a *alteration) finish() error {
	renumber(a.t)
	schema.SortKeys(a.t)
	if a.onUpdate {
		a.rebuildOnUpdate()
	}
	if a.renameTo != nil && *a.renameTo != a.t.TableID {
		if err := a.x.renameOne(a.work, a.t.TableID, *a.renameTo); err != nil {
			return err
		}
	}
	a.x.finishOverlay(a.work)
	return nil
}

func (a *alteration) rebuildOnUpdate() {
	if stmts := onUpdateTrigger(a.t, a.x.tr.Mapper, a.x.tr.Naming); len(stmts) > 0 {
		a.x.emit(stmts...)
		return
	}
	a.x.emit("DROP TRIGGER IF EXISTS "+q(OnUpdateTrigger)+" ON "+a.qname,
		"DROP FUNCTION IF EXISTS "+a.x.tr.Naming.QName(a.t.Database, OnUpdateFunction(a.tname()))+"()")
}

// qc quotes the target name of a column of the altered table (Naming).
func (a *alteration) qc(name string) string { return a.x.tr.Naming.QColumn(a.t.TableID, name) }

// tname is the target name of the altered table, which derived names
// (indexes, the primary key, sequences) start with.
func (a *alteration) tname() string { return a.x.tr.Naming.Table(a.t.TableID) }

// excluded reports a column --exclude-columns leaves out: its changes have
// nothing to change on the target.
func (a *alteration) excluded(name string) bool { return a.x.tr.Naming.Excluded(a.t.TableID, name) }

// tableCharset returns the table's default charset and collation, for
// columns added without one.
func (a *alteration) tableCharset() (string, string) {
	return charsetOf(a.t.Collation), a.t.Collation
}

// parseColumn converts a column definition of ADD/MODIFY/CHANGE.
func (a *alteration) parseColumn(def *sqlparser.ColumnDefinition) (schema.Column, error) {
	cs, coll := a.tableCharset()
	c, err := a.x.tr.column(def, 0, cs, coll)
	if err != nil {
		return c, a.x.unsupported("%v", err)
	}
	if a.x.pr.jsonColumns[strings.ToLower(c.Name)] {
		c.IsJSON = true
	}
	return c, nil
}

// place moves column i to the FIRST position or after the named column.
func (a *alteration) place(i int, first bool, after *sqlparser.ColName) error {
	if !first && after == nil {
		return nil
	}
	c := a.t.Columns[i]
	cols := append(a.t.Columns[:i:i], a.t.Columns[i+1:]...)
	pos := 0
	if after != nil {
		j := indexOfColumn(cols, after.Name.String())
		if j < 0 {
			return a.x.unsupported("AFTER %s: no such column", after.Name.String())
		}
		pos = j + 1
	}
	cols = append(cols[:pos], append([]schema.Column{c}, cols[pos:]...)...)
	a.t.Columns = cols
	renumber(a.t)
	if pos != i {
		// The history keeps MySQL's order (row events follow it); a
		// PostgreSQL target cannot follow, and a rebuild of the table is
		// too heavy: the replicator reports it (Result.Moved).
		place := "FIRST"
		if after != nil {
			place = "AFTER " + after.Name.String()
		}
		a.x.res.Moved = append(a.x.res.Moved, ColumnMove{Table: a.t.TableID, Column: c.Name, Place: place,
			SourceOrder: columnNamesOf(a.t.Columns)})
	}
	return nil
}

func columnNamesOf(cols []schema.Column) []string {
	out := make([]string, len(cols))
	for i := range cols {
		out[i] = cols[i].Name
	}
	return out
}

func indexOfColumn(cols []schema.Column, name string) int {
	for i := range cols {
		if strings.EqualFold(cols[i].Name, name) {
			return i
		}
	}
	return -1
}

func (a *alteration) tableOptions(opts sqlparser.TableOptions) error {
	o := readTableOptions(opts)
	if o.engine != "" {
		a.t.Engine = o.engine
	}
	if o.hasComment {
		a.t.Comment = o.comment
		if o.comment == "" {
			a.x.emit("COMMENT ON TABLE " + a.qname + " IS NULL")
		} else {
			a.x.emit("COMMENT ON TABLE " + a.qname + " IS " + sqlexpr.QuotePG(stripNUL(o.comment)))
		}
	}
	if o.charset != "" || o.collation != "" {
		cs, coll, err := a.x.tr.resolveCharset(o.charset, o.collation)
		if err != nil {
			return a.x.unsupported("%v", err)
		}
		_ = cs
		a.t.Collation = coll
	}
	if o.autoIncrement > 0 && hasAutoIncrement(a.t) {
		a.t.AutoIncrement = o.autoIncrement
		a.x.emit(identityFinish(a.qname, a.t, a.x.tr.Naming)...)
	}
	return nil
}

// convertCharset follows CONVERT TO CHARACTER SET: every text column takes
// the charset (TEXT types grow when characters get wider, as in MySQL).
// PostgreSQL stores characters, so the target table does not change.
func (a *alteration) convertCharset(o *sqlparser.AlterCharset) error {
	cs, coll, err := a.x.tr.resolveCharset(o.CharacterSet, o.Collate)
	if err != nil {
		return a.x.unsupported("%v", err)
	}
	if cs == "binary" {
		return a.x.unsupported("CONVERT TO CHARACTER SET binary turns text columns into binary ones")
	}
	if _, err := pgEncoding(cs); err != nil && cs != "utf16" && cs != "utf32" && cs != "ucs2" {
		a.x.warn("%s: CONVERT TO CHARACTER SET %s may replace characters %s cannot hold on the source; "+
			"the target keeps them", a.t, cs, cs)
	}
	for i := range a.t.Columns {
		c := &a.t.Columns[i]
		if !schema.IsTextType(c.DataType) {
			continue
		}
		if grow := mbMaxLenOf(cs) > mbMaxLenOf(c.Charset); grow {
			switch c.DataType {
			case "tinytext":
				c.DataType, c.ColumnType, c.CharMaxLength = "text", "text", textMax["text"]
			case "text":
				c.DataType, c.ColumnType, c.CharMaxLength = "mediumtext", "mediumtext", textMax["mediumtext"]
			case "mediumtext":
				c.DataType, c.ColumnType, c.CharMaxLength = "longtext", "longtext", textMax["longtext"]
			}
		}
		c.Charset, c.Collation = cs, coll // JSON columns too (MariaDB does)
	}
	a.t.Collation = coll
	return nil
}

func mbMaxLenOf(cs string) int64 {
	if n, ok := mbMaxLen[cs]; ok {
		return n
	}
	return 1
}

// newBuilder names keys the way tableFromAST does, on the table being altered.
func (a *alteration) newBuilder() *tableBuilder { return &tableBuilder{t: a.t, flavor: a.x.tr.Flavor} }

func (a *alteration) addIndex(def *sqlparser.IndexDefinition) error {
	name := def.Info.Name.String()
	if name != "" && lowerSet(a.x.pr.ifNotExists, name) && a.newBuilder().indexNamed(name) != nil {
		return nil
	}
	if def.Info.Type == sqlparser.IndexTypePrimary {
		if len(a.t.PrimaryKey) > 0 {
			return a.x.unsupported("table %s already has a primary key", a.t)
		}
		if err := a.newBuilder().addIndex(def); err != nil {
			return a.x.unsupported("%v", err)
		}
		for _, c := range a.t.PrimaryKey {
			if col := a.t.Column(c); col != nil {
				if col.Nullable {
					if err := a.zeroDatesNotNull(col); err != nil { // PostgreSQL's PRIMARY KEY sets NOT NULL
						return err
					}
				}
				col.Nullable = false
			}
		}
		for _, c := range a.t.PrimaryKey {
			if a.excluded(c) {
				return a.x.unsupported("ADD PRIMARY KEY on %s.%s, which --exclude-columns leaves out", a.t, c)
			}
		}
		a.x.emit("ALTER TABLE " + a.qname + " ADD CONSTRAINT " + q(PrimaryKeyName(a.tname())) +
			" PRIMARY KEY (" + quoteCols(a.t, a.t.PrimaryKey, a.x.tr.Naming) + ")")
		return nil
	}
	before := len(a.t.Indexes)
	if err := a.newBuilder().addIndex(def); err != nil {
		return a.x.unsupported("%v", err)
	}
	for _, ix := range a.t.Indexes[before:] {
		a.createIndex(ix)
	}
	return nil
}

func (a *alteration) createIndex(ix schema.Index) {
	if col := excludedIn(a.t, ix, a.x.tr.Naming); col != "" {
		a.x.warn("%s: index %s not created: its column %s is left out by --exclude-columns", a.t, ix.Name, col)
		return
	}
	stmts, warn := createIndex(a.t, ix, a.x.tr.Mapper, a.x.tr.Naming)
	a.x.emit(stmts...)
	if warn != "" {
		a.x.warn("%s", warn)
	}
}

func (a *alteration) addConstraint(cd *sqlparser.ConstraintDefinition) error {
	name := cd.Name.String()
	if name != "" && lowerSet(a.x.pr.ifNotExists, name) && (a.fkIndex(name) >= 0 || a.checkIndex(name) >= 0) {
		return nil
	}
	b := a.newBuilder()
	switch d := cd.Details.(type) {
	case *sqlparser.ForeignKeyDefinition:
		before := len(a.t.ForeignKeys)
		if err := b.addForeignKey(name, d); err != nil {
			return a.x.unsupported("%v", err)
		}
		fk := a.t.ForeignKeys[before]
		ixBefore := len(a.t.Indexes)
		b.finishForeignKeyIndexes()
		for _, ix := range a.t.Indexes[ixBefore:] {
			a.createIndex(ix)
		}
		if !keepsForeignKeys(a.t.Engine) {
			a.t.ForeignKeys = a.t.ForeignKeys[:before] // the engine keeps only the index
			return nil
		}
		ref := schema.TableID{Database: fk.RefDatabase, Name: fk.RefTable}
		refTable := a.t
		if ref != a.t.TableID {
			refTable = a.work.get(ref)
		}
		if refTable == nil {
			a.x.warn("%s: foreign key %s references %s, which sluice does not replicate: not created", a.t, fk.Name, ref)
			return nil
		}
		create, warn, err := foreignKeyOnTarget(a.t, refTable, fk)
		if err != nil {
			return a.x.unsupported("%v", err)
		}
		if !create {
			a.x.warn("%s", warn)
			return nil
		}
		for _, c := range fk.Columns {
			if a.excluded(c) {
				return a.x.unsupported("foreign key %s on %s.%s, which --exclude-columns leaves out", fk.Name, a.t, c)
			}
		}
		a.x.emit(addForeignKey(a.qname, a.t, fk, a.x.tr.Naming))
	case *sqlparser.CheckConstraintDefinition:
		return a.addCheck(name, d)
	default:
		return a.x.unsupported("constraint %s (%T)", name, cd.Details)
	}
	return nil
}

func (a *alteration) addCheck(name string, d *sqlparser.CheckConstraintDefinition) error {
	if col := jsonValidOf(d.Expr); col != "" {
		if c := a.t.Column(col); c != nil && c.DataType == "longtext" && strings.EqualFold(name, c.Name) {
			if !c.IsJSON {
				c.IsJSON = true
				if !a.excluded(c.Name) {
					a.x.emit("ALTER TABLE " + a.qname + " ALTER COLUMN " + a.qc(c.Name) + " TYPE jsonb USING " + a.qc(c.Name) + "::jsonb")
				}
			}
			return nil
		}
	}
	before := len(a.t.Checks)
	a.newBuilder().addCheck(name, d)
	if len(a.t.Checks) == before {
		return nil // NOT ENFORCED
	}
	ck := a.t.Checks[before]
	if col := excludedMentioned(a.t, ck.Expr, a.x.tr.Naming); col != "" {
		a.x.warn("%s: CHECK constraint %s not created: its column %s is left out by --exclude-columns", a.t, ck.Name, col)
		return nil
	}
	e, err := checkExpr(a.t, a.x.tr.Mapper, a.x.tr.Naming, ck.Expr)
	if err != nil {
		a.x.warn("%s: CHECK constraint %s (%s) not created: %v", a.t, ck.Name, ck.Expr, err)
		return nil
	}
	a.x.emit("ALTER TABLE " + a.qname + " ADD CONSTRAINT " + q(ConstraintName(a.x.tr.Naming.Ident(ck.Name))) + " CHECK " + parens(e))
	return nil
}

func (a *alteration) fkIndex(name string) int {
	for i, fk := range a.t.ForeignKeys {
		if strings.EqualFold(fk.Name, name) {
			return i
		}
	}
	return -1
}

func (a *alteration) checkIndex(name string) int {
	for i, c := range a.t.Checks {
		if strings.EqualFold(c.Name, name) {
			return i
		}
	}
	return -1
}

func (a *alteration) dropKey(d *sqlparser.DropKey) error {
	name := d.Name.String()
	switch {
	case d.Type == sqlparser.PrimaryKeyType || (d.Type == sqlparser.NormalKeyType && strings.EqualFold(name, "PRIMARY")):
		if len(a.t.PrimaryKey) == 0 {
			return a.x.unsupported("table %s has no primary key to drop", a.t)
		}
		a.t.PrimaryKey = nil
		a.x.emit("ALTER TABLE " + a.qname + " DROP CONSTRAINT IF EXISTS " + q(PrimaryKeyName(a.tname())))
		return nil
	case d.Type == sqlparser.ForeignKeyType:
		return a.dropForeignKey(name)
	case d.Type == sqlparser.CheckKeyType:
		return a.dropCheck(name)
	case d.Type == sqlparser.ConstraintType:
		switch {
		case a.fkIndex(name) >= 0:
			return a.dropForeignKey(name)
		case a.checkIndex(name) >= 0:
			return a.dropCheck(name)
		}
		return a.dropIndex(name)
	}
	return a.dropIndex(name)
}

func (a *alteration) dropIndex(name string) error {
	for i, ix := range a.t.Indexes {
		if strings.EqualFold(ix.Name, name) {
			a.t.Indexes = append(a.t.Indexes[:i:i], a.t.Indexes[i+1:]...)
			a.x.emit("DROP INDEX IF EXISTS " + a.x.tr.Naming.QName(a.t.Database, IndexName(a.tname(), a.x.tr.Naming.Ident(ix.Name))))
			return nil
		}
	}
	return a.missing("index", name)
}

// missing answers a DROP of something sluice's schema history of the table
// does not have: nothing to do under IF EXISTS, an error otherwise.
func (a *alteration) missing(what, name string) error {
	if lowerSet(a.x.pr.ifExists, name) {
		return nil
	}
	return a.x.unsupported("%s %s is not in sluice's schema history of %s", what, name, a.t)
}

func (a *alteration) dropForeignKey(name string) error {
	i := a.fkIndex(name)
	if i < 0 {
		return a.missing("foreign key", name)
	}
	fk := a.t.ForeignKeys[i]
	a.t.ForeignKeys = append(a.t.ForeignKeys[:i:i], a.t.ForeignKeys[i+1:]...)
	a.x.emit("ALTER TABLE " + a.qname + " DROP CONSTRAINT IF EXISTS " + q(ConstraintName(a.x.tr.Naming.Ident(fk.Name))))
	return nil
}

func (a *alteration) dropCheck(name string) error {
	i := a.checkIndex(name)
	if i < 0 {
		return a.missing("CHECK constraint", name)
	}
	ck := a.t.Checks[i]
	a.t.Checks = append(a.t.Checks[:i:i], a.t.Checks[i+1:]...)
	a.x.emit("ALTER TABLE " + a.qname + " DROP CONSTRAINT IF EXISTS " + q(ConstraintName(a.x.tr.Naming.Ident(ck.Name))))
	return nil
}

func (a *alteration) renameIndex(from, to string) error {
	for i, ix := range a.t.Indexes {
		if strings.EqualFold(ix.Name, from) {
			a.t.Indexes[i].Name = to
			n := a.x.tr.Naming
			if o, nw := IndexName(a.tname(), n.Ident(ix.Name)), IndexName(a.tname(), n.Ident(to)); o != nw {
				a.x.emit("ALTER INDEX IF EXISTS " + n.QName(a.t.Database, o) + " RENAME TO " + q(nw))
			}
			return nil
		}
	}
	return a.x.unsupported("index %s is not in sluice's schema history of %s", from, a.t)
}

// implicitDefault is the value MySQL gives existing rows when a NOT NULL
// column without DEFAULT is added, as a PostgreSQL literal.
func (a *alteration) implicitDefault(c *schema.Column, pgType string) (string, error) {
	if a.x.tr.ReplayTarget {
		return "NULL", nil // never run: the target replays the source's statement
	}
	_, kind, err := a.x.tr.Mapper.PGType(*c)
	if err != nil {
		return "", err
	}
	if sqlexpr.Fits(sqlexpr.KindClass(kind), sqlexpr.Num) {
		return "0", nil
	}
	switch c.DataType {
	case "char", "varchar", "tinytext", "text", "mediumtext", "longtext", "set":
		if c.IsJSON {
			break
		}
		return "''", nil
	case "enum":
		if len(c.Elements) > 0 {
			return sqlexpr.QuotePG(c.Elements[0]), nil
		}
	case "binary":
		return `'\x` + strings.Repeat("00", int(c.CharMaxLength)) + `'::bytea`, nil
	case "varbinary", "tinyblob", "blob", "mediumblob", "longblob":
		return `''::bytea`, nil
	case "bit":
		return "B'" + strings.Repeat("0", bitWidthOf(c)) + "'", nil
	case "time":
		return "'00:00:00'", nil
	case "date", "datetime", "timestamp":
		// MySQL writes a zero date, which sluice's zero-date policy turns into
		// -infinity in a NOT NULL column.
		if a.x.tr.Mapper.Options().ZeroDate == "error" {
			return "", fmt.Errorf("existing rows get the zero date, and --zero-date=error")
		}
		return "'-infinity'", nil
	case "uuid":
		return "'00000000-0000-0000-0000-000000000000'", nil
	case "inet6":
		return "'::'", nil
	case "inet4":
		return "'0.0.0.0'", nil
	}
	return "", fmt.Errorf("no implicit value of type %s (%s) for existing rows", c.ColumnType, pgType)
}

func itoa(n int) string { return strconv.Itoa(n) }
