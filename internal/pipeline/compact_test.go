package pipeline

import (
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"testing"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
)

// uTable is t(id PK, u UNIQUE NOT NULL, v).
var uTable = &schema.Table{
	TableID:    schema.TableID{Database: "d", Name: "t"},
	Columns:    []schema.Column{col("id", false), col("u", false), col("v", true)},
	PrimaryKey: []string{"id"},
	Indexes:    []schema.Index{{Name: "u", Unique: true, Columns: []schema.IndexColumn{{Name: "u"}}}},
}

func mkChanges(h *keyHasher, rcs ...model.RowChange) []Change {
	tk := newTableKeys(uTable)
	cs := make([]Change, len(rcs))
	for i, rc := range rcs {
		rc.Table = uTable
		cs[i] = Change{RowChange: rc, keys: dedupe(h.changeKeys(nil, tk, &rc))}
		cs[i].Ident, cs[i].HasIdent = h.identityKey(tk, rowIdentityImage(&rc))
	}
	return cs
}

func row(id, u, v int64) []any { return []any{id, u, v} }

func TestCompactFolds(t *testing.T) {
	h := newKeyHasher(maphash.MakeSeed())
	ins := model.RowChange{Op: model.Insert, After: row(1, 10, 0)}
	upd := model.RowChange{Op: model.Update, Before: row(1, 10, 0), After: row(1, 10, 1)}
	upd2 := model.RowChange{Op: model.Update, Before: row(1, 10, 1), After: row(1, 10, 2)}
	del := model.RowChange{Op: model.Delete, Before: row(1, 10, 2)}

	got := compact(mkChanges(h, ins, upd, upd2), nil)
	if len(got) != 1 || got[0].Op != model.Insert || got[0].After[2] != int64(2) {
		t.Fatalf("I+U+U: want one insert with v=2, got %v", describeChanges(got))
	}
	if got := compact(mkChanges(h, ins, upd, upd2, del), nil); len(got) != 0 {
		t.Fatalf("I+U+U+D: want nothing, got %v", describeChanges(got))
	}
	got = compact(mkChanges(h, upd, upd2, del), nil)
	if len(got) != 1 || got[0].Op != model.Delete || got[0].Before[2] != int64(0) {
		t.Fatalf("U+U+D: want delete of the first before image, got %v", describeChanges(got))
	}
	// Delete then insert of the same row becomes one update from the
	// deleted image to the inserted one (the unique value changes too).
	reins := model.RowChange{Op: model.Insert, After: row(1, 11, 5)}
	got = compact(mkChanges(h, del, reins), nil)
	if len(got) != 1 || got[0].Op != model.Update || got[0].Before[2] != int64(2) || got[0].After[1] != int64(11) || got[0].After[2] != int64(5) {
		t.Fatalf("D+I: want one update 1,10,2 → 1,11,5, got %v", describeChanges(got))
	}
	// ... which later updates of the row fold into as well.
	upd3 := model.RowChange{Op: model.Update, Before: row(1, 11, 5), After: row(1, 11, 6)}
	got = compact(mkChanges(h, del, reins, upd3), nil)
	if len(got) != 1 || got[0].Op != model.Update || got[0].After[2] != int64(6) {
		t.Fatalf("D+I+U: want one update to 1,11,6, got %v", describeChanges(got))
	}
	// Not when a foreign key action of the target hangs on the delete: the
	// cascade would run for the delete and not for an update.
	cs := mkChanges(h, del, reins)
	cs[0].cascade = []uint64{42}
	if got := compact(cs, nil); len(got) != 2 {
		t.Fatalf("D+I with a cascade key must stay two changes, got %v", describeChanges(got))
	}
	// Not for a table the sink declines it for (ReinsertFolder).
	no := func(*schema.Table) bool { return false }
	if got := compact(mkChanges(h, del, reins), no); len(got) != 2 {
		t.Fatalf("D+I where the sink declines the fold must stay two changes, got %v", describeChanges(got))
	}
	// Not a re-insert of another row.
	other := model.RowChange{Op: model.Insert, After: row(2, 12, 5)}
	if got := compact(mkChanges(h, del, other), nil); len(got) != 2 {
		t.Fatalf("D(1)+I(2) must stay two changes, got %v", describeChanges(got))
	}
	// Not when another row took the deleted row's unique value in between.
	take := model.RowChange{Op: model.Insert, After: row(3, 10, 0)}
	if got := compact(mkChanges(h, del, take, reins), nil); len(got) != 3 {
		t.Fatalf("D+I(other takes u)+I must stay three changes, got %v", describeChanges(got))
	}
	// A change between them that touches the unique value blocks the fold:
	// row 1 gives up u=10, row 2 takes it, then row 1 changes again.
	a := model.RowChange{Op: model.Update, Before: row(1, 10, 0), After: row(1, 11, 0)}
	b := model.RowChange{Op: model.Insert, After: row(2, 10, 0)}
	c := model.RowChange{Op: model.Update, Before: row(1, 11, 0), After: row(1, 12, 0)}
	if got := compact(mkChanges(h, a, b, c), nil); len(got) != 3 {
		t.Fatalf("intervening change on a shared key must block folding, got %v", describeChanges(got))
	}
}

