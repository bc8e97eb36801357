// Package postgres writes to the PostgreSQL target: binary COPY for the
// snapshot (copy*.go), small catalog helpers (conn*.go) and the compiled
// per-table apply plans of replicate (apply_plan*.go).
package postgres

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"unsafe"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// CopyOptions change how CopyFrom loads.
type CopyOptions struct {
	// Freeze loads the rows already frozen (COPY ... FREEZE): no later
	// VACUUM has to rewrite every page to set hint bits and freeze them.
	// PostgreSQL allows it only when the table was created or truncated in
	// the same transaction.
	Freeze bool
}

// RawValue is a value given in its binary COPY form: the bytes of a text,
// varchar or bytea value, or the big-endian bytes of a smallint, integer or
// bigint. A source passes a pointer to it (nil B for NULL), which boxes into
// an interface without an allocation; the bytes may alias a buffer the
// source reuses, like every value (see CopyFrom).
type RawValue struct{ B []byte }

// copyBatch is how many encoded bytes are handed to the connection at a time
// (pgconn sends COPY data in messages of up to 64 KiB).
const copyBatch = 64 << 10

// CopyFrom streams the rows of src into table with the binary COPY
// protocol and returns the number of rows PostgreSQL loaded. Unlike
// pgx.Conn.CopyFrom it can load with FREEZE. Memory: one batch of about
// 64 KiB, or one row when a row is larger; src's values are encoded before
// src.Next is called again, so they may alias a buffer src reuses.
func CopyFrom(ctx context.Context, conn *pgx.Conn, table pgx.Identifier, columns []string,
	src pgx.CopyFromSource, opts CopyOptions) (int64, error) {
	cols := make([]string, len(columns))
	for i, c := range columns {
		cols[i] = pgx.Identifier{c}.Sanitize()
	}
	colList := strings.Join(cols, ", ")
	sd, err := conn.PgConn().Prepare(ctx, "", "SELECT "+colList+" FROM "+table.Sanitize(), nil)
	if err != nil {
		return 0, fmt.Errorf("copy into %s: describe columns: %w", table.Sanitize(), err)
	}
	if len(sd.Fields) != len(columns) {
		return 0, fmt.Errorf("copy into %s: %d columns described, want %d", table.Sanitize(), len(sd.Fields), len(columns))
	}
	r := &copyReader{src: src, m: conn.TypeMap(), oids: make([]uint32, len(sd.Fields)), plans: make([]colPlan, len(sd.Fields))}
	for i, f := range sd.Fields {
		r.oids[i] = f.DataTypeOID
	}
	with := "FORMAT binary"
	if opts.Freeze {
		with += ", FREEZE"
	}
	tag, err := conn.PgConn().CopyFrom(ctx, r, "COPY "+table.Sanitize()+" ("+colList+") FROM STDIN WITH ("+with+")")
	if r.err != nil {
		// The source's own error (a MySQL read or a conversion), not the
		// server's echo of it.
		return 0, r.err
	}
	if err != nil {
		return 0, fmt.Errorf("copy into %s: %w", table.Sanitize(), err)
	}
	return tag.RowsAffected(), nil
}

// copyReader encodes rows into the binary COPY format on demand.
type copyReader struct {
	src    pgx.CopyFromSource
	m      *pgtype.Map
	oids   []uint32
	buf    []byte
	off    int
	header bool
	done   bool
	err    error
	// row is the row being encoded (nil between rows) and col the next of
	// its columns; big is a large value handed to PostgreSQL straight from
	// the source's memory after buf, without copying it into buf.
	row []any
	col int
	big []byte
	// plans caches each column's encode plan for the Go type it last had
	// (a column's values have one type), saving pgx's plan lookups per value.
	plans []colPlan
}

type colPlan struct {
	typ  reflect.Type
	plan pgtype.EncodePlan
}

// bigValue is the size from which a bytea or text value is sent from the
// source's memory instead of being copied into the batch buffer.
const bigValue = 32 << 10

var copyHeader = []byte("PGCOPY\n\377\r\n\000\x00\x00\x00\x00\x00\x00\x00\x00")

func (r *copyReader) Read(p []byte) (int, error) {
	switch {
	case r.off < len(r.buf):
		n := copy(p, r.buf[r.off:])
		r.off += n
		return n, nil
	case len(r.big) > 0:
		n := copy(p, r.big)
		r.big = r.big[n:]
		return n, nil
	case r.done:
		return 0, io.EOF
	}
	if err := r.fill(); err != nil {
		r.err = err
		return 0, err
	}
	return r.Read(p)
}

