package pipeline

import (
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"testing"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
)

// The coalesce tests use three tables of the uTable shape (id PK, u UNIQUE
// NOT NULL, v): t, t2, and child, whose v references t(id) (RESTRICT), so
// reordering must respect unique keys, row identity and parent rows.
var (
	t2Table = &schema.Table{TableID: schema.TableID{Database: "d", Name: "t2"}, Columns: uTable.Columns, PrimaryKey: []string{"id"}, Indexes: uTable.Indexes}
	fkChild = &schema.Table{TableID: schema.TableID{Database: "d", Name: "child"}, Columns: uTable.Columns, PrimaryKey: []string{"id"}, Indexes: uTable.Indexes,
		ForeignKeys: []schema.ForeignKey{{Name: "fk", Columns: []string{"v"}, RefDatabase: "d", RefTable: "t", RefColumns: []string{"id"}, OnDelete: "RESTRICT", OnUpdate: "RESTRICT"}}}
)

// world is the three tables with PostgreSQL's checks, foreign key included.
type world map[*schema.Table]*memTable

func newWorld() world {
	w := world{uTable: {rows: map[int64][3]int64{}}, t2Table: {rows: map[int64][3]int64{}}, fkChild: {rows: map[int64][3]int64{}}}
	for i := int64(0); i < 4; i++ {
		w[uTable].rows[i] = [3]int64{i, 100 + i, 0}
		w[t2Table].rows[i] = [3]int64{i, 100 + i, 0}
	}
	return w
}

func (w world) clone() world {
	c := world{}
	for t, m := range w {
		c[t] = m.clone()
	}
	return c
}

func (w world) apply(rc model.RowChange) error {
	if err := w[rc.Table].apply(rc); err != nil {
		return err
	}
	parents, children := w[uTable].rows, w[fkChild].rows
	for id, r := range children {
		if _, ok := parents[r[2]]; !ok {
			return fmt.Errorf("child %d references missing parent %d", id, r[2])
		}
	}
	return nil
}

func (w world) String() string {
	return fmt.Sprint(w[uTable].rows, w[t2Table].rows, w[fkChild].rows)
}

// randomWorldChange returns a change to a random table of the world that
// may or may not be valid.
func randomWorldChange(rng *rand.Rand, w world) model.RowChange {
	tables := []*schema.Table{uTable, t2Table, fkChild}
	t := tables[rng.IntN(len(tables))]
	rc := randomChange(rng, w[t])
	rc.Table = t
	return rc
}

func worldChanges(h *keyHasher, rcs []model.RowChange) []Change {
	cs := make([]Change, len(rcs))
	for i, rc := range rcs {
		tk := newTableKeys(rc.Table)
		cs[i] = Change{RowChange: rc, keys: dedupe(h.changeKeys(nil, tk, &rc))}
	}
	return cs
}

// TestCoalesceIsEquivalent: random valid sequences over the three tables
// (few keys: many conflicts), coalesced, must apply without a constraint
// error and leave the same rows; and coalescing must actually regroup.
func TestCoalesceIsEquivalent(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	h := newKeyHasher(maphash.MakeSeed())
	moved := 0
	for round := 0; round < 500; round++ {
		src := newWorld()
		start := src.clone()
		var rcs []model.RowChange
		for tries := 0; len(rcs) < 40 && tries < 10000; tries++ {
			rc := randomWorldChange(rng, src)
			trial := src.clone()
			if trial.apply(rc) == nil {
				src = trial
				rcs = append(rcs, rc)
			}
		}
		in := worldChanges(h, rcs)
		out := coalesce(append([]Change(nil), in...))
		if len(out) != len(in) {
			t.Fatalf("round %d: %d changes in, %d out", round, len(in), len(out))
		}
		dst := start.clone()
		for _, c := range out {
			if err := dst.apply(c.RowChange); err != nil {
				t.Fatalf("round %d: coalesced sequence fails: %v\noriginal:  %v\ncoalesced: %v", round, err,
					describeChanges(in), describeChanges(out))
			}
		}
		if dst.String() != src.String() {
			t.Fatalf("round %d: coalesced result %v, sequential %v", round, dst, src)
		}
		for i := range out {
			if out[i].Table != in[i].Table || out[i].Op != in[i].Op {
				moved++
				break
			}
		}
	}
	if moved < 100 {
		t.Fatalf("only %d of 500 rounds were reordered: the test proves little", moved)
	}
}

// TestCoalesceGroupsInsertsByTable: inserts of independent rows spread over
// tables come out as one run per table, each in source order.
func TestCoalesceGroupsInsertsByTable(t *testing.T) {
	h := newKeyHasher(maphash.MakeSeed())
	var rcs []model.RowChange
	for i := int64(10); i < 40; i++ {
		tbl := []*schema.Table{uTable, t2Table}[i%2]
		rcs = append(rcs, model.RowChange{Op: model.Insert, Table: tbl, After: row(i, 1000+i, 0)})
	}
	out := coalesce(worldChanges(h, rcs))
	for i, c := range out {
		want := uTable
		if i >= 15 {
			want = t2Table
		}
		if c.Table != want {
			t.Fatalf("position %d: table %s, want %s (%v)", i, c.Table.Name, want.Name, describeChanges(out))
		}
		if i > 0 && i != 15 && c.After[0].(int64) <= out[i-1].After[0].(int64) {
			t.Fatalf("position %d: source order lost within a run: %v", i, describeChanges(out))
		}
	}
	// A change without keys is a barrier: nothing moves across it.
	cs := worldChanges(h, rcs[:4])
	cs[2].keys = nil
	out = coalesce(cs)
	if out[0].After[0] != int64(10) || out[1].After[0] != int64(11) || out[2].After[0] != int64(12) {
		t.Fatalf("a change moved across a keyless change: %v", describeChanges(out))
	}
}

// TestCoalesceKeepsCascadeOrder: a child change may not move ahead of a
// parent change whose foreign key action (on the target) reaches its table.
func TestCoalesceKeepsCascadeOrder(t *testing.T) {
	h := newKeyHasher(maphash.MakeSeed())
	rcs := []model.RowChange{
		{Op: model.Insert, Table: t2Table, After: row(10, 1010, 0)},
		{Op: model.Delete, Table: uTable, Before: row(1, 101, 0)},
		{Op: model.Insert, Table: t2Table, After: row(11, 1011, 0)},
	}
	cs := worldChanges(h, rcs)
	if out := coalesce(append([]Change(nil), cs...)); out[1].Table != t2Table {
		t.Fatalf("without cascade keys the second insert should join the first: %v", describeChanges(out))
	}
	k := h.tagKey(cascadeTag("d.t2"))
	for i := range cs {
		cs[i].cascade = []uint64{k} // inserts of t2 check it, the delete of t holds it
	}
	out := coalesce(cs)
	for i := range out {
		if out[i].Op != rcs[i].Op || out[i].Table != rcs[i].Table {
			t.Fatalf("an insert moved across the cascading delete: %v", describeChanges(out))
		}
	}
}
