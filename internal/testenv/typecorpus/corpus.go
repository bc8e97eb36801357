// Package typecorpus is the test data of the type tests: one table with a
// column of every MySQL/MariaDB type family and its edge values, each with
// the text PostgreSQL shows once sluice has converted it. The typemap
// round trip, the snapshot's every-type test and the binlog and replicate
// every-type tests all write this one table, so a value added here is
// tested on every path.
package typecorpus

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// Null is the text of a NULL in Column.Values and in what tests read back.
const Null = "NULL"

// Rows is the number of rows Insert writes (ids 1..Rows); it is the length
// of the longest Values list.
const Rows = 4

// Column is one source column and its edge values.
type Column struct {
	Name, DDL string
	// Values holds for row id 1, 2, ... the SQL literal inserted and the
	// text PostgreSQL shows for the converted value: col::text, host(col)
	// for the inet columns, Null for NULL. Rows beyond the list hold NULL.
	// A generated column has no literal (""): the server computes it.
	Values [][2]string
	// PostGIS holds, for the geometry column, encode(ST_AsEWKB(col), 'hex')
	// per row when the target has PostGIS (the column is bytea otherwise).
	PostGIS []string
}

// Generated reports whether the server computes the column's values.
func (c Column) Generated() bool { return strings.Contains(c.DDL, " AS (") }

// SQL is the literal inserted into row index r (id r+1): NULL beyond the
// values, DEFAULT for a NOT NULL column there.
func (c Column) SQL(r int) string {
	if r < len(c.Values) {
		return c.Values[r][0]
	}
	if strings.Contains(c.DDL, "NOT NULL") {
		return "DEFAULT"
	}
	return Null
}

// PG is the text PostgreSQL shows for row index r (id r+1).
func (c Column) PG(r int) string {
	if r < len(c.Values) {
		return c.Values[r][1]
	}
	return Null
}

// Want is what PGTexts reads for row index r (id r+1): PG, or with postgis
// the PostGIS EWKB hex of the geometry column.
func (c Column) Want(r int, postgis bool) string {
	if c.PostGIS == nil || !postgis {
		return c.PG(r)
	}
	if r < len(c.PostGIS) {
		return c.PostGIS[r]
	}
	return Null
}

// Corpus is a list of columns: Columns, or the part of it a flavor has.
type Corpus []Column

// mariadbOnly names the columns of types only MariaDB has (UUID, INET4, INET6).
var mariadbOnly = map[string]bool{"u": true, "i4": true, "i6": true}

// For is the corpus of a source flavor: every column on MariaDB, without the
// MariaDB-only types on MySQL.
func For(mysql bool) Corpus {
	if !mysql {
		return Columns
	}
	var out Corpus
	for _, c := range Columns {
		if mariadbOnly[c.Name] {
			continue
		}
		if o, ok := mysqlValues[c.Name]; ok {
			c.Values = append([][2]string(nil), c.Values...)
			for r, v := range o {
				c.Values[r] = v
			}
		}
		out = append(out, c)
	}
	return out
}

// Vector is MariaDB 11.7+'s VECTOR(3): 4 bytes per float, little endian. It is in the corpus
// only into a MariaDB target that has the type too (WithVector, testenv.Env.HasVector): the
// type mapping refuses it into PostgreSQL (docs/types.md), MariaDB 10.11 has no such type.
// The second text of a value is HEX(vec), what the source and the target hold.
var Vector = Column{Name: "vec", DDL: "VECTOR(3)", Values: [][2]string{
	{"VEC_FromText('[1.5,2,-3]')", "0000C03F00000040000040C0"},
	{"VEC_FromText('[0.1,-0,65504.5]')", "CDCCCC3D0000008080E07F47"},
	{"VEC_FromText('[0,0,0]')", "000000000000000000000000"},
}}

// WithVector is cs with the Vector column appended when vector is true.
func (cs Corpus) WithVector(vector bool) Corpus {
	if !vector {
		return cs
	}
	return append(append(Corpus(nil), cs...), Vector)
}

