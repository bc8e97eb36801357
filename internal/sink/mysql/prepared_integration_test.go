package mysql

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/testenv"
)

// preparedTable is a table of every column type the prepared INSERTs take.
func preparedTable(name string) *schema.Table {
	t := &schema.Table{TableID: schema.TableID{Database: "app", Name: name}, PrimaryKey: []string{"id"}, Engine: "InnoDB"}
	for _, c := range []schema.Column{
		{Name: "id", DataType: "int"},
		{Name: "ti", DataType: "tinyint"},
		{Name: "iu", DataType: "int", Unsigned: true},
		{Name: "bu", DataType: "bigint", Unsigned: true},
		{Name: "u8", DataType: "varchar", Charset: "utf8mb4"},
		{Name: "l1", DataType: "char", Charset: "latin1"},
		{Name: "tx", DataType: "text", Charset: "utf8mb4"},
		{Name: "vb", DataType: "varbinary"},
		{Name: "bl", DataType: "blob"},
	} {
		t.Columns = append(t.Columns, c)
	}
	return t
}

const preparedDDL = " (id INT PRIMARY KEY, ti TINYINT, iu INT UNSIGNED, bu BIGINT UNSIGNED, " +
	"u8 VARCHAR(20) CHARACTER SET utf8mb4, l1 CHAR(10) CHARACTER SET latin1, tx TEXT CHARACTER SET utf8mb4, " +
	"vb VARBINARY(20), bl BLOB)"

// preparedRow is row i of the corpus: edge values of every column, NULLs,
// nil and empty byte strings, escapes, 4-byte UTF-8, latin1 bytes.
func preparedRow(i int) []any {
	strs := []any{"plain", []byte("it's \\ \x00 \n \r \x1a"), "😀 ünïcode", []byte{}, []byte(nil), "trailing   ", nil, string([]byte{0xe9, 0xff})}
	ints := []any{int8(-128), int16(127), int32(0), nil, int64(-1), uint8(255)}
	return []any{int32(i), ints[i%len(ints)], []any{int32(-1), uint32(4294967295), int64(7), nil}[i%4],
		[]any{int64(-1), uint64(1 << 63), int64(0), nil}[i%4],
		strs[i%len(strs)], []any{[]byte{0xe9, 'a'}, "b  ", nil, []byte{}}[i%4], strs[(i+3)%len(strs)],
		[]any{[]byte{0, 1, 0xff}, "x", nil, []byte(nil)}[i%4], strs[(i+5)%len(strs)]}
}

func preparedGroup(tv *schema.Table, from, to int, pos uint32) *pipeline.Group {
	g := &pipeline.Group{}
	for i := from; i < to; i++ {
		ch := model.RowChange{Op: model.Insert, Table: tv, After: preparedRow(i)}
		txn := &model.Txn{End: binlogpos.Position{File: "bin.000001", Pos: pos + uint32(i)}, Changes: []model.RowChange{ch}}
		g.Txns = append(g.Txns, txn)
		g.Changes = append(g.Changes, pipeline.Change{RowChange: ch, Txn: txn, Ident: uint64(i), HasIdent: true})
	}
	g.One = func(i int) []pipeline.Change { return g.Changes[i : i+1] }
	return g
}

// TestPreparedInsertsMatchText: a long run of inserts, sent as prepared
// INSERTs and a text tail, stores every value byte for byte as the text
// INSERTs of short runs store them.
func TestPreparedInsertsMatchText(t *testing.T) {
	testenv.MariaDBAndMySQL9(t, testPreparedInsertsMatchText)
}

func testPreparedInsertsMatchText(t *testing.T, env *testenv.Env) {
	f := newFixtureOn(t, env)
	ctx := context.Background()
	f.exec("CREATE TABLE `" + f.name + "`.p" + preparedDDL)
	f.exec("CREATE TABLE `" + f.name + "`.q" + preparedDDL)
	sess := f.session(ctx)
	start := binlogpos.Position{File: "bin.000001", Pos: 4}
	const rows = 1100 // 2 × 512 prepared, 76 as text
	tp := preparedTable("p")
	if _, err := sess.ApplyGroup(ctx, preparedGroup(tp, 0, rows, 1000), start); err != nil {
		t.Fatal(err)
	}
	if len(sess.stmts) != 1 {
		t.Fatalf("%d prepared statements, want 1 (512 rows)", len(sess.stmts))
	}
	// 640 rows more: 512 and 128 prepared.
	if _, err := sess.ApplyGroup(ctx, preparedGroup(tp, rows, rows+640, 5000), start); err != nil {
		t.Fatal(err)
	}
	if len(sess.stmts) != 2 {
		t.Fatalf("%d prepared statements, want 2 (512 and 128 rows)", len(sess.stmts))
	}
	tq := preparedTable("q")
	for from := 0; from < rows+640; from += 100 { // runs of 100 rows: text
		if _, err := sess.ApplyGroup(ctx, preparedGroup(tq, from, min(from+100, rows+640), 10000), start); err != nil {
			t.Fatal(err)
		}
	}
	if len(sess.stmts) != 2 {
		t.Fatalf("%d prepared statements after the short runs, want 2", len(sess.stmts))
	}
	cols := "id, HEX(ti), HEX(iu), HEX(bu), HEX(u8), HEX(l1), HEX(tx), HEX(vb), HEX(bl), ISNULL(u8), ISNULL(vb), ISNULL(bl), ISNULL(ti)"
	sel := func(tb string) []string {
		return f.strings("SELECT CONCAT_WS('|', " + cols + ") FROM `" + f.name + "`." + tb + " ORDER BY id")
	}
	p, q := sel("p"), sel("q")
	if len(p) != rows+640 || len(q) != rows+640 {
		t.Fatalf("%d and %d rows, want %d", len(p), len(q), rows+640)
	}
	for i := range p {
		if p[i] != q[i] {
			t.Fatalf("row %d prepared %s, text %s", i, p[i], q[i])
		}
	}
	// A few values checked outright, not only against the text path.
	if got := f.strings("SELECT HEX(u8) FROM `" + f.name + "`.p WHERE id = 2"); got[0] != strings.ToUpper(fmt.Sprintf("%x", "😀 ünïcode")) {
		t.Errorf("4-byte UTF-8: %s", got[0])
	}
	if got := f.strings("SELECT CONCAT(HEX(bu), '|', HEX(iu), '|', HEX(l1), '|', HEX(vb)) FROM `" + f.name + "`.p WHERE id = 0"); got[0] != "FFFFFFFFFFFFFFFF|FFFFFFFF|E961|0001FF" {
		t.Errorf("unsigned, latin1 and binary values: %s", got[0])
	}
	if got := f.strings("SELECT CONCAT(HEX(u8), '|', ISNULL(u8)) FROM `" + f.name + "`.p WHERE id = 4"); got[0] != "|0" {
		t.Errorf("a nil []byte is the empty string, not NULL: %s", got[0])
	}
	if got := f.strings("SELECT HEX(u8) FROM `" + f.name + "`.p WHERE id = 1"); got[0] != strings.ToUpper(fmt.Sprintf("%x", "it's \\ \x00 \n \r \x1a")) {
		t.Errorf("escapes: %s", got[0])
	}
}

