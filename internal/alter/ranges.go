package alter

import (
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
)

// copiedRanges tells, for a single-column integer key, which chunk holds a
// key and whether it has been copied. Keys of copied chunks can be applied while
// the copy goes on: no older read of the chunk can land after the apply (a
// key applied while its chunk is being copied could be deleted by the apply
// and re-inserted by the chunk's older read). Other keys wait in the set
// until the whole copy is done.
type copiedRanges struct {
	unsigned bool
	his      []uint64 // upper bounds in key order, as order-preserving uint64
	open     bool     // the last chunk has no upper bound
	done     []atomic.Bool
}

// newCopiedRanges returns nil when the key is not one integer column.
func newCopiedRanges(k *keyCols, chunks []chunk) *copiedRanges {
	if len(k.cols) != 1 {
		return nil
	}
	c := k.cols[0]
	switch strings.ToLower(c.DataType) {
	case "tinyint", "smallint", "mediumint", "int", "integer", "bigint":
	default:
		return nil
	}
	cr := &copiedRanges{unsigned: c.Unsigned, done: make([]atomic.Bool, len(chunks))}
	for i, ch := range chunks {
		if ch.Hi == nil {
			if i != len(chunks)-1 {
				return nil
			}
			cr.open = true
			break
		}
		v, ok := cr.ordered(string(ch.Hi[0]))
		if !ok {
			return nil
		}
		cr.his = append(cr.his, v)
	}
	for i, ch := range chunks {
		if ch.Done {
			cr.done[i].Store(true)
		}
	}
	return cr
}

// ordered maps a key's text to a uint64 that sorts like the key.
func (cr *copiedRanges) ordered(s string) (uint64, bool) {
	if cr.unsigned {
		u, err := strconv.ParseUint(s, 10, 64)
		return u, err == nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return uint64(n) ^ (1 << 63), err == nil
}

func (cr *copiedRanges) orderedValue(v any) (uint64, bool) {
	switch x := v.(type) {
	case int64:
		if cr.unsigned {
			return uint64(x), x >= 0
		}
		return uint64(x) ^ (1 << 63), true
	case uint64:
		if cr.unsigned {
			return x, true
		}
		return 0, false
	}
	return 0, false
}

// afterCopy is the parking place of keys that wait for the whole copy.
const afterCopy = 1 << 30

// chunkOf is the index of the chunk holding the key when that chunk is not
// copied yet, else -1. A key it cannot place waits for the whole copy.
func (cr *copiedRanges) chunkOf(vals []any) int {
	v, ok := cr.orderedValue(vals[0])
	if !ok {
		return afterCopy
	}
	i := sort.Search(len(cr.his), func(i int) bool { return cr.his[i] >= v })
	if i == len(cr.his) && !cr.open {
		return afterCopy // beyond the last bound: cannot happen, the ranges partition the key space
	}
	if cr.done[i].Load() {
		return -1
	}
	return i
}
