package verifydb

import (
	"fmt"
	"strings"

	"github.com/sluice-db/sluice/internal/ddl"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/typemap"
)

// How a table is split for comparison.
const (
	// ModeRange: chunks are ranges of the leading key columns whose order is
	// the same in MySQL and PostgreSQL (numbers, temporal types, binary).
	ModeRange = "range"
	// ModeBucket: the key starts with a column whose order differs between
	// the engines (text collations, ENUM, UUID...): rows are grouped by a
	// hash of the key into buckets, compared in one pass per side.
	ModeBucket = "bucket"
	// ModeKeyless: no primary or NOT NULL unique key; the table is compared
	// as a multiset of row hashes.
	ModeKeyless = "keyless"
)

// Plan is everything verify needs to compare one table: the compared
// columns with their expressions and the SQL fragments built from them.
type Plan struct {
	Table   *schema.Table
	conv    *typemap.TableConv
	opts    typemap.Options
	Name    string // db.table, for reports
	Target  string // schema.table, for reports
	MyTable string // quoted `db`.`table`
	PGTable string // quoted "schema"."table"
	TgtMy   string // quoted `db`.`table` of a MySQL target (internal/sink/mysql); "" for PostgreSQL
	Cols    []*NormColumn
	Convs   []*typemap.ColumnConv // parallel to cols
	Key     []int                 // indexes into cols of the key columns, in key order
	rangeN  int                   // leading key columns used for ranges (modeRange)
	Mode    string
	JSON    []int // indexes into cols of JSON columns (compared in Go)

	MyRowText, PGRowText string // '|'-joined normalised non-JSON columns
	myRowFast            string // the same with MySQLFast, for chunk checksums
	myKeyText, pgKeyText string // '|'-joined normalised key columns
	MyKeySel             []string
	pgKeySel             []string

	EstRows, EstBytes int64 // from the source's statistics

	DigestRows int64 // most rows of a chunk compared by digest first; 0 = no digests (digest.go)

	Digest RowDigest // the hash both sides compute (hash.go)
}

// rangeKinds are the kinds whose values sort the same in both engines, so a
// key range selects the same rows on both sides.
var rangeKinds = map[typemap.Kind]bool{
	typemap.KindInt: true, typemap.KindUint64: true, typemap.KindDecimal: true, typemap.KindYear: true,
	typemap.KindDate: true, typemap.KindDateTime: true, typemap.KindTimestamp: true, typemap.KindTime: true,
	typemap.KindBinary: true,
}

// NewTablePlan compiles a table's comparison. pgSchema is the target schema
// (schema.Naming); targetCols are the column names the target table has.
//
// naming gives the target's table and column names (--identifiers,
// --rename) and the columns the target does not have (--exclude-columns),
// which are not compared.
func NewTablePlan(t *schema.Table, m *typemap.Mapper, naming schema.Naming, pgSchema string, targetCols map[string]bool, digest RowDigest) (*Plan, error) {
	conv, err := m.Compile(t)
	if err != nil {
		return nil, err
	}
	p := &Plan{
		Table: t, conv: conv, opts: m.Options(), Digest: digest,
		Name: t.Database + "." + t.Name, Target: pgSchema + "." + naming.Table(t.TableID),
		MyTable: schema.QuoteMySQL(t.Database) + "." + schema.QuoteMySQL(t.Name),
		PGTable: QuotePG(pgSchema) + "." + QuotePG(naming.Table(t.TableID)),
	}
	var missing []string
	// The columns sluice writes: a generated column PostgreSQL computes
	// itself is not compared (each engine derives it from the compared
	// columns); one whose expression could not be translated is a plain
	// column on the target, copied, and compared.
	for _, i := range ddl.WritableColumnsIn(t, naming) {
		cc := conv.Columns[i]
		pgName := naming.Column(t.TableID, cc.Column.Name)
		if !targetCols[pgName] {
			missing = append(missing, pgName)
			continue
		}
		nc, err := NewNormColumn(cc, pgName, p.opts)
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", p.Name, err)
		}
		if nc.IsJSON() {
			p.JSON = append(p.JSON, len(p.Cols))
		}
		p.Cols = append(p.Cols, nc)
		p.Convs = append(p.Convs, cc)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("table %s: target table %s has no column %s (was the schema changed after the snapshot?)",
			p.Name, p.Target, strings.Join(missing, ", "))
	}
	if err := p.pickKey(); err != nil {
		return nil, err
	}
	p.buildSQL()
	p.planDigest()
	return p, nil
}

