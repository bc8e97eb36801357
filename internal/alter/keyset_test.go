package alter

import (
	"testing"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/consistent"
)

func TestKeySetParkingAndFlight(t *testing.T) {
	s := newKeySet()
	// Keys of chunk 0 (v < 10) wait until it is released; 1 is ready.
	done0 := false
	s.wait(func(v []any) int {
		if v[0].(int) < 10 && !done0 {
			return 0
		}
		return -1
	})
	s.add("a", []any{1}, nil, 1)
	s.add("b", []any{20}, nil, 1)
	s.add("a", []any{1}, nil, 1)
	ids, _, _ := s.take(10)
	if len(ids) != 1 || ids[0] != "b" {
		t.Fatalf("take before the release: %v", ids)
	}
	s.add("b", []any{20}, []any{20, "v1"}, 1) // changed in flight: dirty, with its new image
	s.add("b", []any{20}, []any{20, "v2"}, 1) // the last change's image is kept
	s.add("a", []any{1}, []any{1, "x"}, 1)    // parked: its image is replaced
	s.add("a", []any{1}, nil, 1)              // ... by "gone"
	s.done(ids, false)
	s.release(0, func() { done0 = true }, 0)
	ids, _, imgs := s.take(10)
	got := map[string][]any{}
	for i, id := range ids {
		got[id] = imgs[i]
	}
	if len(ids) != 2 || got["a"] != nil || len(got["b"]) != 2 || got["b"][1] != "v2" {
		t.Fatalf("take after the release: %v %v", ids, imgs)
	}
	s.done(ids, false)
	if s.size() != 0 {
		t.Fatalf("size %d after applying everything", s.size())
	}
	// A failed apply puts keys back.
	s.add("c", []any{30}, nil, 1)
	ids, _, _ = s.take(10)
	s.done(ids, true)
	if ids2, _, _ := s.take(10); len(ids2) != 1 {
		t.Fatalf("failed key not back: %v", ids2)
	}
}

func TestCopiedRangesChunkOf(t *testing.T) {
	kc := &keyCols{idx: []int{0}, cols: []schema.Column{{Name: "id", DataType: "int"}}}
	chunks := []chunk{
		{Seq: 1, Hi: consistent.Bound{[]byte("-5")}},
		{Seq: 2, Lo: consistent.Bound{[]byte("-5")}, Hi: consistent.Bound{[]byte("100")}},
		{Seq: 3, Lo: consistent.Bound{[]byte("100")}, Done: true},
	}
	cr := newCopiedRanges(kc, chunks)
	for v, want := range map[int64]int{-100: 0, -5: 0, -4: 1, 100: 1, 101: -1, 1 << 40: -1} {
		if got := cr.chunkOf([]any{v}); got != want {
			t.Errorf("chunkOf(%d) = %d, want %d", v, got, want)
		}
	}
	cr.done[0].Store(true)
	if got := cr.chunkOf([]any{int64(-100)}); got != -1 {
		t.Errorf("after chunk 1 is done: %d", got)
	}
}

// Keys of a chunk whose last change came before its copy's marker leave
// the set when the chunk is released; later ones are applied.
func TestKeySetReleaseSeen(t *testing.T) {
	s := newKeySet()
	s.wait(func([]any) int { return 0 })
	s.add("a", []any{1}, []any{1, "x"}, 1)
	s.add("b", []any{2}, nil, 2)
	s.add("c", []any{3}, []any{3, "y"}, 3)
	s.add("a", []any{1}, []any{1, "z"}, 5) // changed again after the marker
	if n := s.release(0, nil, 3); n != 2 {
		t.Fatalf("dropped %d, want 2 (b, c)", n)
	}
	ids, _, _ := s.take(10)
	got := map[string]bool{}
	for _, id := range ids {
		got[id] = true
	}
	if len(ids) != 1 || !got["a"] {
		t.Fatalf("ready after the release: %v", ids)
	}
	s.done(ids, false)
	if s.size() != 0 {
		t.Fatalf("size %d", s.size())
	}
}

// TestKeyParamEmptyStringNotNull: an empty string key (as a string or as
// []byte from the binlog) is a non-nil []byte parameter; a nil []byte is
// sent as NULL and would match no row of the changed-key re-copy.
func TestKeyParamEmptyStringNotNull(t *testing.T) {
	for _, typ := range []string{"char", "varchar", "binary", "varbinary"} {
		for _, v := range []any{"", []byte{}, []byte(nil)} {
			p, err := keyParam(schema.Column{Name: "k", DataType: typ}, v)
			if b, ok := p.([]byte); err != nil || !ok || b == nil || len(b) != 0 {
				t.Errorf("%s %#v: param %#v, %v; want an empty non-nil []byte", typ, v, p, err)
			}
		}
	}
}
