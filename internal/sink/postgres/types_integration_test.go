package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/typemap"
)

// typeCase is one MySQL column with two distinct values in MySQL's text form.
type typeCase struct {
	col  schema.Column
	a, b string
}

func typeCases() []typeCase {
	c := func(name, dataType, columnType string) schema.Column {
		return schema.Column{Name: name, DataType: dataType, ColumnType: columnType, Nullable: true}
	}
	text := func(col schema.Column, n int64) schema.Column {
		col.Charset, col.Collation, col.CharMaxLength = "utf8mb4", "utf8mb4_general_ci", n
		return col
	}
	dec := c("c_dec", "decimal", "decimal(12,3)")
	dec.Precision, dec.Scale = 12, 3
	bit := c("c_bit", "bit", "bit(10)")
	bit.Precision = 10
	ubig := c("c_ubig", "bigint", "bigint(20) unsigned")
	ubig.Unsigned = true
	dt := c("c_dt", "datetime", "datetime(6)")
	dt.FracDigits = 6
	ts := c("c_ts", "timestamp", "timestamp(3)")
	ts.FracDigits = 3
	tm := c("c_time", "time", "time(6)")
	tm.FracDigits = 6
	enum := text(c("c_enum", "enum", "enum('x','y z')"), 3)
	enum.Elements = []string{"x", "y z"}
	set := text(c("c_set", "set", "set('a','b','c')"), 5)
	set.Elements = []string{"a", "b", "c"}
	js := c("c_json", "json", "json")
	js.IsJSON = true
	bin := c("c_bin", "varbinary", "varbinary(8)")
	bin.CharMaxLength, bin.Charset = 8, "binary"
	return []typeCase{
		{c("c_tiny", "tinyint", "tinyint(4)"), "-128", "127"},
		{c("c_int", "int", "int(11)"), "-2147483648", "7"},
		{c("c_big", "bigint", "bigint(20)"), "-9223372036854775808", "9223372036854775807"},
		{ubig, "18446744073709551615", "0"},
		{dec, "-123456789.125", "0.001"},
		{c("c_float", "float", "float"), "0.1", "3.40282e38"},
		{c("c_double", "double", "double"), "0.1", "-1.7976931348623157e308"},
		{bit, "\x02\x01", "\x00\x00"},
		{c("c_year", "year", "year(4)"), "1901", "2155"},
		{c("c_date", "date", "date"), "1000-01-01", "9999-12-31"},
		{dt, "2024-02-29 23:59:59.999999", "1970-01-01 00:00:00.000001"},
		{ts, "2038-01-19 03:14:07.499", "1970-01-01 00:00:01.000"},
		{tm, "-838:59:59.000000", "12:00:00.000001"},
		{text(c("c_vc", "varchar", "varchar(20)"), 20), "Ünïcødé  ", "plain"},
		{text(c("c_text", "text", "text"), 65535), "long text with 'quotes'", ""},
		{bin, "\x00\x01\xff", "ab"},
		{enum, "y z", ""},
		{set, "a,c", ""},
		{js, `{"k": [1, 2.5, "x"], "n": null}`, `[]`},
	}
}

// convertRow gives one value of each case (chosen by pick) as go-mysql
// decodes it from a row event (what the binlog source emits) and appends them
// to the leading values lead (the columns before the cases' columns). conv
// is unused: the applier converts.
func convertRow(t *testing.T, _ *typemap.TableConv, lead []any, cases []typeCase, pick func(typeCase) string) []any {
	t.Helper()
	out := append([]any(nil), lead...)
	for _, tc := range cases {
		out = append(out, binlogForm(t, tc.col, pick(tc)))
	}
	return out
}

// binlogForm is a value in MySQL's text form as go-mysql's row decoder gives
// it (ParseTime off, decimals as strings, signedness metadata present).
func binlogForm(t *testing.T, col schema.Column, text string) any {
	t.Helper()
	num := func() int64 {
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			t.Fatalf("%s: %v", col.Name, err)
		}
		return n
	}
	switch col.DataType {
	case "tinyint":
		return int8(num())
	case "int":
		return int32(num())
	case "bigint":
		if col.Unsigned {
			u, err := strconv.ParseUint(text, 10, 64)
			if err != nil {
				t.Fatalf("%s: %v", col.Name, err)
			}
			return u
		}
		return num()
	case "year":
		return num()
	case "float", "double":
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			t.Fatalf("%s: %v", col.Name, err)
		}
		if col.DataType == "float" {
			return float32(f)
		}
		return f
	case "bit":
		var n int64
		for _, b := range []byte(text) {
			n = n<<8 | int64(b)
		}
		return n
	case "enum":
		for i, e := range col.Elements {
			if e == text {
				return int64(i + 1)
			}
		}
		return int64(0)
	case "set":
		var mask int64
		for _, m := range strings.Split(text, ",") {
			for i, e := range col.Elements {
				if e == m {
					mask |= 1 << i
				}
			}
		}
		return mask
	case "varbinary", "text", "json":
		return []byte(text)
	}
	return text // decimal, temporal, varchar
}