func describeChanges(cs []Change) string {
	s := ""
	for _, c := range cs {
		s += fmt.Sprintf("%v%v→%v ", c.Op, c.Before, c.After)
	}
	return s
}

// memTable applies changes with PostgreSQL's rules for t: primary key and
// unique u checked immediately, updates and deletes must find their row.
type memTable struct {
	rows map[int64][3]int64
}

func (m *memTable) apply(rc model.RowChange) error {
	img := func(r []any) [3]int64 { return [3]int64{r[0].(int64), r[1].(int64), r[2].(int64)} }
	uTaken := func(u, except int64) bool {
		for id, r := range m.rows {
			if r[1] == u && id != except {
				return true
			}
		}
		return false
	}
	switch rc.Op {
	case model.Insert:
		a := img(rc.After)
		if _, ok := m.rows[a[0]]; ok || uTaken(a[1], -1) {
			return fmt.Errorf("insert %v: duplicate", a)
		}
		m.rows[a[0]] = a
	case model.Update:
		b, a := img(rc.Before), img(rc.After)
		if m.rows[b[0]] != b {
			return fmt.Errorf("update %v: row not found", b)
		}
		if _, ok := m.rows[a[0]]; (ok && a[0] != b[0]) || uTaken(a[1], b[0]) {
			return fmt.Errorf("update to %v: duplicate", a)
		}
		delete(m.rows, b[0])
		m.rows[a[0]] = a
	case model.Delete:
		b := img(rc.Before)
		if m.rows[b[0]] != b {
			return fmt.Errorf("delete %v: row not found", b)
		}
		delete(m.rows, b[0])
	}
	return nil
}

func (m *memTable) clone() *memTable {
	c := &memTable{rows: map[int64][3]int64{}}
	for k, v := range m.rows {
		c.rows[k] = v
	}
	return c
}

// TestCompactIsEquivalent generates random valid change sequences on a
// small key space (many collisions), and checks that the compacted sequence
// applies without any constraint error and leaves the same rows.
func TestCompactIsEquivalent(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	h := newKeyHasher(maphash.MakeSeed())
	folded := 0
	for round := 0; round < 300; round++ {
		src := &memTable{rows: map[int64][3]int64{}}
		for i := int64(0); i < 4; i++ {
			src.rows[i] = [3]int64{i, 100 + i, 0}
		}
		start := src.clone()
		var rcs []model.RowChange
		for len(rcs) < 30 {
			rc := randomChange(rng, src)
			if src.apply(rc) == nil {
				rcs = append(rcs, rc)
			}
		}
		cs := compact(mkChanges(h, rcs...), nil)
		folded += len(rcs) - len(cs)
		dst := start
		for _, c := range cs {
			if err := dst.apply(c.RowChange); err != nil {
				t.Fatalf("round %d: compacted sequence fails: %v\noriginal: %v\ncompacted: %v", round, err,
					describeChanges(mkChanges(h, rcs...)), describeChanges(cs))
			}
		}
		if fmt.Sprint(dst.rows) != fmt.Sprint(src.rows) {
			t.Fatalf("round %d: compacted result %v, sequential %v", round, dst.rows, src.rows)
		}
	}
	if folded == 0 {
		t.Fatal("the generator never produced a foldable pair: the test proves nothing")
	}
}

func randomChange(rng *rand.Rand, m *memTable) model.RowChange {
	id := int64(rng.IntN(6))
	u := int64(100 + rng.IntN(6))
	v := int64(rng.IntN(3))
	cur, exists := m.rows[id]
	before := []any{cur[0], cur[1], cur[2]}
	switch {
	case !exists:
		return model.RowChange{Op: model.Insert, After: row(id, u, v)}
	case rng.IntN(4) == 0:
		return model.RowChange{Op: model.Delete, Before: before}
	case rng.IntN(5) == 0:
		return model.RowChange{Op: model.Update, Before: before, After: row(int64(rng.IntN(6)), u, v)}
	default:
		return model.RowChange{Op: model.Update, Before: before, After: row(id, cur[1], v)}
	}
}
