package mysql

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
)

// TestBatchedUpdateOfAMissingRowIsADivergence: updates sent several to a
// round trip still check each statement's found rows: an update of a row
// the target does not hold is a divergence naming that row, both from a
// group (after the source transactions before it) and from a large transaction's batch;
// rows the batch finds are updated exactly.
func TestBatchedUpdateOfAMissingRowIsADivergence(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.exec("CREATE TABLE `" + f.name + "`.t (id INT PRIMARY KEY, a INT)")
	f.exec("INSERT INTO `" + f.name + "`.t VALUES (1, 10), (2, 20), (4, 40)") // 3 is missing
	tv := table("id", "a")
	upd := func(id, from, to int32) model.RowChange {
		return model.RowChange{Op: model.Update, Table: tv, Before: []any{id, from}, After: []any{id, to}}
	}
	sess := f.session(ctx)
	start := binlogpos.Position{File: "bin.000001", Pos: 4}

	var g pipeline.Group
	for i, ch := range []model.RowChange{upd(1, 10, 11), upd(2, 20, 21), upd(3, 30, 31), upd(4, 40, 41)} {
		txn := &model.Txn{End: binlogpos.Position{File: "bin.000001", Pos: uint32(100 + i)}, Changes: []model.RowChange{ch}}
		g.Txns = append(g.Txns, txn)
		g.Changes = append(g.Changes, pipeline.Change{RowChange: ch, Txn: txn, Ident: uint64(ch.Before[0].(int32)), HasIdent: true})
	}
	g.One = func(i int) []pipeline.Change { return g.Changes[i : i+1] }
	_, err := sess.ApplyGroup(ctx, &g, start)
	if err == nil || !strings.Contains(err.Error(), "diverged") || !strings.Contains(err.Error(), "id=3") {
		t.Fatalf("group updating a missing row: %v; want a divergence naming id=3", err)
	}

	// A batch of a large transaction names the row without a retry.
	lt, err := sess.BeginLarge(ctx)
	if err != nil {
		t.Fatal(err)
	}
	err = lt.Write(ctx, g.Changes)
	lt.Rollback()
	if err == nil || !strings.Contains(err.Error(), "diverged") || !strings.Contains(err.Error(), "id=3") ||
		strings.Contains(err.Error(), "one of") {
		t.Fatalf("batch updating a missing row: %v; want a divergence naming id=3 alone", err)
	}
	var sum int
	// The group's one-by-one retry committed the transactions before the
	// failing one (ids 1 and 2), and nothing after it.
	if err := f.admin.QueryRow("SELECT SUM(a) FROM `" + f.name + "`.t").Scan(&sum); err != nil || sum != 11+21+40 {
		t.Fatalf("target sum %d (%v) after the refused writes, want %d", sum, err, 11+21+40)
	}

	// Without the missing row the batch applies, every value exact (as new
	// source transactions: rows 1 and 2 back at their before values, which
	// a multi-row update must find changed).
	f.exec("INSERT INTO `" + f.name + "`.t VALUES (3, 30)")
	f.exec("UPDATE `" + f.name + "`.t SET a = a - 1 WHERE id IN (1, 2)")
	for i, txn := range g.Txns {
		txn.End = binlogpos.Position{File: "bin.000001", Pos: uint32(200 + i)}
	}
	if _, err := sess.ApplyGroup(ctx, &g, start); err != nil {
		t.Fatal(err)
	}
	f.wantRows("id, a", [][]int{{1, 11}, {2, 21}, {3, 31}, {4, 41}})
}

