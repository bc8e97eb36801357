package postgres

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
)

// workload generates random valid source transactions on four tables and
// keeps the source state they produce, so a test can compare the target
// with it:
//
//	acct(id bigint PK, u bigint UNIQUE NOT NULL, v text)   keyed, unique key, PK changes
//	parent(id bigint PK, name text)                          FK parent
//	child(id bigint PK, pid bigint REFERENCES parent, n int)  FK child
//	bag(a int, b text)                                       no key, duplicates, NULLs
type workload struct {
	rng                      *rand.Rand
	acct, parent, child, bag *schema.Table
	accts                    map[int64][2]any // id → (u, v)
	parents                  map[int64]string
	children                 map[int64][2]int64 // id → (pid, n)
	bags                     [][2]any
	nextID                   int64
	keySpace                 int64
}

func newWorkload(db string, seed uint64, keySpace int64) *workload {
	c := func(name, typ string, nullable bool) schema.Column {
		return schema.Column{Name: name, DataType: typ, Nullable: nullable}
	}
	return &workload{
		rng: rand.New(rand.NewPCG(seed, seed+1)),
		acct: &schema.Table{TableID: schema.TableID{Database: db, Name: "acct"},
			Columns:    []schema.Column{c("id", "bigint", false), c("u", "bigint", false), c("v", "text", true)},
			PrimaryKey: []string{"id"},
			Indexes:    []schema.Index{{Name: "acct_u", Unique: true, Columns: []schema.IndexColumn{{Name: "u"}}}}},
		parent: &schema.Table{TableID: schema.TableID{Database: db, Name: "parent"},
			Columns: []schema.Column{c("id", "bigint", false), c("name", "text", true)}, PrimaryKey: []string{"id"}},
		child: &schema.Table{TableID: schema.TableID{Database: db, Name: "child"},
			Columns:     []schema.Column{c("id", "bigint", false), c("pid", "bigint", false), c("n", "int", true)},
			PrimaryKey:  []string{"id"},
			ForeignKeys: []schema.ForeignKey{{Name: "child_pid", Columns: []string{"pid"}, RefTable: "parent", RefColumns: []string{"id"}}}},
		bag: &schema.Table{TableID: schema.TableID{Database: db, Name: "bag"},
			Columns: []schema.Column{c("a", "int", true), c("b", "text", true)}},
		accts: map[int64][2]any{}, parents: map[int64]string{}, children: map[int64][2]int64{},
		keySpace: keySpace,
	}
}

// targetDDL creates the four tables in schema $S.
func (w *workload) targetDDL() []string {
	return []string{
		`CREATE TABLE $S.acct (id bigint PRIMARY KEY, u bigint NOT NULL UNIQUE, v text)`,
		`CREATE TABLE $S.parent (id bigint PRIMARY KEY, name text)`,
		`CREATE TABLE $S.child (id bigint PRIMARY KEY, pid bigint NOT NULL REFERENCES $S.parent(id), n int)`,
		`CREATE TABLE $S.bag (a int, b text)`,
	}
}

// txns generates n transactions of 1..maxChanges changes each.
func (w *workload) txns(n, maxChanges int) []*model.Txn {
	out := make([]*model.Txn, 0, n)
	for len(out) < n {
		t := &model.Txn{}
		k := 1 + w.rng.IntN(maxChanges)
		for len(t.Changes) < k {
			if rc, ok := w.change(); ok {
				t.Changes = append(t.Changes, rc)
			}
		}
		t.Bytes = int64(len(t.Changes) * 64)
		out = append(out, t)
	}
	return out
}

func (w *workload) change() (model.RowChange, bool) {
	switch w.rng.IntN(4) {
	case 0:
		return w.acctChange()
	case 1:
		return w.parentChange()
	case 2:
		return w.childChange()
	default:
		return w.bagChange()
	}
}

func (w *workload) uTaken(u int64) bool {
	for _, r := range w.accts {
		if r[0].(int64) == u {
			return true
		}
	}
	return false
}

func (w *workload) acctChange() (model.RowChange, bool) {
	id := w.rng.Int64N(w.keySpace)
	u := w.rng.Int64N(w.keySpace * 2)
	v := any(fmt.Sprintf("v%d", w.rng.IntN(1000)))
	if w.rng.IntN(5) == 0 {
		v = nil
	}
	cur, exists := w.accts[id]
	if !exists {
		if w.uTaken(u) {
			return model.RowChange{}, false
		}
		w.accts[id] = [2]any{u, v}
		return model.RowChange{Op: model.Insert, Table: w.acct, After: []any{id, u, v}}, true
	}
	before := []any{id, cur[0], cur[1]}
	switch w.rng.IntN(6) {
	case 0:
		delete(w.accts, id)
		return model.RowChange{Op: model.Delete, Table: w.acct, Before: before}, true
	case 1: // primary key change
		nid := w.rng.Int64N(w.keySpace)
		if _, taken := w.accts[nid]; taken {
			return model.RowChange{}, false
		}
		delete(w.accts, id)
		w.accts[nid] = [2]any{cur[0], v}
		return model.RowChange{Op: model.Update, Table: w.acct, Before: before, After: []any{nid, cur[0], v}}, true
	case 2: // unique key change
		if w.uTaken(u) {
			return model.RowChange{}, false
		}
		w.accts[id] = [2]any{u, cur[1]}
		return model.RowChange{Op: model.Update, Table: w.acct, Before: before, After: []any{id, u, cur[1]}}, true
	default:
		if v == cur[1] {
			return model.RowChange{}, false // MySQL logs no unchanged rows
		}
		w.accts[id] = [2]any{cur[0], v}
		return model.RowChange{Op: model.Update, Table: w.acct, Before: before, After: []any{id, cur[0], v}}, true
	}
}

