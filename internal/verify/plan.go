package verify

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sluice-db/sluice/internal/ddl"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/typemap"
)

// How a table is split for comparison.
const (
	// modeRange: chunks are ranges of the leading key columns whose order is
	// the same in MySQL and PostgreSQL (numbers, temporal types, binary).
	modeRange = "range"
	// modeBucket: the key starts with a column whose order differs between
	// the engines (text collations, ENUM, UUID...): rows are grouped by a
	// hash of the key into buckets, compared in one pass per side.
	modeBucket = "bucket"
	// modeKeyless: no primary or NOT NULL unique key; the table is compared
	// as a multiset of row hashes.
	modeKeyless = "keyless"
)

// tablePlan is everything verify needs to compare one table: the compared
// columns with their expressions and the SQL fragments built from them.
type tablePlan struct {
	table   *schema.Table
	conv    *typemap.TableConv
	opts    typemap.Options
	name    string // db.table, for reports
	target  string // schema.table, for reports
	myTable string // quoted `db`.`table`
	pgTable string // quoted "schema"."table"
	tgtMy   string // quoted `db`.`table` of a MySQL target (target_mysql.go); "" for PostgreSQL
	cols    []*normColumn
	convs   []*typemap.ColumnConv // parallel to cols
	key     []int                 // indexes into cols of the key columns, in key order
	rangeN  int                   // leading key columns used for ranges (modeRange)
	mode    string
	json    []int // indexes into cols of JSON columns (compared in Go)

	myRowText, pgRowText string // '|'-joined normalised non-JSON columns
	myRowFast            string // the same with MySQLFast, for chunk checksums
	myKeyText, pgKeyText string // '|'-joined normalised key columns
	myKeySel             []string
	pgKeySel             []string

	estRows, estBytes int64 // from the source's statistics

	digestRows int64 // most rows of a chunk compared by digest first; 0 = no digests (digest.go)

	digest rowDigest // the hash both sides compute (hash.go)
}

// rangeKinds are the kinds whose values sort the same in both engines, so a
// key range selects the same rows on both sides.
var rangeKinds = map[typemap.Kind]bool{
	typemap.KindInt: true, typemap.KindUint64: true, typemap.KindDecimal: true, typemap.KindYear: true,
	typemap.KindDate: true, typemap.KindDateTime: true, typemap.KindTimestamp: true, typemap.KindTime: true,
	typemap.KindBinary: true,
}

// newTablePlan compiles a table's comparison. pgSchema is the target schema
// (schema.Naming); targetCols are the column names the target table has.
//
// naming gives the target's table and column names (--identifiers,
// --rename) and the columns the target does not have (--exclude-columns),
// which are not compared.
func newTablePlan(t *schema.Table, m *typemap.Mapper, naming schema.Naming, pgSchema string, targetCols map[string]bool, digest rowDigest) (*tablePlan, error) {
	conv, err := m.Compile(t)
	if err != nil {
		return nil, err
	}
	p := &tablePlan{
		table: t, conv: conv, opts: m.Options(), digest: digest,
		name: t.Database + "." + t.Name, target: pgSchema + "." + naming.Table(t.TableID),
		myTable: schema.QuoteMySQL(t.Database) + "." + schema.QuoteMySQL(t.Name),
		pgTable: quotePG(pgSchema) + "." + quotePG(naming.Table(t.TableID)),
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
		nc, err := newNormColumn(cc, pgName, p.opts)
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", p.name, err)
		}
		if nc.isJSON() {
			p.json = append(p.json, len(p.cols))
		}
		p.cols = append(p.cols, nc)
		p.convs = append(p.convs, cc)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("table %s: target table %s has no column %s (was the schema changed after the snapshot?)",
			p.name, p.target, strings.Join(missing, ", "))
	}
	if err := p.pickKey(); err != nil {
		return nil, err
	}
	p.buildSQL()
	p.planDigest()
	return p, nil
}

// pickKey chooses the key (primary key, else a NOT NULL unique key) and the mode.
func (p *tablePlan) pickKey() error {
	names := p.table.KeyColumns()
	if len(names) == 0 {
		p.mode = modeKeyless
		return nil
	}
	for _, n := range names {
		i := p.colIndex(n)
		if i < 0 {
			return fmt.Errorf("table %s: key column %s is not compared (generated?)", p.name, n)
		}
		if p.cols[i].isJSON() {
			return fmt.Errorf("table %s: key column %s is JSON", p.name, n)
		}
		p.key = append(p.key, i)
	}
	for _, i := range p.key {
		if !rangeKinds[p.cols[i].Kind] {
			break
		}
		p.rangeN++
	}
	p.mode = modeBucket
	if p.rangeN > 0 {
		p.mode = modeRange
	}
	return nil
}

func (p *tablePlan) colIndex(name string) int {
	for i, c := range p.cols {
		if strings.EqualFold(c.Name, name) {
			return i
		}
	}
	return -1
}

func (p *tablePlan) buildSQL() {
	var myRow, myFast, pgRow []string
	for _, c := range p.cols {
		if c.isJSON() {
			continue
		}
		myRow = append(myRow, "COALESCE("+c.MySQL+", '"+nullText+"')")
		fast := c.MySQLFast
		if !c.NotNull {
			fast = "COALESCE(" + fast + ", '" + nullText + "')"
		}
		myFast = append(myFast, fast)
		pgRow = append(pgRow, "COALESCE("+c.PG+", '"+nullText+"')")
	}
	p.myRowText, p.pgRowText = joinText(mysqlDialect, myRow), joinText(pgDialect, pgRow)
	p.myRowFast = mysqlDialect.concat(joinParts(myFast)...)
	var myKey, pgKey []string
	for _, i := range p.key {
		c := p.cols[i]
		myKey = append(myKey, "COALESCE("+c.MySQL+", '"+nullText+"')")
		pgKey = append(pgKey, "COALESCE("+c.PG+", '"+nullText+"')")
		p.myKeySel = append(p.myKeySel, typemap.SelectExpr(p.convs[i].Column, schema.QuoteMySQL(c.Name)))
		p.pgKeySel = append(p.pgKeySel, quotePG(c.PGName))
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

// targetColumns returns the column names of a target table, or nil when it
// does not exist.
func targetColumns(ctx context.Context, pool *pgxpool.Pool, schemaName, table string) (map[string]bool, error) {
	rows, err := pool.Query(ctx, `SELECT a.attname FROM pg_attribute a
		JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND c.relname = $2 AND a.attnum > 0 AND NOT a.attisdropped`, schemaName, table)
	if err != nil {
		return nil, fmt.Errorf("target table %s.%s: %w", schemaName, table, err)
	}
	defer rows.Close()
	var cols map[string]bool
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		if cols == nil {
			cols = map[string]bool{}
		}
		cols[n] = true
	}
	return cols, rows.Err()
}

// selectExprOf is what the snapshot selects for compared column i, so that
// FromText converts it the same way.
func selectExprOf(p *tablePlan, i int) string {
	return typemap.SelectExpr(p.convs[i].Column, schema.QuoteMySQL(p.cols[i].Name))
}

// rawSelected reports whether compared column i is read as its raw stored
// bytes (text in a charset other than UTF-8: typemap.SelectExpr casts it to
// BINARY); other text arrives as UTF-8 on sluice's utf8mb4 sessions.
func (p *tablePlan) rawSelected(i int) bool {
	return selectExprOf(p, i) == "CAST("+schema.QuoteMySQL(p.cols[i].Name)+" AS BINARY)"
}
