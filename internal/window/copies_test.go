package window

import (
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
)

func table(name string, cols ...schema.Column) *schema.Table {
	return &schema.Table{TableID: schema.TableID{Database: "shop", Name: name}, Columns: cols, PrimaryKey: []string{cols[0].Name}}
}

var (
	idCol  = schema.Column{Name: "id", DataType: "bigint"}
	valCol = schema.Column{Name: "v", DataType: "varchar", Charset: "utf8mb4"}
)

// TestCopiesMergeDropsTheStreamsKeys: a window drops the keys that changes
// after its low watermark touched, fragments included, and not those at
// or before it, nor those of other tables.
func TestCopiesMergeDropsTheStreamsKeys(t *testing.T) {
	orders, other := table("orders", idCol, valCol), table("other", idCol, valCol)
	c := NewCopies()
	if err := c.Add(orders); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Open(orders.TableID, pos(10)); err != nil {
		t.Fatal(err)
	}
	up := func(tb *schema.Table, from, to int64) model.RowChange {
		return model.RowChange{Op: model.Update, Table: tb, Before: []any{from, "a"}, After: []any{to, "b"}}
	}
	for _, txn := range []*model.Txn{
		{End: pos(9), Changes: []model.RowChange{up(orders, 1, 1)}},   // before the window: in the chunk
		{End: pos(11), Changes: []model.RowChange{up(orders, 2, 2)}},  // in the window
		{End: pos(12), Changes: []model.RowChange{up(other, 3, 3)}},   // another table
		{Partial: true, Changes: []model.RowChange{up(orders, 4, 5)}}, // a fragment, a key change
	} {
		if ended, err := c.Observe(txn); err != nil || len(ended) != 0 {
			t.Fatalf("observe: ended %v, err %v", ended, err)
		}
	}
	w := c.tables[orders.TableID].win
	if err := w.Fill(pos(13), [][]any{{[]byte("1"), "a"}, {[]byte("2"), "a"}, {[]byte("3"), "a"}, {[]byte("4"), "a"}, {[]byte("6"), "a"}}); err != nil {
		t.Fatal(err)
	}
	if got := c.Ready(pos(12)); len(got) != 0 {
		t.Fatalf("ready before the high watermark: %v", got)
	}
	if got := c.Ready(pos(13)); len(got) != 1 || got[0] != orders.TableID {
		t.Fatalf("ready at the high watermark: %v", got)
	}
	rows, err := c.Merge(orders.TableID)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, r := range rows {
		kept = append(kept, string(r[0].([]byte)))
	}
	if strings.Join(kept, ",") != "1,3,6" {
		t.Fatalf("kept %v, want 1,3,6 (2 changed in the window, 4 and 5 by a fragment)", kept)
	}
	if _, err := c.Merge(orders.TableID); err == nil {
		t.Fatal("a window merged twice")
	}
}

// TestCopiesSchemaChangeEndsTheWindow: the chunk was read with the old
// definition, so a schema change of the table ends its window.
func TestCopiesSchemaChangeEndsTheWindow(t *testing.T) {
	orders := table("orders", idCol, valCol)
	c := NewCopies()
	if err := c.Add(orders); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Open(orders.TableID, pos(1)); err != nil {
		t.Fatal(err)
	}
	ended, err := c.Observe(&model.Txn{End: pos(2), DDL: &model.DDL{Tables: []*schema.Table{orders}}})
	if err != nil || len(ended) != 1 || ended[0] != orders.TableID {
		t.Fatalf("ended %v, err %v", ended, err)
	}
	if _, err := c.Merge(orders.TableID); err == nil {
		t.Fatal("a window ended by a schema change was merged")
	}
	if _, err := c.Open(orders.TableID, pos(2)); err != nil {
		t.Fatalf("the next window: %v", err)
	}
}

func TestKeyColumnsOfRefusesWithTheReason(t *testing.T) {
	for _, tc := range []struct {
		tb   *schema.Table
		want string
	}{
		{&schema.Table{TableID: schema.TableID{Database: "shop", Name: "log"}, Columns: []schema.Column{valCol}}, "no primary key"},
		{table("f", schema.Column{Name: "x", DataType: "double"}), "integer or text keys only"},
		{table("l", schema.Column{Name: "x", DataType: "varchar", Charset: "latin1"}), "text in latin1"},
	} {
		if _, err := KeyColumnsOf(tc.tb); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.tb.TableID, err, tc.want)
		}
	}
	got, err := KeyColumnsOf(table("ok", schema.Column{Name: "id", DataType: "int", Unsigned: true}, valCol))
	if err != nil || len(got) != 1 || got[0] != (KeyColumn{Index: 0, Integer: true, Unsigned: true, Bits: 32}) {
		t.Fatalf("%v, %v", got, err)
	}
}
