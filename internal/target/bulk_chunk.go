package target

import (
	"encoding/binary"
	"fmt"

	"github.com/cespare/xxhash/v2"

	"github.com/sluice-db/sluice/internal/source/mysql/consistent"
)

// ChunkRows is one snapshot chunk's rows as the source returns them, for
// an engine's bulk writer: it folds every raw row into the chunk hash and
// counts it, reporting progress every 1,024 rows. It is a concrete type
// over the source's concrete reader, so the per-row work of every writer
// (Next, Values) stays a direct call: no interface call and no boxing per
// row or value.
type ChunkRows struct {
	rd    *consistent.Rows
	h     RowHash
	rows  int64
	bytes int64
	// progress receives the rows and bytes counted since its last call;
	// pRows and pBytes are those not reported yet.
	progress      func(rows, bytes int64)
	pRows, pBytes int64
}

// NewChunkRows reads rd for a writer; progress (nil: none) receives the
// rows and bytes read, in steps.
func NewChunkRows(rd *consistent.Rows, progress func(rows, bytes int64)) *ChunkRows {
	return &ChunkRows{rd: rd, h: NewRowHash(), progress: progress}
}

// Next moves to the next row (Values).
func (s *ChunkRows) Next() bool {
	if !s.rd.Next() {
		return false
	}
	n := s.h.Add(s.rd.Values())
	s.rows++
	s.bytes += n
	s.pRows++
	s.pBytes += n
	if s.pRows >= 1024 {
		s.Flush()
	}
	return true
}

// Values are the current row's raw values (nil: NULL); they alias the
// driver's buffer until the next call to Next.
func (s *ChunkRows) Values() [][]byte { return s.rd.Values() }

// Err is the read's error, naming the row it stopped at.
func (s *ChunkRows) Err() error {
	if err := s.rd.Err(); err != nil {
		return fmt.Errorf("source: read row %d: %w", s.rows+1, err)
	}
	return nil
}

// Close ends the read.
func (s *ChunkRows) Close() { s.rd.Close() }

// Flush reports the rows counted since the last report to the progress.
func (s *ChunkRows) Flush() {
	if s.progress != nil && (s.pRows > 0 || s.pBytes > 0) {
		s.progress(s.pRows, s.pBytes)
	}
	s.pRows, s.pBytes = 0, 0
}

// Rows and Bytes are what was read so far; Sum is the chunk hash of those
// rows (RowHash).
func (s *ChunkRows) Rows() int64  { return s.rows }
func (s *ChunkRows) Bytes() int64 { return s.bytes }
func (s *ChunkRows) Sum() []byte  { return s.h.Sum() }

// RowHash is the chunk hash: 128 bits (xxHash64 under two seeds) over
// every raw value as the source returned it, each as a NULL marker or a
// length-prefixed byte string, so no two different chunks hash alike by
// accident of concatenation. A resumed run compares it (and the row count)
// to decide whether a chunk copied at an earlier instant still holds the
// same rows; a changed chunk going unnoticed takes a 2^-128 accident. It is
// not a defence against crafted collisions, which nobody controls here.
// Small values are gathered per row so the digests see one write per row.
type RowHash struct {
	a, b *xxhash.Digest
	buf  []byte
}

const hashDirect = 256 // values from this size are written to the digests directly

// NewRowHash starts a chunk hash.
func NewRowHash() RowHash {
	return RowHash{a: xxhash.NewWithSeed(0x736c75696365), b: xxhash.NewWithSeed(0x736e617073686f74), buf: make([]byte, 0, 512)}
}

// Add hashes one row and returns its size in bytes.
func (h *RowHash) Add(raw [][]byte) int64 {
	var n int64
	h.buf = h.buf[:0]
	for _, v := range raw {
		if v == nil {
			h.buf = append(h.buf, 0)
			continue
		}
		h.buf = append(h.buf, 1)
		h.buf = binary.AppendUvarint(h.buf, uint64(len(v)))
		n += int64(len(v))
		if len(v) < hashDirect {
			h.buf = append(h.buf, v...)
			continue
		}
		h.write(h.buf)
		h.write(v)
		h.buf = h.buf[:0]
	}
	h.buf = append(h.buf, '\n')
	h.write(h.buf)
	return n
}

func (h *RowHash) write(p []byte) {
	h.a.Write(p)
	h.b.Write(p)
}

// Sum is the 16-byte hash of the rows added.
func (h *RowHash) Sum() []byte { return h.b.Sum(h.a.Sum(nil)) }
