package pipeline

import (
	"hash/maphash"
	"slices"
	"testing"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
)

func TestCascadeGraphReachIsTransitive(t *testing.T) {
	a, b, c, d := "s.a", "s.b", "s.c", "s.d"
	g := NewCascades(map[string][]string{a: {b}, b: {c}, c: {b}, d: {d}})
	for p, want := range map[string][]string{a: {b, c}, b: {b, c}, d: {d}} {
		got := slices.Clone(g.reach[p])
		slices.SortFunc(got, cmpString)
		if !slices.Equal(got, want) {
			t.Errorf("reach[%s] = %v, want %v", p, got, want)
		}
	}
	if g.child[a] || !g.child[b] || !g.child[c] || !g.child[d] {
		t.Errorf("child = %v, want b, c, d", g.child)
	}
}

func cmpString(x, y string) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// TestCascadeOrdersLaterChildChanges: a parent delete whose ON DELETE
// CASCADE removes child rows the binlog does not carry must be followed by
// every later change of the child table, although their row keys differ;
// changes of the child table alone still commute, and a parent update that
// changes no key fires no action.
func TestCascadeOrdersLaterChildChanges(t *testing.T) {
	parent, child := parentTable(), childTable()
	d := &dispatcher{a: &Applier{sink: namingSink{}}, hasher: newKeyHasher(maphash.MakeSeed()), tables: map[*schema.Table]*tableKeys{},
		cascades: NewCascades(map[string][]string{"shop.parent": {"shop.child"}})}
	item := func(rc model.RowChange) *item {
		t.Helper()
		it, err := d.newItem(&model.Txn{Changes: []model.RowChange{rc}})
		if err != nil {
			t.Fatal(err)
		}
		return it
	}
	delParent := item(model.RowChange{Op: model.Delete, Table: parent, Before: []any{int64(1), int64(10), nil, nil}})
	insChild := item(model.RowChange{Op: model.Insert, Table: child, After: []any{int64(5), int64(2)}})
	insChild2 := item(model.RowChange{Op: model.Insert, Table: child, After: []any{int64(6), int64(3)}})
	noteUpd := item(model.RowChange{Op: model.Update, Table: parent,
		Before: []any{int64(3), int64(30), nil, int64(1)}, After: []any{int64(3), int64(30), nil, int64(2)}})
	codeUpd := item(model.RowChange{Op: model.Update, Table: parent,
		Before: []any{int64(4), int64(40), nil, nil}, After: []any{int64(4), int64(41), nil, nil}})
	if shares(delParent.keys, insChild.keys) {
		t.Fatal("test premise: the parent delete and the child insert share a row key")
	}

	c := newCausality()
	c.acquire(delParent.keys, 0)
	if w, conflict := c.placeChecked(insChild.keys, insChild.check); w != 0 || conflict {
		t.Errorf("child insert after a cascading parent delete: worker %d conflict %v, want worker 0", w, conflict)
	}
	c.acquire(insChild.keys, 0)
	c.release(delParent.keys)
	if w, conflict := c.placeChecked(insChild2.keys, insChild2.check); w != -1 || conflict {
		t.Errorf("two child inserts: worker %d conflict %v, want independent", w, conflict)
	}
	c.release(insChild.keys)

	c.acquire(noteUpd.keys, 1)
	if w, _ := c.placeChecked(insChild.keys, insChild.check); w != -1 {
		t.Errorf("child insert after a parent update of a non-key column: worker %d, want independent", w)
	}
	c.release(noteUpd.keys)
	c.acquire(codeUpd.keys, 1)
	if w, _ := c.placeChecked(insChild.keys, insChild.check); w != 1 {
		t.Errorf("child insert after a parent unique key change: worker %d, want 1", w)
	}
	c.release(codeUpd.keys)

	// Without a foreign key action nothing orders the two.
	d.cascades = NewCascades(nil)
	d.tables = map[*schema.Table]*tableKeys{}
	delParent = item(model.RowChange{Op: model.Delete, Table: parent, Before: []any{int64(1), int64(10), nil, nil}})
	insChild = item(model.RowChange{Op: model.Insert, Table: child, After: []any{int64(5), int64(2)}})
	c.acquire(delParent.keys, 0)
	if w, _ := c.placeChecked(insChild.keys, insChild.check); w != -1 {
		t.Errorf("no foreign key action: worker %d, want independent", w)
	}
}

// namingSink is a Sink that only names tables (database.table): the
// dispatcher's key computation needs nothing else.
type namingSink struct{ Sink }

func (namingSink) TargetName(id schema.TableID) string { return id.Database + "." + id.Name }
