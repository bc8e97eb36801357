package ddl

import (
	"fmt"
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sluice-db/sluice/internal/schema"
)

// tableBuilder collects keys and constraints of a parsed table and names the
// unnamed ones the way the server does.
type tableBuilder struct {
	t      *schema.Table
	flavor string
	// pendingFKs need an index; InnoDB adds one when no index starts with
	// the FK's columns (decided in finish, after all explicit indexes).
	pendingFKs []pendingFK
}

type pendingFK struct {
	columns   []string
	indexName string
}

// columnKey handles column-level PRIMARY KEY, KEY and UNIQUE.
func (b *tableBuilder) columnKey(def *sqlparser.ColumnDefinition) error {
	o := def.Type.Options
	if o == nil {
		return nil
	}
	name := def.Name.String()
	switch o.KeyOpt {
	case sqlparser.ColKeyPrimary, sqlparser.ColKey: // a column-level KEY means PRIMARY KEY
		b.t.PrimaryKey = []string{name}
	case sqlparser.ColKeyUnique, sqlparser.ColKeyUniqueKey:
		b.t.Indexes = append(b.t.Indexes, schema.Index{Name: b.uniqueIndexName(name), Unique: true, Kind: "BTREE",
			Columns: []schema.IndexColumn{{Name: name}}})
	}
	if fk := columnReference(def); fk != nil {
		return b.addForeignKey("", fk)
	}
	return nil
}

// columnReference is a column-level REFERENCES as the foreign key MariaDB
// 10.5+ and MySQL 9 make of it (older servers ignored it), or nil.
func columnReference(def *sqlparser.ColumnDefinition) *sqlparser.ForeignKeyDefinition {
	if def.Type.Options == nil || def.Type.Options.Reference == nil {
		return nil
	}
	return &sqlparser.ForeignKeyDefinition{Source: sqlparser.Columns{def.Name}, ReferenceDefinition: def.Type.Options.Reference}
}

// referencesUniqueKey reports whether a foreign key's referenced columns are
// the referenced table's primary key or one of its unique keys (in any
// order, whole columns): PostgreSQL requires that, InnoDB only an index.
func referencesUniqueKey(ref *schema.Table, fk schema.ForeignKey) bool {
	same := func(cols []string) bool {
		if len(cols) != len(fk.RefColumns) {
			return false
		}
		for _, c := range cols {
			if indexOfFold(fk.RefColumns, c) < 0 {
				return false
			}
		}
		return true
	}
	if same(ref.PrimaryKey) {
		return true
	}
	for _, ix := range ref.Indexes {
		if !ix.Unique {
			continue
		}
		var cols []string
		for _, p := range ix.Columns {
			if p.SubPart > 0 || p.Name == "" {
				cols = nil
				break
			}
			cols = append(cols, p.Name)
		}
		if cols != nil && same(cols) {
			return true
		}
	}
	return false
}

func indexOfFold(list []string, s string) int {
	for i, v := range list {
		if strings.EqualFold(v, s) {
			return i
		}
	}
	return -1
}

// foreignKeyOnTarget decides whether a foreign key is created on
// PostgreSQL: not when its referenced columns are no unique key there
// (PostgreSQL refuses it) and it only restricts (the source enforces that);
// an error when it has actions, whose changes the binlog does not carry.
func foreignKeyOnTarget(t, ref *schema.Table, fk schema.ForeignKey) (bool, string, error) {
	if referencesUniqueKey(ref, fk) {
		return true, "", nil
	}
	for _, act := range []string{fk.OnDelete, fk.OnUpdate} {
		switch strings.ToUpper(act) {
		case "", "RESTRICT", "NO ACTION":
		default:
			return false, "", fmt.Errorf("foreign key %s of %s references %s (%s), which is no primary or unique key: "+
				"PostgreSQL cannot hold it, and its %s action changes rows the binlog does not carry",
				fk.Name, t, ref, strings.Join(fk.RefColumns, ", "), act)
		}
	}
	return false, fmt.Sprintf("%s: foreign key %s references %s (%s), which is no primary or unique key: not created "+
		"(PostgreSQL requires one; the source still enforces it)", t, fk.Name, ref, strings.Join(fk.RefColumns, ", ")), nil
}

// keepsForeignKeys reports whether a storage engine enforces foreign keys.
// The others (MyISAM, Aria, MEMORY …) accept FOREIGN KEY and REFERENCES
// clauses, create the index a foreign key needs and drop the constraint.
func keepsForeignKeys(engine string) bool {
	switch strings.ToLower(engine) {
	case "", "innodb", "ndbcluster", "ndb":
		return true
	}
	return false
}

// uniqueIndexName returns base, or base_2, base_3 ... when taken.
func (b *tableBuilder) uniqueIndexName(base string) string {
	name := base
	for n := 2; b.indexNamed(name) != nil || strings.EqualFold(name, "PRIMARY"); n++ {
		name = base + "_" + strconv.Itoa(n)
	}
	return name
}