// fill encodes rows until a batch is full, a large value is next, or the
// source ends. The source's current row stays valid until fill asks for
// the next one, which happens only after everything before was read.
func (r *copyReader) fill() error {
	if cap(r.buf) > 4*copyBatch {
		r.buf = nil // do not keep a huge row's buffer for the rest of the copy
	}
	r.buf, r.off = r.buf[:0], 0
	if !r.header {
		r.buf = append(r.buf, copyHeader...)
		r.header = true
	}
	for len(r.buf) < copyBatch {
		if r.row == nil {
			if !r.src.Next() {
				if err := r.src.Err(); err != nil {
					return err
				}
				r.buf = binary.BigEndian.AppendUint16(r.buf, 0xffff) // trailer: -1 fields
				r.done = true
				return nil
			}
			vals, err := r.src.Values()
			if err != nil {
				return err
			}
			if len(vals) != len(r.oids) {
				return fmt.Errorf("copy: row has %d values, want %d", len(vals), len(r.oids))
			}
			r.row, r.col = vals, 0
			r.buf = binary.BigEndian.AppendUint16(r.buf, uint16(len(vals)))
		}
		for r.col < len(r.row) {
			v, oid := r.row[r.col], r.oids[r.col]
			r.col++
			b, ok := rawBinary(v, oid)
			if rv, isRaw := v.(*RawValue); isRaw {
				if err := checkRaw(rv.B, oid); err != nil {
					return fmt.Errorf("copy: column %d: %w", r.col, err)
				}
				if rv.B == nil {
					r.buf = binary.BigEndian.AppendUint32(r.buf, 0xffffffff)
					continue
				}
				b, ok = rv.B, true
			}
			if ok {
				r.buf = binary.BigEndian.AppendUint32(r.buf, uint32(len(b)))
				if len(b) >= bigValue {
					r.big = b
					return nil
				}
				r.buf = append(r.buf, b...)
				continue
			}
			var err error
			if r.buf, err = r.encode(r.col-1, v); err != nil {
				return fmt.Errorf("copy: column %d: %w", r.col, err)
			}
		}
		r.row = nil
	}
	return nil
}

// checkRaw makes sure a RawValue suits its column: a type whose binary
// form is the bytes themselves, or an integer of the column's width.
func checkRaw(b []byte, oid uint32) error {
	want := -1
	switch oid {
	case pgtype.TextOID, pgtype.VarcharOID, pgtype.BPCharOID, pgtype.ByteaOID:
		return nil
	case pgtype.Int2OID:
		want = 2
	case pgtype.Int4OID:
		want = 4
	case pgtype.Int8OID:
		want = 8
	}
	if b == nil || len(b) == want {
		return nil
	}
	return fmt.Errorf("internal error: raw value of %d bytes for type oid %d", len(b), oid)
}

// rawBinary returns the bytes of a value whose binary COPY form is those
// bytes as they are: bytea from []byte, text, varchar and char from a
// string or []byte (the caller made sure a []byte holds valid UTF-8 text).
func rawBinary(v any, oid uint32) ([]byte, bool) {
	text := oid == pgtype.TextOID || oid == pgtype.VarcharOID || oid == pgtype.BPCharOID
	switch x := v.(type) {
	case []byte:
		if (oid == pgtype.ByteaOID || text) && x != nil {
			return x, true
		}
	case string:
		if text {
			return unsafe.Slice(unsafe.StringData(x), len(x)), true // read only
		}
	}
	return nil, false
}

// encode appends one value of column i, with the column's cached plan
// when the value has the type the plan was made for.
func (r *copyReader) encode(i int, v any) ([]byte, error) {
	if v == nil {
		return binary.BigEndian.AppendUint32(r.buf, 0xffffffff), nil
	}
	t := reflect.TypeOf(v)
	cp := &r.plans[i]
	if cp.typ != t || cp.plan == nil {
		if cp.plan = r.m.PlanEncode(r.oids[i], pgtype.BinaryFormatCode, v); cp.plan == nil {
			return encodeValue(r.m, r.buf, r.oids[i], v)
		}
		cp.typ = t
	}
	sp := len(r.buf)
	buf := binary.BigEndian.AppendUint32(r.buf, 0xffffffff)
	out, err := cp.plan.Encode(v, buf)
	if err != nil || out == nil {
		// Let the general path decide (text fallback, driver valuers, NULL).
		return encodeValue(r.m, r.buf[:sp], r.oids[i], v)
	}
	binary.BigEndian.PutUint32(out[sp:], uint32(len(out)-sp-4))
	return out, nil
}

// encodeValue appends one length-prefixed binary value (-1 for NULL), like
// pgx's own CopyFrom: a value pgx cannot encode in binary directly is parsed
// from its text form first.
func encodeValue(m *pgtype.Map, buf []byte, oid uint32, v any) ([]byte, error) {
	sp := len(buf)
	buf = binary.BigEndian.AppendUint32(buf, 0xffffffff)
	out, err := m.Encode(oid, pgtype.BinaryFormatCode, v, buf)
	if err != nil {
		out, err = encodeViaText(m, buf, oid, v)
		if err != nil {
			return nil, err
		}
	}
	if out == nil { // NULL
		return buf, nil
	}
	binary.BigEndian.PutUint32(out[sp:], uint32(len(out)-sp-4))
	return out, nil
}

func encodeViaText(m *pgtype.Map, buf []byte, oid uint32, v any) ([]byte, error) {
	s, ok := v.(string)
	if !ok {
		text, err := m.Encode(oid, pgtype.TextFormatCode, v, nil)
		if err != nil {
			return nil, fmt.Errorf("cannot encode %T for type oid %d", v, oid)
		}
		s = string(text)
	}
	var parsed any
	if err := m.Scan(oid, pgtype.TextFormatCode, []byte(s), &parsed); err != nil {
		return nil, err
	}
	return m.Encode(oid, pgtype.BinaryFormatCode, parsed, buf)
}

// IsSQLState reports whether err is a PostgreSQL error with the given code.
func IsSQLState(err error, code string) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == code
}
