package postgres

import (
	"errors"
	"testing"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/schema"
)

// TestApplyUpsertMode: a table in the upsert mode takes an insert over a
// present row (overwritten), an update of an absent row (its after image
// inserted), an update that changes the key of an absent row, and a delete
// of an absent row (nothing), where the exact apply refuses each as a
// divergence; a table beside it, not in the mode, still refuses.
func TestApplyUpsertMode(t *testing.T) {
	f := newFixture(t, 1)
	f.exec(`CREATE TABLE $S.u (id bigint PRIMARY KEY, v text, n int)`,
		`CREATE TABLE $S.e (id bigint PRIMARY KEY, v text)`,
		`INSERT INTO $S.u VALUES (1, 'old', 10), (4, 'gone', 40)`)
	cols := []schema.Column{{Name: "id", DataType: "bigint"}, {Name: "v", DataType: "text", Nullable: true},
		{Name: "n", DataType: "int", Nullable: true}}
	u := &schema.Table{TableID: schema.TableID{Database: f.db, Name: "u"}, Columns: cols, PrimaryKey: []string{"id"}}
	e := &schema.Table{TableID: schema.TableID{Database: f.db, Name: "e"}, Columns: cols[:2], PrimaryKey: []string{"id"}}
	cfg := f.config(1)
	cfg.Sink.Upsert = &pipeline.UpsertTables{}
	cfg.Sink.Upsert.Add(u.TableID)
	txns := withPositions([]*model.Txn{
		{Changes: []model.RowChange{{Op: model.Insert, Table: u, After: []any{int64(1), "new", int32(11)}}}},
		{Changes: []model.RowChange{{Op: model.Update, Table: u, Before: []any{int64(2), "x", int32(0)}, After: []any{int64(2), "upd", int32(22)}}}},
		{Changes: []model.RowChange{{Op: model.Update, Table: u, Before: []any{int64(4), "gone", int32(40)}, After: []any{int64(5), "moved", int32(50)}}}},
		{Changes: []model.RowChange{{Op: model.Update, Table: u, Before: []any{int64(8), "x", int32(0)}, After: []any{int64(9), "keyed", int32(90)}}}},
		{Changes: []model.RowChange{{Op: model.Delete, Table: u, Before: []any{int64(3), "absent", int32(0)}}}},
	}, 1)
	if err := f.run(cfg, txns); err != nil {
		t.Fatal(err)
	}
	equalLists(t, "u", f.dump("u", "id, v, n"), []string{
		rowString(int64(1), "new", int32(11)), rowString(int64(2), "upd", int32(22)),
		rowString(int64(5), "moved", int32(50)), rowString(int64(9), "keyed", int32(90))})
	if st := f.checkpoint(); st == nil || st.Position != pos(5) {
		t.Fatalf("checkpoint %+v, want %v", st, pos(5))
	}

	// The same cases on a table not in the mode are each a divergence.
	for i, ch := range []model.RowChange{
		{Op: model.Update, Table: e, Before: []any{int64(2), "x"}, After: []any{int64(2), "y"}},
		{Op: model.Delete, Table: e, Before: []any{int64(3), "x"}},
	} {
		err := f.run(cfg, withPositions([]*model.Txn{{Changes: []model.RowChange{ch}}}, 10+i))
		if !errors.Is(err, errTargetDiverged) {
			t.Fatalf("%v of an absent row of a table not in the mode: want a divergence, got %v", ch.Op, err)
		}
	}
	if got := f.dump("e", "id, v"); len(got) != 0 {
		t.Fatalf("table e: %v, want no rows", got)
	}
}
