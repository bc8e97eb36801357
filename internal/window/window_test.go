package window

import (
	"fmt"
	"math/rand"
	"sort"
	"strconv"
	"testing"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
)

// pos is a position of the scripted source: the number of transactions
// it has committed.
type pos int

func (p pos) Compare(q model.Position) int {
	if q == nil {
		return 1
	}
	switch o := q.(pos); {
	case p < o:
		return -1
	case p > o:
		return 1
	}
	return 0
}
func (p pos) Key() string    { return strconv.Itoa(int(p)) }
func (p pos) Encode() string { return p.Key() }
func (p pos) String() string { return p.Key() }

var keyCols = []KeyColumn{{Index: 0, Integer: true}}

// row is (key, value) as a row image.
func row(k, v int) []any { return []any{int64(k), strconv.Itoa(v)} }

// change is one source transaction of the scripted table: one row change.
type change struct {
	op            model.Op
	before, after []any
}

// sim is a source table, its change stream, a replicator that applies the
// stream to a target with the upserts of full row images the copy needs,
// and the copy's windows merged into the stream; crash makes the
// replicator lose what came after its last checkpoint.
type sim struct {
	rnd      *rand.Rand
	src      map[int]int
	log      []change // the stream; log[i] ends at pos(i+1)
	tgt      map[int]int
	read     int // transactions of the stream applied
	lastKey  int // copied up to here (the chunks' bound)
	done     bool
	win      *Window
	selected bool
	chunk    int
	saved    struct {
		tgt           map[int]int
		read, lastKey int
		done          bool
	}
	noDrop, early  bool // broken variants, to show the test can fail
	overDrop       bool // every applied change recorded, before the window too
	crashes, drops int
	trace          func(string, ...any)
	broken         string // the first merge after which the copied keys differed
}

func newSim(seed int64) *sim {
	s := &sim{rnd: rand.New(rand.NewSource(seed)), src: map[int]int{}, tgt: map[int]int{}, chunk: 1 + int(seed%7)}
	for k := 1; k <= 40; k++ {
		s.src[k] = k * 100
	}
	s.save()
	return s
}

func (s *sim) save() {
	s.saved.tgt = clone(s.tgt)
	s.saved.read, s.saved.lastKey, s.saved.done = s.read, s.lastKey, s.done
}