func (b *tableBuilder) indexNamed(name string) *schema.Index {
	for i := range b.t.Indexes {
		if strings.EqualFold(b.t.Indexes[i].Name, name) {
			return &b.t.Indexes[i]
		}
	}
	return nil
}

// addIndex adds one index definition (PRIMARY KEY goes to PrimaryKey).
func (b *tableBuilder) addIndex(def *sqlparser.IndexDefinition) error {
	ix := schema.Index{Kind: "BTREE"}
	for _, ic := range def.Columns {
		part := schema.IndexColumn{Name: ic.Column.String(), Desc: ic.Direction == sqlparser.DescOrder}
		if ic.Length != nil {
			part.SubPart = *ic.Length
		}
		if ic.Expression != nil {
			part.Name = ""
			part.Expression = schema.FormatExpr(ic.Expression)
		}
		ix.Columns = append(ix.Columns, part)
	}
	for _, opt := range def.Options {
		if strings.EqualFold(opt.Name, "comment") && opt.Value != nil {
			ix.Comment = opt.Value.Val
		}
	}
	switch def.Info.Type {
	case sqlparser.IndexTypePrimary:
		b.t.PrimaryKey = b.t.PrimaryKey[:0]
		for _, c := range ix.Columns {
			b.t.PrimaryKey = append(b.t.PrimaryKey, b.columnName(c.Name))
		}
		return nil
	case sqlparser.IndexTypeUnique:
		ix.Unique = true
	case sqlparser.IndexTypeFullText:
		ix.Kind = "FULLTEXT"
	case sqlparser.IndexTypeSpatial:
		ix.Kind = "SPATIAL"
	}
	name := def.Info.Name.String()
	if name == "" {
		name = def.Info.ConstraintName.String()
	}
	if len(ix.Columns) == 0 {
		return fmt.Errorf("index %s has no columns", name)
	}
	if name == "" {
		base := ix.Columns[0].Name
		if base == "" {
			base = "functional_index"
		}
		name = b.uniqueIndexName(base)
	} else if b.indexNamed(name) != nil {
		return fmt.Errorf("duplicate index name %s", name)
	}
	ix.Name = name
	b.normalizeParts(&ix)
	b.t.Indexes = append(b.t.Indexes, ix)
	return nil
}

// columnName returns the column's own spelling of a (case-insensitive) name.
func (b *tableBuilder) columnName(name string) string {
	if c := b.t.Column(name); c != nil {
		return c.Name
	}
	return name
}

// normalizeParts spells key parts as information_schema.STATISTICS does:
// column names as the column is spelled, no prefix length when the prefix
// covers the whole CHAR/VARCHAR/BINARY/VARBINARY column, none for SPATIAL.
func (b *tableBuilder) normalizeParts(ix *schema.Index) {
	for i := range ix.Columns {
		p := &ix.Columns[i]
		if p.Name == "" {
			continue
		}
		p.Name = b.columnName(p.Name)
		c := b.t.Column(p.Name)
		if c == nil {
			continue
		}
		switch {
		case ix.Kind == "SPATIAL" || ix.Kind == "FULLTEXT":
			p.SubPart = 0
		case (c.DataType == "char" || c.DataType == "varchar" || c.DataType == "binary" ||
			c.DataType == "varbinary") && int64(p.SubPart) >= c.CharMaxLength:
			p.SubPart = 0
		}
	}
}

// addConstraint adds a FOREIGN KEY, CHECK, UNIQUE or PRIMARY KEY constraint.
func (b *tableBuilder) addConstraint(cd *sqlparser.ConstraintDefinition) error {
	switch d := cd.Details.(type) {
	case *sqlparser.ForeignKeyDefinition:
		return b.addForeignKey(cd.Name.String(), d)
	case *sqlparser.CheckConstraintDefinition:
		b.addCheck(cd.Name.String(), d)
		return nil
	}
	return fmt.Errorf("constraint %s: %T not supported", cd.Name.String(), cd.Details)
}

func (b *tableBuilder) addForeignKey(name string, d *sqlparser.ForeignKeyDefinition) error {
	ref := d.ReferenceDefinition
	fk := schema.ForeignKey{Name: name, RefTable: ref.ReferencedTable.Name.String(),
		RefDatabase: ref.ReferencedTable.Qualifier.String(),
		OnDelete:    refAction(ref.OnDelete), OnUpdate: refAction(ref.OnUpdate)}
	if fk.RefDatabase == "" {
		fk.RefDatabase = b.t.Database
	}
	for _, c := range d.Source {
		fk.Columns = append(fk.Columns, b.columnName(c.String()))
	}
	for _, c := range ref.ReferencedColumns {
		fk.RefColumns = append(fk.RefColumns, c.String())
	}
	if len(fk.Columns) != len(fk.RefColumns) || len(fk.Columns) == 0 {
		return fmt.Errorf("foreign key %s: %d columns reference %d", name, len(fk.Columns), len(fk.RefColumns))
	}
	if fk.Name == "" {
		fk.Name = b.nextName(b.t.Name+"_ibfk_", func(n string) bool { return b.fkNamed(n) })
	}
	// MariaDB names the index InnoDB adds after the constraint, else the
	// FOREIGN KEY index_name, else the first column.
	idx := name
	if idx == "" {
		idx = d.IndexName.String()
	}
	if idx == "" {
		idx = fk.Columns[0]
	}
	b.t.ForeignKeys = append(b.t.ForeignKeys, fk)
	b.pendingFKs = append(b.pendingFKs, pendingFK{columns: fk.Columns, indexName: idx})
	return nil
}

