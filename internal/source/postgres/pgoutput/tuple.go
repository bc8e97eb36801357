package pgoutput

import (
	"encoding/binary"
	"fmt"

	"github.com/jackc/pglogrepl"

	"github.com/sluice-db/sluice/internal/model"
)

// Insert, Update and Delete messages are most of what a slot sends, so they
// are read here rather than through pglogrepl.ParseV2, whose TupleData
// allocates a column struct and a copy of its bytes for every value (a
// fifth of the stream's allocations at a backlog's rate). The columns here
// point into the message: a conv copies what it keeps (values.go), and
// nothing else outlives the call that decodes the row.

// tupleCol is one column of a TupleData: its kind ('n' null, 'u' unchanged
// TOASTed value, 't' text, 'b' binary) and, for 't' and 'b', its bytes.
type tupleCol struct {
	kind byte
	data []byte
}

// rowMsg is an Insert, Update or Delete message.
type rowMsg struct {
	op  model.Op
	rel uint32
	// oldType is 'K' (key columns only) or 'O' (the whole old row), 0
	// when the message has no old tuple.
	oldType  byte
	old, new []tupleCol // nil when absent
}

// isRowMsg reports whether a pgoutput message is an Insert, Update or Delete.
func isRowMsg(data []byte) bool {
	return len(data) > 0 && (data[0] == 'I' || data[0] == 'U' || data[0] == 'D')
}

// parseRow reads an Insert, Update or Delete message (streamed: inside a
// Stream Start … Stop block, where a transaction id follows the type). The
// tuples are appended to oldBuf and newBuf (scratch slices the caller reuses).
func parseRow(data []byte, streamed bool, oldBuf, newBuf []tupleCol) (rowMsg, error) {
	var m rowMsg
	p := 1
	if streamed {
		p += 4
	}
	if !isRowMsg(data) || len(data) < p+5 {
		return m, fmt.Errorf("reverse source: a row message of %d bytes is too short", len(data))
	}
	m.rel = binary.BigEndian.Uint32(data[p:])
	p += 4
	var err error
	var n int
	switch data[0] {
	case 'I':
		m.op = model.Insert
	case 'U':
		m.op = model.Update
		if data[p] == 'K' || data[p] == 'O' {
			m.oldType = data[p]
			if m.old, n, err = parseTuple(data[p+1:], oldBuf[:0]); err != nil {
				return m, err
			}
			p += 1 + n
		}
	case 'D':
		m.op = model.Delete
		if data[p] != 'K' && data[p] != 'O' {
			return m, fmt.Errorf("reverse source: a Delete message with old tuple kind %q", data[p])
		}
		m.oldType = data[p]
		m.old, _, err = parseTuple(data[p+1:], oldBuf[:0])
		return m, err
	}
	if p >= len(data) || data[p] != 'N' {
		return m, fmt.Errorf("reverse source: an %s message without its new tuple", m.op)
	}
	m.new, _, err = parseTuple(data[p+1:], newBuf[:0])
	return m, err
}

// parseTuple reads a TupleData into dst and returns its length in bytes.
func parseTuple(src []byte, dst []tupleCol) ([]tupleCol, int, error) {
	if len(src) < 2 {
		return nil, 0, fmt.Errorf("reverse source: a tuple of %d bytes is too short", len(src))
	}
	ncols := int(binary.BigEndian.Uint16(src))
	if dst == nil {
		dst = make([]tupleCol, 0, ncols) // present, even without columns
	}
	p := 2
	for range ncols {
		if p >= len(src) {
			return nil, 0, fmt.Errorf("reverse source: a tuple of %d columns ends after %d bytes", ncols, len(src))
		}
		c := tupleCol{kind: src[p]}
		p++
		switch c.kind {
		case pglogrepl.TupleDataTypeText, pglogrepl.TupleDataTypeBinary:
			if p+4 > len(src) {
				return nil, 0, fmt.Errorf("reverse source: a tuple's column length past its end")
			}
			n := int(binary.BigEndian.Uint32(src[p:]))
			p += 4
			if n < 0 || n > len(src)-p {
				return nil, 0, fmt.Errorf("reverse source: a tuple column of %d bytes past its end", n)
			}
			c.data = src[p : p+n : p+n]
			p += n
		case pglogrepl.TupleDataTypeNull, pglogrepl.TupleDataTypeToast:
		default:
			return nil, 0, fmt.Errorf("reverse source: unexpected tuple data kind %q", c.kind)
		}
		dst = append(dst, c)
	}
	return dst, p, nil
}