func clone(m map[int]int) map[int]int {
	c := make(map[int]int, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// write commits one source transaction: an insert, update, key change or
// delete of a random key.
func (s *sim) write() {
	k := 1 + s.rnd.Intn(60)
	v, ok := s.src[k]
	var c change
	switch {
	case !ok:
		s.src[k] = s.rnd.Intn(1e6)
		c = change{op: model.Insert, after: row(k, s.src[k])}
	case s.rnd.Intn(4) == 0:
		delete(s.src, k)
		c = change{op: model.Delete, before: row(k, v)}
	case s.rnd.Intn(4) == 0:
		n := 1 + s.rnd.Intn(60)
		if _, taken := s.src[n]; taken {
			return
		}
		delete(s.src, k)
		s.src[n] = v + 1
		c = change{op: model.Update, before: row(k, v), after: row(n, v+1)}
	default:
		s.src[k] = v + 1
		c = change{op: model.Update, before: row(k, v), after: row(k, v+1)}
	}
	s.log = append(s.log, c)
}

// apply hands the next stream transaction to apply: an upsert of the
// after image, a delete of the before image's key if present.
func (s *sim) apply(t *testing.T) {
	c := s.log[s.read]
	s.read++
	if c.before != nil {
		delete(s.tgt, int(c.before[0].(int64)))
	}
	if c.after != nil {
		v, _ := strconv.Atoi(c.after[1].(string))
		s.tgt[int(c.after[0].(int64))] = v
	}
	if s.win != nil {
		keys, err := ChangeKeys(model.RowChange{Op: c.op, Before: c.before, After: c.after}, keyCols)
		if err != nil {
			t.Fatal(err)
		}
		at := model.Position(pos(s.read))
		if s.overDrop {
			at = nil // as a fragment: recorded whatever its place
		}
		s.win.Observe(at, keys...)
	}
	if s.rnd.Intn(5) == 0 {
		s.save() // a checkpoint
	}
}

// copyStep moves the copy on: open a window, run its SELECT, read its
// high watermark, or merge it once the stream reached it.
func (s *sim) copyStep(t *testing.T) {
	var err error
	switch {
	case s.done:
	case s.win == nil:
		if s.win, err = Open(pos(len(s.log))); err != nil {
			t.Fatal(err)
		}
		s.selected = false
	case !s.selected:
		s.selected = true
		var keys []int
		for k := range s.src {
			if k > s.lastKey {
				keys = append(keys, k)
			}
		}
		sort.Ints(keys)
		var rows [][]any
		for _, k := range keys {
			if len(rows) == s.chunk {
				break
			}
			rows = append(rows, row(k, s.src[k]))
		}
		// The high watermark is read a moment later: more transactions
		// may commit between the SELECT and it.
		for s.rnd.Intn(2) == 0 {
			s.write()
		}
		if err := s.win.Fill(pos(len(s.log)), rows); err != nil {
			t.Fatal(err)
		}
	case s.early || s.win.Ready(pos(s.read)):
		s.merge(t)
	}
}

func (s *sim) merge(t *testing.T) {
	key := func(r []any) (string, error) { return Key(r, keyCols) }
	rows, err := s.win.Merge(key)
	if s.noDrop {
		rows, err = s.win.rows, nil
	}
	if err != nil {
		t.Fatal(err)
	}
	s.drops += len(s.win.rows) - len(rows)
	if s.trace != nil {
		s.trace("merge low %v high %v read %d rows %v kept %v", s.win.low, s.win.high, s.read, s.win.rows, rows)
	}
	for _, r := range rows {
		v, _ := strconv.Atoi(r[1].(string))
		s.tgt[int(r[0].(int64))] = v
	}
	if n := len(s.win.rows); n < s.chunk {
		s.done = true
	} else {
		s.lastKey = int(s.win.rows[n-1][0].(int64))
	}
	s.win = nil
	if s.broken == "" {
		s.broken = s.copiedDiffer()
	}
	s.save() // the chunk commits with the checkpoint, in one transaction
}

// copiedDiffer checks the invariant a merge keeps: every key the copy has
// passed holds, on the target, the source's state at the merge's place in
// the stream (so the table can go back to ordinary apply once copied).
func (s *sim) copiedDiffer() string {
	at := map[int]int{}
	for k := 1; k <= 40; k++ {
		at[k] = k * 100
	}
	for _, c := range s.log[:s.read] {
		if c.before != nil {
			delete(at, int(c.before[0].(int64)))
		}
		if c.after != nil {
			v, _ := strconv.Atoi(c.after[1].(string))
			at[int(c.after[0].(int64))] = v
		}
	}
	for k := 1; k <= 60; k++ {
		if !s.done && k > s.lastKey {
			break
		}
		v, ok := at[k]
		w, has := s.tgt[k]
		if ok != has || v != w {
			return fmt.Sprintf("after the merge at %d, key %d: source %d (present %v), target %d (present %v)", s.read, k, v, ok, w, has)
		}
	}
	return ""
}

// crash loses everything after the last checkpoint, and the open window.
func (s *sim) crash() {
	s.tgt = clone(s.saved.tgt)
	s.read, s.lastKey, s.done = s.saved.read, s.saved.lastKey, s.saved.done
	if s.trace != nil {
		s.trace("crash at read %d, back to %d", s.read, s.saved.read)
	}
	s.win = nil
	s.crashes++
}

// run interleaves source writes, apply and the copy at random, then lets
// the stream and the copy finish, and returns the first difference
// between the target and the source ("" when equal).
func (s *sim) run(t *testing.T) string {
	for i := 0; i < 400; i++ {
		switch r := s.rnd.Intn(10); {
		case r < 4:
			s.write()
		case r < 7 && s.read < len(s.log):
			s.apply(t)
		case r == 9 && s.rnd.Intn(8) == 0:
			s.crash()
		default:
			s.copyStep(t)
		}
	}
	for guard := 0; !s.done || s.read < len(s.log); guard++ {
		if guard > 10000 {
			t.Fatal("the copy does not finish")
		}
		if s.read < len(s.log) {
			s.apply(t)
		}
		s.copyStep(t)
	}
	if s.broken != "" {
		return s.broken
	}
	return diff(s.src, s.tgt)
}

func diff(src, tgt map[int]int) string {
	for k, v := range src {
		if w, ok := tgt[k]; !ok || w != v {
			return fmt.Sprintf("key %d: source %d, target %d (present %v)", k, v, w, ok)
		}
	}
	for k, w := range tgt {
		if _, ok := src[k]; !ok {
			return fmt.Sprintf("key %d: not in the source, target %d", k, w)
		}
	}
	return ""
}

// TestWindowMergeEndsEqual: for many interleavings of source writes,
// apply, chunk windows and crashes, the target ends equal to the source,
// row for row.
func TestWindowMergeEndsEqual(t *testing.T) {
	crashes, drops := 0, 0
	for seed := int64(1); seed <= 1000; seed++ {
		s := newSim(seed)
		s.overDrop = seed > 500 // the second half: a key too many is safe
		if d := s.run(t); d != "" {
			t.Fatalf("seed %d (over-drop %v): %s", seed, s.overDrop, d)
		}
		crashes += s.crashes
		drops += s.drops
	}
	if crashes == 0 || drops == 0 {
		t.Fatalf("the interleavings never crashed (%d) or never dropped a chunk row (%d): the test proves nothing", crashes, drops)
	}
}

// TestWindowMergeBrokenVariantsDiffer: without dropping the window's keys,
// or merging before the stream reaches the high watermark, some
// interleaving ends with a target that differs: the simulation can fail.
func TestWindowMergeBrokenVariantsDiffer(t *testing.T) {
	for _, v := range []struct {
		name          string
		noDrop, early bool
	}{{"no drop", true, false}, {"merge before the high watermark", false, true}} {
		failed := false
		for seed := int64(1); seed <= 500 && !failed; seed++ {
			s := newSim(seed)
			s.noDrop, s.early = v.noDrop, v.early
			failed = s.run(t) != ""
		}
		if !failed {
			t.Errorf("%s: every interleaving ended equal; the simulation cannot tell a broken merge", v.name)
		}
	}
}

func TestKeyComparesDecodersAlike(t *testing.T) {
	cols := []KeyColumn{{Index: 0, Integer: true}, {Index: 1, Integer: true, Unsigned: true}}
	a, err := Key([]any{int32(7), int64(-1)}, cols) // binlog: INT, BIGINT UNSIGNED max as signed
	if err != nil {
		t.Fatal(err)
	}
	b, err := Key([]any{int64(7), uint64(1<<64 - 1)}, cols) // typed
	if err != nil {
		t.Fatal(err)
	}
	c, err := Key([]any{[]byte("7"), []byte("18446744073709551615")}, cols) // the chunk's text protocol
	if err != nil {
		t.Fatal(err)
	}
	if a != b || a != c {
		t.Errorf("the same stored key differs by decoder: %q, %q, %q", a, b, c)
	}
	if _, err := Key([]any{[]byte("x"), int64(1)}, cols); err == nil {
		t.Error("text in an integer key column was accepted")
	}
	// UNSIGNED MEDIUMINT: go-mysql gives 16777215 as int32(-1), sign-extended from 24 bits.
	medium, err := KeyColumnsOf(table("m", schema.Column{Name: "id", DataType: "mediumint", Unsigned: true}))
	if err != nil {
		t.Fatal(err)
	}
	fromBinlog, _ := Key([]any{int32(-1)}, medium)
	fromChunk, _ := Key([]any{[]byte("16777215")}, medium)
	if fromBinlog != fromChunk {
		t.Errorf("UNSIGNED MEDIUMINT 16777215: binlog %q, chunk %q", fromBinlog, fromChunk)
	}
	text := []KeyColumn{{Index: 0}, {Index: 1, Integer: true}}
	s1, _ := Key([]any{"ab", int64(1)}, text)
	s2, _ := Key([]any{[]byte("ab"), []byte("1")}, text)
	s3, _ := Key([]any{"AB", int64(1)}, text)
	if s1 != s2 || s1 == s3 {
		t.Errorf("text keys: string and bytes must match (%v), different case must not (%v)", s1 == s2, s1 != s3)
	}
	if _, err := Key([]any{1.5, int64(1)}, text); err == nil {
		t.Error("a float key was accepted")
	}
	if _, err := Key([]any{nil, int64(1)}, cols); err == nil {
		t.Error("a NULL key was accepted")
	}
}

func TestFillRefusesHighBeforeLow(t *testing.T) {
	w, err := Open(pos(5))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Fill(pos(4), nil); err == nil {
		t.Fatal("a high watermark before the low one was accepted")
	}
	if _, err := Open(nil); err == nil {
		t.Fatal("a window without a low watermark was opened")
	}
}
