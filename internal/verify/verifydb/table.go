package verifydb

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/typemap"
)

// LoadStats reads the source's row and size estimates of the table.
func (p *Plan) LoadStats(ctx context.Context, db *sql.DB) error {
	var rows, data sql.NullInt64
	err := db.QueryRowContext(ctx, `SELECT TABLE_ROWS, DATA_LENGTH FROM information_schema.TABLES
		WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?`, p.Table.Database, p.Table.Name).Scan(&rows, &data)
	if err == sql.ErrNoRows {
		return fmt.Errorf("source table %s does not exist", p.Name)
	}
	if err != nil {
		return fmt.Errorf("source table %s statistics: %w", p.Name, err)
	}
	p.EstRows, p.EstBytes = max(rows.Int64, 0), max(data.Int64, 0)
	return nil
}

// BytesFor estimates the source bytes of n rows.
func (p *Plan) BytesFor(n int64) int64 {
	if p.EstRows <= 0 {
		return 0
	}
	return n * p.EstBytes / p.EstRows
}

// DenseKey describes a single integer key whose values fill their range
// (auto-increment keys): chunk boundaries are then computed, not read.
type DenseKey struct {
	Min, Max int64
	PerRow   float64 // key values per row
}

// DenseIntKey returns the key's range when the key is one signed integer
// column and its values are dense (at most 2 key values per row on
// average), else nil: index stepping then keeps chunks even.
func (p *Plan) DenseIntKey(ctx context.Context, db *sql.DB) (*DenseKey, error) {
	if len(p.Key) != 1 || p.Cols[p.Key[0]].Kind != typemap.KindInt {
		return nil, nil
	}
	k := schema.QuoteMySQL(p.Cols[p.Key[0]].Name)
	var lo, hi sql.NullInt64
	// An exact count costs a scan of the key; the statistics' estimate is
	// enough to choose the method (a wrong guess only makes chunks uneven).
	if err := db.QueryRowContext(ctx, "SELECT MIN("+k+"), MAX("+k+") FROM "+p.MyTable).Scan(&lo, &hi); err != nil {
		return nil, fmt.Errorf("key range of %s: %w", p.Name, err)
	}
	n := p.EstRows
	if !lo.Valid || n <= 0 {
		return nil, nil
	}
	span := float64(hi.Int64) - float64(lo.Int64) + 1
	if span > 2*float64(n) {
		return nil, nil
	}
	return &DenseKey{Min: lo.Int64, Max: hi.Int64, PerRow: span / float64(n)}, nil
}

// Next is the upper bound of the chunk after lo holding about n rows, or
// nil for the last (open) chunk.
func (d *DenseKey) Next(lo KeyBound, n int64) KeyBound {
	start := d.Min - 1
	if lo != nil {
		start, _ = strconv.ParseInt(string(lo[0]), 10, 64)
	}
	step := int64(float64(n) * d.PerRow)
	if step < 1 {
		step = 1
	}
	if start >= d.Max-step {
		return nil
	}
	return KeyBound{[]byte(strconv.FormatInt(start+step, 10))}
}

// StepBound returns the key prefix of the n-th row after lo (up to hi), or
// nil when fewer rows remain: the next chunk boundary, read from the
// source's key index.
func (p *Plan) StepBound(ctx context.Context, db *sql.DB, lo, hi KeyBound, n int) (KeyBound, error) {
	where, args, err := p.myRangeWhere(lo, hi)
	if err != nil {
		return nil, err
	}
	q := "SELECT " + strings.Join(p.MyKeySel[:p.rangeN], ", ") + " FROM " + p.MyTable + " WHERE " + where +
		" ORDER BY " + p.myKeyOrder(p.rangeN) + fmt.Sprintf(" LIMIT 1 OFFSET %d", max(n-1, 0))
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("chunk boundary of %s: %w", p.Name, err)
	}
	src := SQLRows{Rows: rows}
	defer src.Close()
	if !src.Next() {
		return nil, src.Err()
	}
	vals, err := src.Values(p.rangeN)
	if err != nil {
		return nil, fmt.Errorf("chunk boundary of %s: %w", p.Name, err)
	}
	b := make(KeyBound, len(vals))
	for i, v := range vals {
		b[i] = bytes.Clone(v)
	}
	return b, nil
}

// Split cuts a key range into ranges of about n source rows.
func (p *Plan) Split(ctx context.Context, db *sql.DB, s Scope, n int) ([]Scope, error) {
	var subs []Scope
	lo := s.Lo
	for {
		b, err := p.StepBound(ctx, db, lo, s.Hi, n)
		if err != nil {
			return nil, err
		}
		if b == nil || sameBound(b, s.Hi) {
			return append(subs, Scope{Lo: lo, Hi: s.Hi}), nil
		}
		subs = append(subs, Scope{Lo: lo, Hi: b})
		lo = b
	}
}

func sameBound(a, b KeyBound) bool {
	if a == nil || b == nil || len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}