func (w *workload) parentChange() (model.RowChange, bool) {
	id := w.rng.Int64N(w.keySpace / 2)
	name, exists := w.parents[id]
	if !exists {
		w.parents[id] = fmt.Sprint("p", w.rng.IntN(100))
		return model.RowChange{Op: model.Insert, Table: w.parent, After: []any{id, w.parents[id]}}, true
	}
	for _, c := range w.children {
		if c[0] == id {
			nn := fmt.Sprint("p", w.rng.IntN(100))
			if nn == name {
				return model.RowChange{}, false
			}
			w.parents[id] = nn
			return model.RowChange{Op: model.Update, Table: w.parent, Before: []any{id, name}, After: []any{id, nn}}, true
		}
	}
	delete(w.parents, id)
	return model.RowChange{Op: model.Delete, Table: w.parent, Before: []any{id, name}}, true
}

func (w *workload) childChange() (model.RowChange, bool) {
	id := w.rng.Int64N(w.keySpace)
	cur, exists := w.children[id]
	pids := make([]int64, 0, len(w.parents))
	for p := range w.parents {
		pids = append(pids, p)
	}
	slices.Sort(pids)
	if exists && w.rng.IntN(3) == 0 {
		delete(w.children, id)
		return model.RowChange{Op: model.Delete, Table: w.child, Before: []any{id, cur[0], int32(cur[1])}}, true
	}
	if len(pids) == 0 {
		return model.RowChange{}, false
	}
	pid := pids[w.rng.IntN(len(pids))]
	n := w.rng.Int64N(100)
	after := []any{id, pid, int32(n)}
	if !exists {
		w.children[id] = [2]int64{pid, n}
		return model.RowChange{Op: model.Insert, Table: w.child, After: after}, true
	}
	if cur == [2]int64{pid, n} {
		return model.RowChange{}, false
	}
	w.children[id] = [2]int64{pid, n}
	return model.RowChange{Op: model.Update, Table: w.child, Before: []any{id, cur[0], int32(cur[1])}, After: after}, true
}

func (w *workload) bagChange() (model.RowChange, bool) {
	val := func() [2]any {
		var a, b any = int32(w.rng.IntN(3)), fmt.Sprint("b", w.rng.IntN(2))
		if w.rng.IntN(4) == 0 {
			a = nil
		}
		return [2]any{a, b}
	}
	if len(w.bags) == 0 || w.rng.IntN(3) == 0 {
		r := val()
		w.bags = append(w.bags, r)
		return model.RowChange{Op: model.Insert, Table: w.bag, After: []any{r[0], r[1]}}, true
	}
	i := w.rng.IntN(len(w.bags))
	cur := w.bags[i]
	if w.rng.IntN(2) == 0 {
		w.bags = slices.Delete(w.bags, i, i+1)
		return model.RowChange{Op: model.Delete, Table: w.bag, Before: []any{cur[0], cur[1]}}, true
	}
	r := val()
	if r == cur {
		return model.RowChange{}, false
	}
	w.bags[i] = r
	return model.RowChange{Op: model.Update, Table: w.bag, Before: []any{cur[0], cur[1]}, After: []any{r[0], r[1]}}, true
}

// expected returns the source state in fixture.dump's format.
func (w *workload) expected() map[string][]string {
	out := map[string][]string{}
	for id, r := range w.accts {
		out["acct"] = append(out["acct"], rowString(id, r[0], r[1]))
	}
	for id, n := range w.parents {
		out["parent"] = append(out["parent"], rowString(id, n))
	}
	for id, c := range w.children {
		out["child"] = append(out["child"], rowString(id, c[0], int32(c[1])))
	}
	for _, b := range w.bags {
		out["bag"] = append(out["bag"], rowString(b[0], b[1]))
	}
	for k := range out {
		slices.Sort(out[k])
	}
	return out
}

// check compares the target with the source state.
func (w *workload) check(f *fixture) {
	f.t.Helper()
	want := w.expected()
	equalLists(f.t, "acct", f.dump("acct", "id, u, v"), want["acct"])
	equalLists(f.t, "parent", f.dump("parent", "id, name"), want["parent"])
	equalLists(f.t, "child", f.dump("child", "id, pid, n"), want["child"])
	equalLists(f.t, "bag", f.dump("bag", "a, b"), want["bag"])
}
