package alter

import (
	"sort"
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
	s.add("a", []any{1})
	s.add("b", []any{20})
	s.add("a", []any{1})
	ids, _ := s.take(10)
	if len(ids) != 1 || ids[0] != "b" {
		t.Fatalf("take before the release: %v", ids)
	}
	s.add("b", []any{20}) // changed in flight: dirty
	s.done(ids, false)
	s.release(0, func() { done0 = true })
	ids, _ = s.take(10)
	sort.Strings(ids)
	if len(ids) != 2 || ids[0] != "a" || ids[1] != "b" {
		t.Fatalf("take after the release: %v", ids)
	}
	s.done(ids, false)
	if s.size() != 0 {
		t.Fatalf("size %d after applying everything", s.size())
	}
	// A failed apply puts keys back.
	s.add("c", []any{30})
	ids, _ = s.take(10)
	s.done(ids, true)
	if ids2, _ := s.take(10); len(ids2) != 1 {
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