func (b *tableBuilder) fkNamed(name string) bool {
	for _, fk := range b.t.ForeignKeys {
		if strings.EqualFold(fk.Name, name) {
			return true
		}
	}
	return false
}

func (b *tableBuilder) checkNamed(name string) bool {
	for _, c := range b.t.Checks {
		if strings.EqualFold(c.Name, name) {
			return true
		}
	}
	return false
}

// nextName returns prefix+n for the smallest n >= 1 not taken.
func (b *tableBuilder) nextName(prefix string, taken func(string) bool) string {
	for n := 1; ; n++ {
		if name := prefix + strconv.Itoa(n); !taken(name) {
			return name
		}
	}
}

func refAction(a sqlparser.ReferenceAction) string {
	switch a {
	case sqlparser.Cascade:
		return "CASCADE"
	case sqlparser.SetNull:
		return "SET NULL"
	case sqlparser.SetDefault:
		return "SET DEFAULT"
	case sqlparser.NoAction:
		return "NO ACTION"
	}
	return "RESTRICT" // MariaDB shows the default as RESTRICT
}

// addCheck adds a CHECK; MariaDB's JSON alias check json_valid(col) marks
// the column IsJSON instead, as the information_schema loader does.
func (b *tableBuilder) addCheck(name string, d *sqlparser.CheckConstraintDefinition) {
	if !d.Enforced {
		return // NOT ENFORCED checks do not constrain data; the loader skips them too
	}
	if col := jsonValidOf(d.Expr); col != "" {
		if c := b.t.Column(col); c != nil && c.DataType == "longtext" && strings.EqualFold(name, c.Name) {
			c.IsJSON = true
			return
		}
	}
	if name == "" {
		prefix := "CONSTRAINT_"
		if b.flavor == "mysql" {
			prefix = b.t.Name + "_chk_"
		}
		name = b.nextName(prefix, b.checkNamed)
	}
	b.t.Checks = append(b.t.Checks, schema.Check{Name: name, Expr: schema.FormatExpr(d.Expr)})
}

func jsonValidOf(e sqlparser.Expr) string {
	return schema.JSONValidColumn(sqlparser.String(e))
}

// finish adds the indexes InnoDB creates for foreign keys, makes primary key
// columns NOT NULL and sorts keys as the loader does.
func (b *tableBuilder) finish() {
	b.finishForeignKeyIndexes()
	if !keepsForeignKeys(b.t.Engine) {
		b.t.ForeignKeys = nil
	}
	for _, name := range b.t.PrimaryKey {
		if c := b.t.Column(name); c != nil {
			c.Nullable = false
		}
	}
	schema.SortKeys(b.t)
}

// finishForeignKeyIndexes adds the indexes InnoDB creates for new foreign keys.
func (b *tableBuilder) finishForeignKeyIndexes() {
	for _, fk := range b.pendingFKs {
		if b.hasIndexStartingWith(fk.columns) {
			continue
		}
		ix := schema.Index{Name: b.uniqueIndexName(fk.indexName), Kind: "BTREE"}
		for _, c := range fk.columns {
			ix.Columns = append(ix.Columns, schema.IndexColumn{Name: c})
		}
		b.t.Indexes = append(b.t.Indexes, ix)
	}
	b.pendingFKs = nil
}

// hasIndexStartingWith reports whether the primary key or an index has cols
// as its leftmost columns (whole columns, no prefixes).
func (b *tableBuilder) hasIndexStartingWith(cols []string) bool {
	starts := func(parts []string) bool {
		if len(parts) < len(cols) {
			return false
		}
		for i, c := range cols {
			if !strings.EqualFold(parts[i], c) {
				return false
			}
		}
		return true
	}
	if starts(b.t.PrimaryKey) {
		return true
	}
	for _, ix := range b.t.Indexes {
		if ix.Kind != "BTREE" {
			continue
		}
		var parts []string
		for _, p := range ix.Columns {
			if p.SubPart > 0 || p.Name == "" {
				break
			}
			parts = append(parts, p.Name)
		}
		if starts(parts) {
			return true
		}
	}
	return false
}
