package verifydb

import (
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// RowSource streams rows of text values from either engine. Values are
// valid until the next call to Next; nil is SQL NULL.
type RowSource interface {
	Next() bool
	Values(n int) ([][]byte, error)
	Err() error
	Close()
}

// SQLRows reads a MySQL result.
type SQLRows struct{ Rows *sql.Rows }

func (r SQLRows) Next() bool { return r.Rows.Next() }
func (r SQLRows) Err() error { return r.Rows.Err() }
func (r SQLRows) Close()     { r.Rows.Close() }
func (r SQLRows) Values(n int) ([][]byte, error) {
	raw := make([]sql.RawBytes, n)
	ptrs := make([]any, n)
	for i := range raw {
		ptrs[i] = &raw[i]
	}
	if err := r.Rows.Scan(ptrs...); err != nil {
		return nil, err
	}
	out := make([][]byte, n)
	for i, b := range raw {
		out[i] = b
	}
	return out, nil
}

// PGRows reads a PostgreSQL result whose columns are all text (every
// query built here casts to text): the raw values are then the UTF-8 bytes.
type PGRows struct{ Rows pgx.Rows }

func (r PGRows) Next() bool { return r.Rows.Next() }
func (r PGRows) Err() error { return r.Rows.Err() }
func (r PGRows) Close()     { r.Rows.Close() }
func (r PGRows) Values(n int) ([][]byte, error) {
	raw := r.Rows.RawValues()
	if len(raw) != n {
		return nil, fmt.Errorf("got %d columns, want %d", len(raw), n)
	}
	return raw, nil
}