// pickKey chooses the key (primary key, else a NOT NULL unique key) and the mode.
func (p *Plan) pickKey() error {
	names := p.Table.KeyColumns()
	if len(names) == 0 {
		p.Mode = ModeKeyless
		return nil
	}
	for _, n := range names {
		i := p.colIndex(n)
		if i < 0 {
			return fmt.Errorf("table %s: key column %s is not compared (generated?)", p.Name, n)
		}
		if p.Cols[i].IsJSON() {
			return fmt.Errorf("table %s: key column %s is JSON", p.Name, n)
		}
		p.Key = append(p.Key, i)
	}
	for _, i := range p.Key {
		if !rangeKinds[p.Cols[i].Kind] {
			break
		}
		p.rangeN++
	}
	p.Mode = ModeBucket
	if p.rangeN > 0 {
		p.Mode = ModeRange
	}
	return nil
}

func (p *Plan) colIndex(name string) int {
	for i, c := range p.Cols {
		if strings.EqualFold(c.Name, name) {
			return i
		}
	}
	return -1
}

func (p *Plan) buildSQL() {
	var myRow, myFast, pgRow []string
	for _, c := range p.Cols {
		if c.IsJSON() {
			continue
		}
		myRow = append(myRow, "COALESCE("+c.MySQL+", '"+NullText+"')")
		fast := c.MySQLFast
		if !c.NotNull {
			fast = "COALESCE(" + fast + ", '" + NullText + "')"
		}
		myFast = append(myFast, fast)
		pgRow = append(pgRow, "COALESCE("+c.PG+", '"+NullText+"')")
	}
	p.MyRowText, p.PGRowText = joinText(mysqlDialect, myRow), joinText(pgDialect, pgRow)
	p.myRowFast = mysqlDialect.concat(joinParts(myFast)...)
	var myKey, pgKey []string
	for _, i := range p.Key {
		c := p.Cols[i]
		myKey = append(myKey, "COALESCE("+c.MySQL+", '"+NullText+"')")
		pgKey = append(pgKey, "COALESCE("+c.PG+", '"+NullText+"')")
		p.MyKeySel = append(p.MyKeySel, typemap.SelectExpr(p.Convs[i].Column, schema.QuoteMySQL(c.Name)))
		p.pgKeySel = append(p.pgKeySel, QuotePG(c.PGName))
	}
	p.myKeyText, p.pgKeyText = joinText(mysqlDialect, myKey), joinText(pgDialect, pgKey)
}

// joinText joins column texts with colSep; the result is a binary string on
// MySQL (so ORDER BY and MD5 see bytes) and text on PostgreSQL.
func joinText(d dialect, parts []string) string {
	if len(parts) == 0 {
		return "''"
	}
	return d.bytes(d.concat(joinParts(parts)...))
}

// joinParts puts colSep between the parts.
func joinParts(parts []string) []string {
	if len(parts) == 0 {
		return []string{"''"}
	}
	var args []string
	for i, x := range parts {
		if i > 0 {
			args = append(args, "'"+colSep+"'")
		}
		args = append(args, x)
	}
	return args
}

// SelectExprOf is what the snapshot selects for compared column i, so that
// FromText converts it the same way.
func SelectExprOf(p *Plan, i int) string {
	return typemap.SelectExpr(p.Convs[i].Column, schema.QuoteMySQL(p.Cols[i].Name))
}

// rawSelected reports whether compared column i is read as its raw stored
// bytes (text in a charset other than UTF-8: typemap.SelectExpr casts it to
// BINARY); other text arrives as UTF-8 on sluice's utf8mb4 sessions.
func (p *Plan) rawSelected(i int) bool {
	return SelectExprOf(p, i) == "CAST("+schema.QuoteMySQL(p.Cols[i].Name)+" AS BINARY)"
}
