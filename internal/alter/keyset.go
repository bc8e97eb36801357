package alter

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/sluice-db/sluice/internal/schema"
)

// keySet is the de-duplicating set of keys changed in the table since the
// copy's start position, each with the row image of its last change (or
// none, when its rows are re-read: images.go). Applying a key writes its
// last image or re-reads its current row, so a key changed a hundred times
// is applied once, and applying it twice is harmless. A key being applied is "in flight": it is not handed to another
// applier (two reads of one key applied out of order would leave the older
// one), and a change seen meanwhile marks it dirty so that it is applied
// again afterwards.
//
// During the copy a key is only applied once the chunk holding it is copied
// (see copiedRanges): until then it is parked under its chunk, and released
// when the chunk is done, so that handing out keys never scans parked ones.
type keySet struct {
	mu     sync.Mutex
	m      map[string]*keyEntry // every key: ready, parked or in flight
	ready  map[string]*keyEntry
	parked map[int]map[string]*keyEntry
	// chunkOf, while set, is the chunk a key must wait for (-1: none).
	chunkOf func(vals []any) int
}

type keyEntry struct {
	vals []any
	// img is the after image of the key's last change, nil when that change
	// removed the key (row images apply mode; nil throughout otherwise).
	img []any
	// seq is the tracker's count of the table's row changes at the key's
	// last change: its place in binlog order (tracker.seqAt).
	seq      int64
	inFlight bool
	dirty    bool
}

func newKeySet() *keySet {
	return &keySet{m: map[string]*keyEntry{}, ready: map[string]*keyEntry{}, parked: map[int]map[string]*keyEntry{}}
}

// add records a change of key id, the seq-th row change of the table; img
// is the row the change left (nil: the key is gone, or keys are re-read).
func (s *keySet) add(id string, vals []any, img []any, seq int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.m[id]
	switch {
	case e == nil:
		e = &keyEntry{vals: vals, img: img, seq: seq}
		s.m[id] = e
		s.place(id, e)
	case e.inFlight:
		e.img, e.dirty, e.seq = img, true, seq
	default:
		e.img, e.seq = img, seq
	}
}

// place makes a key not in flight ready, or parks it under its chunk.
func (s *keySet) place(id string, e *keyEntry) {
	if s.chunkOf != nil {
		if c := s.chunkOf(e.vals); c >= 0 {
			p := s.parked[c]
			if p == nil {
				p = map[string]*keyEntry{}
				s.parked[c] = p
			}
			p[id] = e
			return
		}
	}
	s.ready[id] = e
}

// wait parks keys by chunkOf from now on (keys already ready stay ready:
// call it before the first key is added).
func (s *keySet) wait(chunkOf func(vals []any) int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chunkOf = chunkOf
}

// release makes the keys parked under chunk c ready; mark, called under the
// set's lock, records that the chunk is done, so that no key is parked
// under it afterwards. Keys whose last change is one of the table's first
// seen row changes were read by the chunk's copy as they are (the caller
// knows, see copyChunks): they leave the set unapplied; seen 0 keeps every
// key. It returns how many left.
func (s *keySet) release(c int, mark func(), seen int64) (dropped int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if mark != nil {
		mark()
	}
	for id, e := range s.parked[c] {
		if e.seq <= seen {
			delete(s.m, id)
			dropped++
			continue
		}
		s.ready[id] = e
	}
	delete(s.parked, c)
	return dropped
}

// releaseAll ends the parking: every key is ready.
func (s *keySet) releaseAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chunkOf = nil
	for _, p := range s.parked {
		for id, e := range p {
			s.ready[id] = e
		}
	}
	clear(s.parked)
}

// take hands out up to n ready keys, with the images of their last
// changes, and marks them in flight.
func (s *keySet) take(n int) (ids []string, vals, imgs [][]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, e := range s.ready {
		if len(ids) >= n {
			break
		}
		e.inFlight, e.dirty = true, false
		delete(s.ready, id)
		ids, vals, imgs = append(ids, id), append(vals, e.vals), append(imgs, e.img)
	}
	return ids, vals, imgs
}

// done ends the flight of ids: applied keys leave the set, dirty ones (and
// all of them when the apply failed) are placed again.
func (s *keySet) done(ids []string, failed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		e := s.m[id]
		if e == nil {
			continue
		}
		if e.dirty || failed {
			e.inFlight, e.dirty = false, false
			s.place(id, e)
			continue
		}
		delete(s.m, id)
	}
}

