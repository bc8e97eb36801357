package binlog

import (
	"context"
	"testing"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
)

// TestFoldReplaceAcrossFragments: on a source with foreign keys in the SQL
// layer, a DELETE and the next event's INSERT of the same key become one
// UPDATE even when the buffer is full (the fragment is emitted after the
// fold, never between the two), other pairs stay as they are, and the
// fragments count the changes as decoded (what a reconnect skips).
func TestFoldReplaceAcrossFragments(t *testing.T) {
	tbl := &schema.Table{TableID: schema.TableID{Database: "d", Name: "p"},
		Columns: []schema.Column{{Name: "id"}, {Name: "v"}}, PrimaryKey: []string{"id"}}
	other := &schema.Table{TableID: schema.TableID{Database: "d", Name: "q"},
		Columns: []schema.Column{{Name: "id"}, {Name: "v"}}, PrimaryKey: []string{"id"}}
	del := func(t *schema.Table, id int32, v string) model.RowChange {
		return model.RowChange{Op: model.Delete, Table: t, Before: []any{id, v}}
	}
	ins := func(t *schema.Table, id int32, v string) model.RowChange {
		return model.RowChange{Op: model.Insert, Table: t, After: []any{id, v}}
	}
	for _, sqlFKs := range []bool{true, false} {
		out := make(chan *model.Txn, 16)
		s := &Stream{out: out, txn: &openTxn{}}
		s.cfg.Info.SQLForeignKeys = sqlFKs
		s.cfg.FragmentBytes = 1 // every add with a full buffer emits a fragment first
		ctx := context.Background()
		for _, ev := range [][]model.RowChange{
			{del(tbl, 1, "a")},
			{ins(tbl, 1, "a2"), ins(tbl, 3, "c")}, // folds into the delete; 3 is new
			{del(tbl, 2, "b")},
			{ins(tbl, 5, "e")},   // another key: not folded
			{del(other, 7, "g")}, // another table's insert of the same key: not folded
			{ins(tbl, 7, "g")},
		} {
			if err := s.add(ctx, ev, 100); err != nil {
				t.Fatal(err)
			}
		}
		close(out)
		var got []string
		for f := range out {
			for _, c := range f.Changes {
				got = append(got, c.Table.Name+" "+c.Op.String())
			}
		}
		for _, c := range s.txn.changes {
			got = append(got, c.Table.Name+" "+c.Op.String())
		}
		want := []string{"p update", "p insert", "p delete", "p insert", "q delete", "p insert"}
		if !sqlFKs {
			want = []string{"p delete", "p insert", "p insert", "p delete", "p insert", "q delete", "p insert"}
		}
		if len(got) != len(want) {
			t.Fatalf("SQLForeignKeys=%v: changes %v, want %v", sqlFKs, got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("SQLForeignKeys=%v: changes %v, want %v", sqlFKs, got, want)
			}
		}
		if emitted, decoded := s.txn.emitted+len(s.txn.changes)+s.txn.folded, s.txn.seen; emitted != decoded || decoded != 7 {
			t.Errorf("SQLForeignKeys=%v: %d changes accounted for, %d decoded (want 7)", sqlFKs, emitted, decoded)
		}
	}
}
