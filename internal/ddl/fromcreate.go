package ddl

import (
	"fmt"
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sluice-db/sluice/internal/schema"
)

var parser = sqlparser.NewTestParser()

// parseStatement parses one prepared statement strictly: a statement the
// grammar reads only in part is an error, never half a model.
func parseStatement(sql string) (sqlparser.Statement, error) {
	return parser.ParseStrictDDL(sql)
}

// TableFromCreate parses a CREATE TABLE statement (as written, or as SHOW
// CREATE TABLE prints it) into the Table the information_schema loader
// would produce for the same table: the two must agree field by field.
func (s *Translator) TableFromCreate(stmt, defaultDB string) (*schema.Table, error) {
	pr := prepare(stmt, s.Flavor)
	st, err := parseStatement(pr.sql)
	if err != nil {
		return nil, fmt.Errorf("parse CREATE TABLE: %w", err)
	}
	ct, ok := st.(*sqlparser.CreateTable)
	if !ok {
		return nil, fmt.Errorf("not a CREATE TABLE statement: %T", st)
	}
	if ct.TableSpec == nil {
		return nil, fmt.Errorf("CREATE TABLE %s has no column definitions (LIKE or SELECT)", ct.Table.Name.String())
	}
	return s.tableFromAST(ct, defaultDB)
}

func tableID(n sqlparser.TableName, defaultDB string) schema.TableID {
	db := n.Qualifier.String()
	if db == "" {
		db = defaultDB
	}
	return schema.TableID{Database: db, Name: n.Name.String()}
}

// tableOptions are the CREATE/ALTER TABLE options sluice keeps.
type tableOptions struct {
	engine, charset, collation, comment string
	hasComment                          bool
	autoIncrement                       uint64
}

func readTableOptions(opts sqlparser.TableOptions) tableOptions {
	var o tableOptions
	for _, op := range opts {
		val := op.String
		if op.Value != nil {
			val = op.Value.Val
		}
		name := strings.ToLower(op.Name)
		name = strings.TrimPrefix(name, "default ")
		switch name {
		case "engine":
			o.engine = val
		case "charset", "character set":
			o.charset = val
		case "collate":
			o.collation = val
		case "comment":
			o.comment, o.hasComment = val, true
		case "auto_increment":
			o.autoIncrement, _ = strconv.ParseUint(val, 10, 64)
		}
	}
	return o
}

// tableCharset resolves a table's charset and collation: its own, else its
// database's default.
func (s *Translator) tableCharset(db string, o tableOptions) (string, string, error) {
	cs, coll, err := s.resolveCharset(o.charset, o.collation)
	if err != nil || cs != "" {
		return cs, coll, err
	}
	d, ok := s.Database(db)
	if !ok {
		return "", "", fmt.Errorf("database %s: default character set unknown "+
			"(load it from the source's information_schema.SCHEMATA)", db)
	}
	return normCharset(d.Charset), normCollation(d.Collation), nil
}

func (s *Translator) tableFromAST(ct *sqlparser.CreateTable, defaultDB string) (*schema.Table, error) {
	id := tableID(ct.Table, defaultDB)
	spec := ct.TableSpec
	o := readTableOptions(spec.Options)
	cs, coll, err := s.tableCharset(id.Database, o)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", id, err)
	}
	t := &schema.Table{TableID: id, Engine: o.engine, Collation: coll, Comment: o.comment}
	if t.Engine == "" {
		t.Engine = "InnoDB"
	}
	b := &tableBuilder{t: t, flavor: s.Flavor}
	for i, def := range spec.Columns {
		c, err := s.column(def, i+1, cs, coll)
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", id, err)
		}
		t.Columns = append(t.Columns, c)
		if err := b.columnKey(def); err != nil {
			return nil, fmt.Errorf("table %s: %w", id, err)
		}
	}
	for _, ix := range spec.Indexes {
		if err := b.addIndex(ix); err != nil {
			return nil, fmt.Errorf("table %s: %w", id, err)
		}
	}
	for _, cd := range spec.Constraints {
		if err := b.addConstraint(cd); err != nil {
			return nil, fmt.Errorf("table %s: %w", id, err)
		}
	}
	b.finish()
	if hasAutoIncrement(t) {
		t.AutoIncrement = max(o.autoIncrement, 1)
	}
	return t, nil
}

func hasAutoIncrement(t *schema.Table) bool {
	for _, c := range t.Columns {
		if c.AutoIncrement {
			return true
		}
	}
	return false
}
