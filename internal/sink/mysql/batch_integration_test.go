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
	s := f.sink()
	if _, _, err := s.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ps, err := s.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer ps.Close()
	sess := ps.(*session)
	start := binlogpos.Position{File: "bin.000001", Pos: 4}

	var g pipeline.Group
	for i, ch := range []model.RowChange{upd(1, 10, 11), upd(2, 20, 21), upd(3, 30, 31), upd(4, 40, 41)} {
		txn := &model.Txn{End: binlogpos.Position{File: "bin.000001", Pos: uint32(100 + i)}, Changes: []model.RowChange{ch}}
		g.Txns = append(g.Txns, txn)
		g.Changes = append(g.Changes, pipeline.Change{RowChange: ch, Txn: txn, Ident: uint64(ch.Before[0].(int32)), HasIdent: true})
	}
	g.One = func(i int) []pipeline.Change { return g.Changes[i : i+1] }
	_, err = sess.ApplyGroup(ctx, &g, start)
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
	s := f.sink()
	if _, _, err := s.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sess, err := s.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
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

// TestUpsertManyUpdatesExactly: where only the primary key is unique, a run
// of updates of distinct rows goes as one INSERT … ON DUPLICATE KEY UPDATE
// (with a no-op update among them, which such a statement would count as
// 1, going alone), without the one-by-one retry, and every value arrives;
// a table with another unique key keeps the joined UPDATE.
func TestUpsertManyUpdatesExactly(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.exec("CREATE TABLE `" + f.name + "`.t (id INT PRIMARY KEY, a INT, b INT, KEY (a))")
	f.exec("INSERT INTO `" + f.name + "`.t VALUES (1, 10, 100), (2, 20, 200), (3, 30, 300), (4, 40, 400), (5, 50, 500)")
	tv := table("id", "a", "b")
	tv.Indexes = []schema.Index{{Name: "a", Columns: []schema.IndexColumn{{Name: "a"}}}}
	upd := func(id, a0, b0, a1, b1 int32) model.RowChange {
		return model.RowChange{Op: model.Update, Table: tv, Before: []any{id, a0, b0}, After: []any{id, a1, b1}}
	}
	changes := []model.RowChange{
		upd(1, 10, 100, 11, 100), upd(2, 20, 200, 20, 201), upd(3, 30, 300, 30, 300), // 3: a no-op
		upd(4, 40, 400, 41, 401), upd(5, 50, 500, 51, 500),
	}
	s := f.sink()
	if _, _, err := s.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ps, err := s.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer ps.Close()
	sess := ps.(*session)
	p, err := sess.plan(tv)
	if err != nil {
		t.Fatal(err)
	}
	if !p.upsertMany {
		t.Fatalf("table with only its primary key unique: upsertMany off")
	}
	uq := table("id", "a")
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