// TestUpdateRunsKeepSourceOrder: a run of updates mixing a unique-key swap
// (through a temporary value, as the source ran it), two updates of one
// row, and updates of distinct rows applies as the source's order did,
// whichever go several to a statement.
func TestUpdateRunsKeepSourceOrder(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.exec("CREATE TABLE `" + f.name + "`.t (id INT PRIMARY KEY, u INT, a INT, UNIQUE KEY (u))")
	f.exec("INSERT INTO `" + f.name + "`.t VALUES (1, 1, 10), (2, 2, 20), (3, 3, 30), (4, 4, 40)")
	tv := table("id", "u", "a")
	tv.Indexes = []schema.Index{{Name: "u", Unique: true, Columns: []schema.IndexColumn{{Name: "u"}}}}
	upd := func(id, u0, a0, u1, a1 int32) model.RowChange {
		return model.RowChange{Op: model.Update, Table: tv, Before: []any{id, u0, a0}, After: []any{id, u1, a1}}
	}
	changes := []model.RowChange{
		upd(3, 3, 30, 3, 31), upd(4, 4, 40, 4, 41), // distinct rows, unique key kept: one statement
		upd(1, 1, 10, 9, 10), upd(2, 2, 20, 1, 20), upd(1, 9, 10, 2, 10), // the swap, one by one
		upd(3, 3, 31, 3, 32), upd(4, 4, 41, 4, 42), upd(3, 3, 32, 3, 33), // row 3 twice: two statements
	}
	sess := f.session(ctx)
	txn := &model.Txn{End: binlogpos.Position{File: "bin.000001", Pos: 100}, Changes: changes}
	g := &pipeline.Group{Txns: []*model.Txn{txn}}
	for _, ch := range changes {
		g.Changes = append(g.Changes, pipeline.Change{RowChange: ch, Txn: txn, Ident: uint64(ch.Before[0].(int32)), HasIdent: true})
	}
	g.One = func(int) []pipeline.Change { t.Fatal("the group was retried one by one"); return nil }
	if _, err := sess.ApplyGroup(ctx, g, binlogpos.Position{File: "bin.000001", Pos: 4}); err != nil {
		t.Fatal(err)
	}
	f.wantRows("id, u, a", [][]int{{1, 2, 10}, {2, 1, 20}, {3, 3, 33}, {4, 4, 42}})
}

// TestUpsertManyUpdatesExactly: where only the primary key is unique and
// it has several columns, a run of updates of distinct rows goes as one
// INSERT … ON DUPLICATE KEY UPDATE (with a no-op update among them, which
// such a statement would count as 1, going alone), without the one-by-one
// retry, and every value arrives; a table with another unique key keeps
// the joined UPDATE.
func TestUpsertManyUpdatesExactly(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.exec("CREATE TABLE `" + f.name + "`.t (id INT, id2 INT, a INT, b INT, PRIMARY KEY (id, id2), KEY (a))")
	f.exec("INSERT INTO `" + f.name + "`.t VALUES (1, 0, 10, 100), (2, 0, 20, 200), (3, 0, 30, 300), (4, 0, 40, 400), (5, 0, 50, 500)")
	tv := table("id", "id2", "a", "b")
	tv.PrimaryKey = []string{"id", "id2"}
	tv.Indexes = []schema.Index{{Name: "a", Columns: []schema.IndexColumn{{Name: "a"}}}}
	upd := func(id, a0, b0, a1, b1 int32) model.RowChange {
		return model.RowChange{Op: model.Update, Table: tv, Before: []any{id, int32(0), a0, b0}, After: []any{id, int32(0), a1, b1}}
	}
	changes := []model.RowChange{
		upd(1, 10, 100, 11, 100), upd(2, 20, 200, 20, 201), upd(3, 30, 300, 30, 300), // 3: a no-op
		upd(4, 40, 400, 41, 401), upd(5, 50, 500, 51, 500),
	}
	sess := f.session(ctx)
	p, err := sess.plan(tv)
	if err != nil {
		t.Fatal(err)
	}
	if !p.upsertMany || p.updateCase {
		t.Fatalf("table with only its two-column primary key unique: upsertMany %v updateCase %v, want the upsert", p.upsertMany, p.updateCase)
	}
	uq := table("id", "id2", "a")
	uq.PrimaryKey = []string{"id", "id2"}
	uq.Indexes = []schema.Index{{Name: "a", Unique: true, Columns: []schema.IndexColumn{{Name: "a"}}}}
	if pu, err := sess.plan(uq); err != nil || pu.upsertMany || !pu.updateMany {
		t.Fatalf("table with a second unique key: upsertMany %v updateMany %v (%v), want the joined UPDATE", pu.upsertMany, pu.updateMany, err)
	}
	txn := &model.Txn{End: binlogpos.Position{File: "bin.000001", Pos: 100}, Changes: changes}
	g := &pipeline.Group{Txns: []*model.Txn{txn}}
	for _, ch := range changes {
		g.Changes = append(g.Changes, pipeline.Change{RowChange: ch, Txn: txn, Ident: uint64(ch.Before[0].(int32)), HasIdent: true})
	}
	g.One = func(int) []pipeline.Change { t.Fatal("the group was retried one by one"); return nil }
	if _, err := sess.ApplyGroup(ctx, g, binlogpos.Position{File: "bin.000001", Pos: 4}); err != nil {
		t.Fatal(err)
	}
	f.wantRows("id, a, b", [][]int{{1, 11, 100}, {2, 20, 201}, {3, 30, 300}, {4, 41, 401}, {5, 51, 500}})
}