// mysqlValues are the rows whose literal or stored value differs on MySQL
// (by column, then row index): the source holds something else there, sluice
// is not involved.
var mysqlValues = map[string]map[int][2]string{
	// MySQL's TIME ends at 838:59:59.000000 (MariaDB's at .999999): .9 is clipped.
	"tm1": {1: {"'838:59:59.9'", "838:59:59"}},
	// MySQL reads WKT of a geographic SRS (4326) as latitude-longitude unless told
	// otherwise; the stored point is then POINT(2 1).
	"g": {0: {"ST_GeomFromText('POINT(1 2)', 4326, 'axis-order=long-lat')", `\xe61000000101000000000000000000f03f0000000000000040`}},
}

// CreateTable is the CREATE TABLE of table: id INT PRIMARY KEY, then one
// column per entry of Columns, in that order.
func CreateTable(table string) string { return Columns.CreateTable(table) }

// Insert is Columns.Insert.
func Insert(table string) string { return Columns.Insert(table) }

// Find is Columns.Find.
func Find(name string) (Column, bool) { return Columns.Find(name) }

// CreateTable is the CREATE TABLE of table: id INT PRIMARY KEY, then one
// column per entry of the corpus, in that order.
func (cs Corpus) CreateTable(table string) string {
	cols := []string{"id INT PRIMARY KEY"}
	for _, c := range cs {
		cols = append(cols, "`"+c.Name+"` "+c.DDL)
	}
	return "CREATE TABLE `" + table + "` (" + strings.Join(cols, ", ") + ") CHARACTER SET utf8mb4"
}

// Insert writes Rows rows of edge values into table. Run it with an empty
// sql_mode (non-strict, this session only): that stores zero dates, the
// invalid ENUM value and out-of-range literals as MySQL does.
func (cs Corpus) Insert(table string) string {
	names := []string{"id"}
	for _, c := range cs {
		if !c.Generated() {
			names = append(names, "`"+c.Name+"`")
		}
	}
	var rows []string
	for r := range Rows {
		vals := []string{fmt.Sprint(r + 1)}
		for _, c := range cs {
			if !c.Generated() {
				vals = append(vals, c.SQL(r))
			}
		}
		rows = append(rows, "("+strings.Join(vals, ", ")+")")
	}
	return "INSERT INTO `" + table + "` (" + strings.Join(names, ", ") + ") VALUES " + strings.Join(rows, ", ")
}

// Find returns the entry named name, or false.
func (cs Corpus) Find(name string) (Column, bool) {
	for _, c := range cs {
		if c.Name == name {
			return c, true
		}
	}
	return Column{}, false
}

// PGBeginner is what PGTexts reads with: a *pgxpool.Pool or a *pgx.Conn.
type PGBeginner interface {
	Begin(ctx context.Context) (pgx.Tx, error)
}

// PGTexts reads column c of every row of table (a quoted, qualified
// PostgreSQL name) and returns its text by id in the form of Column.Want:
// col::text in UTC, host(col) for the inet columns, the EWKB hex of a
// PostGIS geometry, Null for NULL.
func PGTexts(t testing.TB, pg PGBeginner, table string, c Column, postgis bool) map[int]string {
	t.Helper()
	ctx := context.Background()
	expr := pgx.Identifier{c.Name}.Sanitize() + "::text"
	switch {
	case c.PostGIS != nil && postgis:
		expr = "encode(ST_AsEWKB(" + pgx.Identifier{c.Name}.Sanitize() + "), 'hex')"
	case c.Name == "i4" || c.Name == "i6":
		expr = "host(" + pgx.Identifier{c.Name}.Sanitize() + ")" // inet::text appends the netmask
	}
	tx, err := pg.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SET LOCAL TimeZone = 'UTC'"); err != nil {
		t.Fatal(err)
	}
	rows, err := tx.Query(ctx, "SELECT id, "+expr+" FROM "+table)
	if err != nil {
		t.Fatalf("column %s: %v", c.Name, err)
	}
	defer rows.Close()
	got := map[int]string{}
	for rows.Next() {
		var id int
		var v *string
		if err := rows.Scan(&id, &v); err != nil {
			t.Fatalf("column %s: %v", c.Name, err)
		}
		got[id] = Null
		if v != nil {
			got[id] = *v
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("column %s: %v", c.Name, err)
	}
	return got
}