// TestApplyEveryTypeKeyless writes a keyless table with a column of every
// MySQL type family (values converted by typemap exactly as the binlog
// decoder does), holding two identical rows; it updates one of them and
// deletes the other by their full before image. Matching needs an exact
// equality in PostgreSQL for each type: a mismatch leaves 0 rows affected,
// which apply reports as a divergence.
func TestApplyEveryTypeKeyless(t *testing.T) {
	f := newFixture(t, 2)
	cases := typeCases()
	tbl := &schema.Table{TableID: schema.TableID{Database: f.db, Name: "every"}}
	for i, tc := range cases {
		tc.col.Ordinal = i + 1
		tbl.Columns = append(tbl.Columns, tc.col)
	}
	mapper := typemap.New(typemap.DefaultOptions(), nil)
	conv, err := mapper.Compile(tbl)
	if err != nil {
		t.Fatal(err)
	}
	var defs []string
	for i, cc := range conv.Columns {
		defs = append(defs, fmt.Sprintf("%s %s", schema.QuoteIdent(tbl.Columns[i].Name), cc.PGType))
	}
	f.exec(`CREATE TABLE $S.every (` + strings.Join(defs, ", ") + `)`)
	row := func(pick func(typeCase) string) []any { return convertRow(t, conv, nil, cases, pick) }
	a := row(func(tc typeCase) string { return tc.a })
	a2 := row(func(tc typeCase) string { return tc.a }) // the same values, converted again
	b := row(func(tc typeCase) string { return tc.b })
	txns := withPositions([]*model.Txn{
		{Changes: []model.RowChange{{Op: model.Insert, Table: tbl, After: a}, {Op: model.Insert, Table: tbl, After: a2}}},
		{Changes: []model.RowChange{{Op: model.Update, Table: tbl, Before: a, After: b}}},
		{Changes: []model.RowChange{{Op: model.Delete, Table: tbl, Before: a2}}},
		{Changes: []model.RowChange{{Op: model.Update, Table: tbl, Before: b, After: a}}},
		{Changes: []model.RowChange{{Op: model.Insert, Table: tbl, After: b}}},
		{Changes: []model.RowChange{{Op: model.Delete, Table: tbl, Before: a}}},
	}, 1)
	if err := f.run(f.config(2), txns); err != nil {
		t.Fatal(err)
	}
	var n int
	var json string
	if err := f.pool.QueryRow(context.Background(), `SELECT count(*), min(c_json::text) FROM "`+f.db+`".every`).Scan(&n, &json); err != nil {
		t.Fatal(err)
	}
	if n != 1 || json != "[]" {
		t.Fatalf("want the one row with the b values, got %d rows (json %s)", n, json)
	}
}

// TestApplyEveryTypeUpdateMany updates rows of a keyed table with a column
// of every type family several rows to a statement (UPDATE ... FROM (VALUES
// ...) with a cast per parameter) and compares the result, row text by row
// text, with the same final rows written by plain inserts.
func TestApplyEveryTypeUpdateMany(t *testing.T) {
	f := newFixture(t, 2)
	cases := typeCases()
	mk := func(name string) *schema.Table {
		tbl := &schema.Table{TableID: schema.TableID{Database: f.db, Name: name}, PrimaryKey: []string{"id"},
			Columns: []schema.Column{{Name: "id", DataType: "bigint", ColumnType: "bigint(20)", Ordinal: 1}}}
		for i, tc := range cases {
			tc.col.Ordinal = i + 2
			tbl.Columns = append(tbl.Columns, tc.col)
		}
		return tbl
	}
	upd, want := mk("upd"), mk("want")
	mapper := typemap.New(typemap.DefaultOptions(), nil)
	conv, err := mapper.Compile(upd)
	if err != nil {
		t.Fatal(err)
	}
	var defs []string
	for i, cc := range conv.Columns {
		defs = append(defs, fmt.Sprintf("%s %s", schema.QuoteIdent(upd.Columns[i].Name), cc.PGType))
	}
	f.exec(`CREATE TABLE $S.upd (`+strings.Join(defs, ", ")+`, PRIMARY KEY (id))`,
		`CREATE TABLE $S.want (`+strings.Join(defs, ", ")+`, PRIMARY KEY (id))`)
	row := func(id int64, pick func(typeCase) string) []any { return convertRow(t, conv, []any{id}, cases, pick) }
	a := func(tc typeCase) string { return tc.a }
	b := func(tc typeCase) string { return tc.b }
	var ins, toB, backToA, final []model.RowChange
	for id := int64(1); id <= 6; id++ {
		ins = append(ins, model.RowChange{Op: model.Insert, Table: upd, After: row(id, a)})
		toB = append(toB, model.RowChange{Op: model.Update, Table: upd, Before: row(id, a), After: row(id, b)})
		end := row(id, b)
		if id <= 2 {
			backToA = append(backToA, model.RowChange{Op: model.Update, Table: upd, Before: row(id, b), After: row(id, a)})
			end = row(id, a)
		}
		final = append(final, model.RowChange{Op: model.Insert, Table: want, After: end})
	}
	txns := withPositions([]*model.Txn{{Changes: ins}, {Changes: toB}, {Changes: backToA}, {Changes: final}}, 1)
	cfg := f.config(2)
	cfg.NoCompact = true // keep the updates as they are: 6 rows (4 + 2) then 2
	cfg.GroupRows = 6
	stats, err := f.runStats(cfg, txns)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Retried != 0 {
		t.Fatalf("%d groups were refused and retried one by one", stats.Retried)
	}
	got := f.dump("upd", `"upd"::text`)
	exp := f.dump("want", `"want"::text`)
	if len(got) != 6 || strings.Join(got, "\n") != strings.Join(exp, "\n") {
		t.Fatalf("updated rows differ from the inserted ones:\n got %v\nwant %v", got, exp)
	}
}