// TestPreparedInsertOfAnExistingRow: a duplicate key in a prepared INSERT
// fails the group, whose one-by-one retry (text) names the row; nothing of
// the group after the failing transaction is applied.
func TestPreparedInsertOfAnExistingRow(t *testing.T) {
	testenv.MariaDBAndMySQL9(t, testPreparedInsertOfAnExistingRow)
}

func testPreparedInsertOfAnExistingRow(t *testing.T, env *testenv.Env) {
	f := newFixtureOn(t, env)
	ctx := context.Background()
	f.exec("CREATE TABLE `" + f.name + "`.p" + preparedDDL)
	f.exec("INSERT INTO `" + f.name + "`.p (id) VALUES (300)")
	sess := f.session(ctx)
	_, err := sess.ApplyGroup(ctx, preparedGroup(preparedTable("p"), 0, 1100, 1000), binlogpos.Position{File: "bin.000001", Pos: 4})
	if err == nil || !strings.Contains(err.Error(), "id=300") || !strings.Contains(err.Error(), "Duplicate") {
		t.Fatalf("duplicate key in a prepared INSERT: %v; want an error naming id=300", err)
	}
	if n := f.count("SELECT COUNT(*) FROM `" + f.name + "`.p"); n != 301 {
		t.Fatalf("%d rows after the refused group, want the 300 before the failing one and the existing one", n)
	}
}

// TestPreparedInsertsFallBackToText: a table with a column the prepared
// INSERTs do not take (DECIMAL), and a run with a value of a type they do
// not take (a float in an integer column), go as text, every row exact.
func TestPreparedInsertsFallBackToText(t *testing.T) {
	testenv.MariaDBAndMySQL9(t, testPreparedInsertsFallBackToText)
}

func testPreparedInsertsFallBackToText(t *testing.T, env *testenv.Env) {
	f := newFixtureOn(t, env)
	ctx := context.Background()
	f.exec("CREATE TABLE `" + f.name + "`.d (id INT PRIMARY KEY, x DECIMAL(10,2))")
	f.exec("CREATE TABLE `" + f.name + "`.p" + preparedDDL)
	sess := f.session(ctx)
	start := binlogpos.Position{File: "bin.000001", Pos: 4}

	td := preparedTable("d")
	td.Columns = []schema.Column{{Name: "id", DataType: "int"}, {Name: "x", DataType: "decimal"}}
	g := preparedGroup(td, 0, 600, 1000)
	for i := range g.Changes {
		g.Changes[i].After = []any{int32(i), fmt.Sprintf("%d.25", i)}
	}
	if _, err := sess.ApplyGroup(ctx, g, start); err != nil {
		t.Fatal(err)
	}
	g = preparedGroup(preparedTable("p"), 0, 600, 2000)
	g.Changes[5].After[1] = float64(3)
	if _, err := sess.ApplyGroup(ctx, g, start); err != nil {
		t.Fatal(err)
	}
	if len(sess.stmts) != 0 {
		t.Fatalf("%d prepared statements, want none", len(sess.stmts))
	}
	if got := f.strings("SELECT CONCAT(COUNT(*), '|', SUM(x)) FROM `" + f.name + "`.d"); got[0] != "600|179850.00" {
		t.Fatalf("decimal table: %s, want 600|179850.00", got[0])
	}
	if got := f.strings("SELECT CONCAT(COUNT(*), '|', SUM(id), '|', (SELECT ti FROM `" + f.name + "`.p WHERE id = 5)) FROM `" + f.name + "`.p"); got[0] != "600|179700|3" {
		t.Fatalf("fallback table: %s, want 600|179700|3", got[0])
	}
}