// pendingUpTo: a key whose last change is one of the table's first seq
// row changes is still to be applied (ready, parked or in flight). When
// none is, every change up to seq has been applied by a read after it
// (a revert window's checkpoint, revert.go).
func (s *keySet) pendingUpTo(seq int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.m {
		if e.seq <= seq {
			return true
		}
	}
	return false
}

// size is the number of keys ready, parked or in flight.
func (s *keySet) size() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}

// keyCols turns row images of the table into key values the key's
// placeholders take (consistent.Key.OneOfWhere) and an identity for the set.
type keyCols struct {
	idx  []int
	cols []schema.Column
}

// newKeyCols refuses key column types whose binlog values sluice does not
// turn back into exact key parameters.
func newKeyCols(t *schema.Table, names []string) (*keyCols, error) {
	k := &keyCols{}
	for _, n := range names {
		i := t.ColumnIndex(n)
		if i < 0 {
			return nil, fmt.Errorf("key column %s not in %s", n, t.TableID)
		}
		c := t.Columns[i]
		switch strings.ToLower(c.DataType) {
		case "tinyint", "smallint", "mediumint", "int", "integer", "bigint", "year",
			"char", "varchar", "binary", "varbinary", "date", "datetime", "timestamp", "time", "enum":
		default:
			return nil, refuse("key column %s is %s: sluice alter matches changed rows by integer, string, temporal or ENUM keys only", c.Name, c.ColumnType)
		}
		k.idx, k.cols = append(k.idx, i), append(k.cols, c)
	}
	return k, nil
}

var intBits = map[string]uint{"tinyint": 8, "smallint": 16, "mediumint": 24, "int": 32, "integer": 32, "bigint": 64}

// of returns the key of a row image.
func (k *keyCols) of(row []any) (string, []any, error) {
	var sb strings.Builder
	vals := make([]any, len(k.idx))
	for j, i := range k.idx {
		c := k.cols[j]
		v, err := keyParam(c, row[i])
		if err != nil {
			return "", nil, fmt.Errorf("key column %s: %w", c.Name, err)
		}
		vals[j] = v
		switch x := v.(type) {
		case int64:
			sb.WriteString("i" + strconv.FormatInt(x, 10))
		case uint64:
			sb.WriteString("u" + strconv.FormatUint(x, 10))
		case string:
			sb.WriteString("s" + strconv.Itoa(len(x)) + ":" + x)
		case []byte:
			sb.WriteString("b" + strconv.Itoa(len(x)) + ":" + string(x))
		}
		sb.WriteByte(0)
	}
	return sb.String(), vals, nil
}

// keyParam converts one binlog value (go-mysql's decoding) into the
// parameter the key placeholder takes.
func keyParam(c schema.Column, v any) (any, error) {
	var n int64
	switch x := v.(type) {
	case nil:
		return nil, fmt.Errorf("NULL in a key column")
	case string:
		if isStringType(c) {
			return []byte(x), nil
		}
		return x, nil
	case []byte:
		if isStringType(c) {
			// Never nil: the driver sends a nil []byte as NULL, which
			// matches no row (an empty key value would be lost).
			return append([]byte{}, x...), nil
		}
		return string(x), nil
	case int8:
		n = int64(x)
	case int16:
		n = int64(x)
	case int32:
		n = int64(x)
	case int64:
		n = x
	case int:
		n = int64(x)
	case uint64:
		return x, nil
	case uint32:
		return uint64(x), nil
	case uint16:
		return uint64(x), nil
	case uint8:
		return uint64(x), nil
	default:
		return nil, fmt.Errorf("unexpected binlog value %T", v)
	}
	dt := strings.ToLower(c.DataType)
	if dt == "enum" {
		return uint64(n), nil
	}
	if c.Unsigned && n < 0 {
		// go-mysql decodes integers without signedness.
		bits := intBits[dt]
		if bits == 0 || bits == 64 {
			return uint64(n), nil
		}
		return uint64(n) & (1<<bits - 1), nil
	}
	return n, nil
}

func isStringType(c schema.Column) bool {
	switch strings.ToLower(c.DataType) {
	case "char", "varchar", "binary", "varbinary":
		return true
	}
	return false
}
