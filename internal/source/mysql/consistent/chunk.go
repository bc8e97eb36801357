package consistent

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/sluice-db/sluice/internal/schema"
)

// Chunk is one key range (Lo, Hi] of a table; nil bounds are open. A table
// without a usable key is one chunk with a nil Key. The ranges of a table
// partition its whole key space, so every row, whenever it is read, falls in
// exactly one chunk.
type Chunk struct {
	Table schema.TableID
	Seq   int // 1, 2, ... in key order
	Lo    Bound
	Hi    Bound
}

func (c Chunk) String() string {
	return fmt.Sprintf("%s chunk %d (%s, %s]", c.Table, c.Seq, boundText(c.Lo, "-∞"), boundText(c.Hi, "+∞"))
}

func boundText(b Bound, open string) string {
	if b == nil {
		return open
	}
	s := make([]string, len(b))
	for i, v := range b {
		s[i] = fmt.Sprintf("%q", v)
	}
	return "(" + strings.Join(s, ",") + ")"
}

// NextBound returns the key of the step-th row after from (nil: from the
// start), stepping through the key's index inside the session's snapshot, so
// that chunk boundaries agree with the data the chunks read. It returns nil
// when fewer than step rows follow: the rest is the last chunk.
func (k *Key) NextBound(ctx context.Context, c *sql.Conn, table schema.TableID, from Bound, step int64) (Bound, error) {
	return k.NextBoundBefore(ctx, c, table, from, nil, step)
}

// NextBoundBefore is NextBound within (from, to]: nil when fewer than step
// rows follow from up to to (nil: the end).
func (k *Key) NextBoundBefore(ctx context.Context, c *sql.Conn, table schema.TableID, from, to Bound, step int64) (Bound, error) {
	if step < 1 {
		step = 1
	}
	where, args, err := k.rangeWhere(from, to)
	if err != nil {
		return nil, err
	}
	q := "SELECT " + k.selectList() + " FROM " + QuoteTable(table) + k.forceIndex()
	if where != "" {
		q += " WHERE " + where
	}
	q += fmt.Sprintf(" ORDER BY %s LIMIT 1 OFFSET %d", k.orderBy(), step-1)
	rows, err := c.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("plan chunks of %s: %w", table, err)
	}
	defer rows.Close()
	if !rows.Next() {
		return nil, rows.Err()
	}
	raw := make([]sql.RawBytes, len(k.Parts))
	dest := make([]any, len(raw))
	for i := range raw {
		dest[i] = &raw[i]
	}
	if err := rows.Scan(dest...); err != nil {
		return nil, fmt.Errorf("plan chunks of %s: %w", table, err)
	}
	b := make(Bound, len(raw))
	for i, v := range raw {
		if v == nil {
			return nil, fmt.Errorf("plan chunks of %s: key column %s is NULL", table, k.Parts[i].Column.Name)
		}
		b[i] = append([]byte{}, v...)
	}
	return b, rows.Close()
}

// Query is a chunk read: the SQL and its arguments.
type Query struct {
	SQL  string
	Args []any
}

// ChunkQuery builds the read of one chunk: selectExprs (one per copied
// column, see typemap.SelectExpr) of the rows in (lo, hi], in key order,
// and only those matching filter (a --where condition as SQL; "" for all).
// A nil key reads the whole table.
func ChunkQuery(k *Key, table schema.TableID, selectExprs []string, filter string, lo, hi Bound) (Query, error) {
	q := "SELECT " + strings.Join(selectExprs, ", ") + " FROM " + QuoteTable(table)
	if filter != "" {
		filter = "(" + filter + ")"
	}
	if k == nil {
		if lo != nil || hi != nil {
			return Query{}, errors.New("a table without key has no ranges")
		}
		if filter != "" {
			q += " WHERE " + filter
		}
		return Query{SQL: q}, nil
	}
	where, args, err := k.rangeWhere(lo, hi)
	if err != nil {
		return Query{}, err
	}
	q += k.forceIndex()
	switch {
	case where != "" && filter != "":
		q += " WHERE " + where + " AND " + filter
	case where != "" || filter != "":
		q += " WHERE " + where + filter
	}
	q += " ORDER BY " + k.orderBy()
	return Query{SQL: q, Args: args}, nil
}

// Rows streams the raw values of a chunk read. Values are only valid until
// the next call to Next: they alias the driver's buffer (no copy per value).
type Rows struct {
	rows *sql.Rows
	raw  []sql.RawBytes
	dest []any
	vals [][]byte
	err  error

	throttle *Throttle      // throttle.go; nil: no limit
	mask     func([][]byte) // rewrites each row before it is handed out (SetMask)
	ctx      context.Context
	owed     int // bytes read and not yet waited for
}

// Read starts a chunk read on one session.
func Read(ctx context.Context, c *sql.Conn, q Query) (*Rows, error) {
	rows, err := c.QueryContext(ctx, q.SQL, q.Args...)
	if err != nil {
		return nil, err
	}
	cols, err := rows.Columns()
	if err != nil {
		rows.Close()
		return nil, err
	}
	r := &Rows{rows: rows, raw: make([]sql.RawBytes, len(cols)), dest: make([]any, len(cols)), vals: make([][]byte, len(cols))}
	for i := range r.raw {
		r.dest[i] = &r.raw[i]
	}
	return r, nil
}

// Next advances to the next row.
func (r *Rows) Next() bool {
	if r.err != nil || !r.rows.Next() {
		r.settle()
		return false
	}
	if err := r.rows.Scan(r.dest...); err != nil {
		r.err = err
		return false
	}
	for i, v := range r.raw {
		r.vals[i] = v
	}
	if r.mask != nil {
		r.mask(r.vals)
	}
	if err := r.account(); err != nil {
		r.err = err
		return false
	}
	return true
}

// SetMask has every row rewritten by mask (column masks, internal/rowpolicy)
// before Values returns it, so no reader sees the clear values; nil: none.
func (r *Rows) SetMask(mask func([][]byte)) { r.mask = mask }

// Values returns the current row: nil for SQL NULL, else the text-protocol
// bytes (possibly empty).
func (r *Rows) Values() [][]byte { return r.vals }

// Err returns the first error of the read.
func (r *Rows) Err() error {
	if r.err != nil {
		return r.err
	}
	return r.rows.Err()
}

// Close ends the read (draining what the server still sends).
func (r *Rows) Close() error { return r.rows.Close() }