// TestCaseUpdateWritesEveryValueExactly: where the primary key is one
// integer column, a run of updates of distinct rows goes as one CASE
// UPDATE (a no-op update among them, values of several kinds: text with
// multi-byte characters, quotes and trailing spaces, DECIMALs of several
// scales, doubles, datetimes, bytes, NULLs), without the one-by-one retry,
// and every value reads back exactly: the columns a row changes, and those
// it keeps (left to the CASE's ELSE, or out of the statement, where no row
// changes them), an ON UPDATE CURRENT_TIMESTAMP column among them, which
// must keep the source's value; a second unique key left unchanged keeps
// the CASE UPDATE.
func TestCaseUpdateWritesEveryValueExactly(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.exec("CREATE TABLE `" + f.name + "`.t (id BIGINT PRIMARY KEY, a INT, s VARCHAR(32) CHARACTER SET utf8mb4, " +
		"d DECIMAL(14,4), x DOUBLE, dt DATETIME(6), bn VARBINARY(8), u INT, ch CHAR(4) CHARACTER SET latin1, " +
		"ts TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6), KEY (a), UNIQUE KEY (u)) ENGINE=InnoDB")
	f.exec("INSERT INTO `" + f.name + "`.t VALUES (1, 10, 'one', 1.5, 0.5, '2020-01-01 00:00:00', x'00', 1, 'p', '2001-01-01'), " +
		"(2, 20, 'two', 2, 1, '2020-01-02 00:00:00', x'01', 2, 'q', '2001-01-01'), (3, 30, 'three', 3, 1.5, '2020-01-03 00:00:00', x'02', 3, 'r', '2001-01-01'), " +
		"(4, 40, 'four', 4, 2, '2020-01-04 00:00:00', x'03', 4, 's', '2001-01-01'), (5, 50, 'fünf', 5, 2.5, '2020-01-05 00:00:00', x'04', 5, 't', '2001-01-01')")
	tv := &schema.Table{TableID: schema.TableID{Database: "app", Name: "t"}, PrimaryKey: []string{"id"}, Engine: "InnoDB",
		Columns: []schema.Column{{Name: "id", DataType: "bigint"}, {Name: "a", DataType: "int"},
			{Name: "s", DataType: "varchar", Charset: "utf8mb4"}, {Name: "d", DataType: "decimal"}, {Name: "x", DataType: "double"},
			{Name: "dt", DataType: "datetime"}, {Name: "bn", DataType: "varbinary", Charset: "binary"}, {Name: "u", DataType: "int"},
			{Name: "ch", DataType: "char", Charset: "latin1"}, {Name: "ts", DataType: "timestamp"}},
		Indexes: []schema.Index{{Name: "a", Columns: []schema.IndexColumn{{Name: "a"}}},
			{Name: "u", Unique: true, Columns: []schema.IndexColumn{{Name: "u"}}}}}
	ts := "2001-01-01 00:00:00.000000"
	rows := map[int64][]any{
		1: {int64(1), int32(10), "one", "1.5000", 0.5, "2020-01-01 00:00:00.000000", []byte{0}, int32(1), "p", ts},
		2: {int64(2), int32(20), "two", "2.0000", 1.0, "2020-01-02 00:00:00.000000", []byte{1}, int32(2), "q", ts},
		3: {int64(3), int32(30), "three", "3.0000", 1.5, "2020-01-03 00:00:00.000000", []byte{2}, int32(3), "r", ts},
		4: {int64(4), int32(40), "four", "4.0000", 2.0, "2020-01-04 00:00:00.000000", []byte{3}, int32(4), "s", ts},
		5: {int64(5), int32(50), "f\xc3\xbcnf", "5.0000", 2.5, "2020-01-05 00:00:00.000000", []byte{4}, int32(5), "t", ts},
	}
	after := map[int64][]any{
		1: {int64(1), int32(11), "é'\\ ", "-12345678.1234", 1e300, "2021-02-03 04:05:06.123456", []byte{0, 0xff, '\''}, int32(1), "\xe9 ", ts},
		2: {int64(2), nil, nil, "7", nil, nil, nil, int32(2), nil, ts},
		3: rows[3], // a no-op
		4: {int64(4), int32(41), "ü  ", "0.0001", -0.1, "1999-12-31 23:59:59.999999", []byte{}, int32(4), "s", ts},
		5: {int64(5), int32(51), "f\xc3\xbcnf", "5.0000", 2.5, "2020-01-05 00:00:00.000000", []byte{4}, int32(5), "t", ts}, // a alone
	}
	sess := f.session(ctx)
	if p, err := sess.plan(tv); err != nil || !p.updateCase {
		t.Fatalf("table with a one-column integer key: updateCase off (%v)", err)
	}
	apply := func(pos uint32, ids []int64, before, after map[int64][]any) {
		t.Helper()
		txn := &model.Txn{End: binlogpos.Position{File: "bin.000001", Pos: pos}}
		g := &pipeline.Group{Txns: []*model.Txn{txn}}
		for _, id := range ids {
			ch := model.RowChange{Op: model.Update, Table: tv, Before: before[id], After: after[id]}
			txn.Changes = append(txn.Changes, ch)
			g.Changes = append(g.Changes, pipeline.Change{RowChange: ch, Txn: txn, Ident: uint64(id), HasIdent: true})
		}
		g.One = func(int) []pipeline.Change { t.Fatal("the group was retried one by one"); return nil }
		if _, err := sess.ApplyGroup(ctx, g, binlogpos.Position{File: "bin.000001", Pos: 4}); err != nil {
			t.Fatal(err)
		}
	}
	apply(100, []int64{1, 2, 3, 4, 5}, rows, after)
	want := []string{
		"1|11|C3A9275C20|-12345678.1234|1e300|2021-02-03 04:05:06.123456|00FF27|1|E9|" + ts,
		"2|NULL|NULL|7.0000|NULL|NULL|NULL|2|NULL|" + ts,
		"3|30|7468726565|3.0000|1.5|2020-01-03 00:00:00.000000|02|3|72|" + ts,
		"4|41|C3BC2020|0.0001|-0.1|1999-12-31 23:59:59.999999||4|73|" + ts,
		"5|51|66C3BC6E66|5.0000|2.5|2020-01-05 00:00:00.000000|04|5|74|" + ts,
	}
	query := "SELECT CONCAT_WS('|', id, IFNULL(a, 'NULL'), IFNULL(HEX(s), 'NULL'), IFNULL(d, 'NULL'), IFNULL(x, 'NULL'), " +
		"IFNULL(dt, 'NULL'), IFNULL(HEX(bn), 'NULL'), u, IFNULL(HEX(ch), 'NULL'), ts) FROM `" + f.name + "`.t ORDER BY id"
	if got := f.strings(query); !slices.Equal(got, want) {
		t.Fatalf("rows after the CASE UPDATE:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Rows whose updates change only columns with an ELSE, each a different
	// one, and rows changed by none: only the changed values move.
	again := map[int64][]any{}
	for id, r := range after {
		again[id] = slices.Clone(r)
	}
	again[3][1] = int32(33)    // a
	again[4][2] = "vier"       // s
	again[5][6] = []byte{9, 9} // bn
	apply(200, []int64{1, 3, 4, 5}, after, again)
	want[2] = "3|33|7468726565|3.0000|1.5|2020-01-03 00:00:00.000000|02|3|72|" + ts
	want[3] = "4|41|76696572|0.0001|-0.1|1999-12-31 23:59:59.999999||4|73|" + ts
	want[4] = "5|51|66C3BC6E66|5.0000|2.5|2020-01-05 00:00:00.000000|0909|5|74|" + ts
	if got := f.strings(query); !slices.Equal(got, want) {
		t.Fatalf("rows after the second CASE UPDATE:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// strings reads the one text column of q's rows.
func (f *fixture) strings(q string) []string {
	f.t.Helper()
	rows, err := f.admin.Query(q)
	if err != nil {
		f.t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			f.t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		f.t.Fatal(err)
	}
	return out
}

// wantRows checks that the integer columns cols of table t, by id, are
// exactly want.
func (f *fixture) wantRows(cols string, want [][]int) {
	f.t.Helper()
	rows, err := f.admin.Query("SELECT " + cols + " FROM `" + f.name + "`.t ORDER BY id")
	if err != nil {
		f.t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		r := make([]int, len(strings.Split(cols, ",")))
		ptrs := make([]any, len(r))
		for i := range r {
			ptrs[i] = &r[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			f.t.Fatal(err)
		}
		if n >= len(want) || !slices.Equal(r, want[n]) {
			f.t.Errorf("row %d: %v, want %v", n, r, want)
		}
		n++
	}
	if n != len(want) {
		f.t.Errorf("%d rows, want %d", n, len(want))
	}
}

// TestCaseUpdateOfUnchangedRows: a run of updates that change no column
// (e.g. `UPDATE t SET a = a` logged with full images) still goes as one
// statement that must find every row: rows kept as they are, and a row
// missing on the target is a divergence naming it.
func TestCaseUpdateOfUnchangedRows(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.exec("CREATE TABLE `" + f.name + "`.t (id INT PRIMARY KEY, a INT)")
	f.exec("INSERT INTO `" + f.name + "`.t VALUES (1, 10), (2, 20), (4, 40)")
	tv := table("id", "a")
	sess := f.session(ctx)
	group := func(pos uint32, ids ...int32) *pipeline.Group {
		txn := &model.Txn{End: binlogpos.Position{File: "bin.000001", Pos: pos}}
		g := &pipeline.Group{Txns: []*model.Txn{txn}}
		for _, id := range ids {
			ch := model.RowChange{Op: model.Update, Table: tv, Before: []any{id, id * 10}, After: []any{id, id * 10}}
			txn.Changes = append(txn.Changes, ch)
			g.Changes = append(g.Changes, pipeline.Change{RowChange: ch, Txn: txn, Ident: uint64(id), HasIdent: true})
		}
		g.One = func(int) []pipeline.Change { return g.Changes }
		return g
	}
	if _, err := sess.ApplyGroup(ctx, group(100, 1, 2, 4), binlogpos.Position{File: "bin.000001", Pos: 4}); err != nil {
		t.Fatal(err)
	}
	f.wantRows("id, a", [][]int{{1, 10}, {2, 20}, {4, 40}})
	_, err := sess.ApplyGroup(ctx, group(200, 1, 3), binlogpos.Position{File: "bin.000001", Pos: 4})
	if err == nil || !strings.Contains(err.Error(), "diverged") || !strings.Contains(err.Error(), "id=3") {
		t.Fatalf("no-op updates of a missing row: %v; want a divergence naming id=3", err)
	}
}
