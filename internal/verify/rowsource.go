package verify

import (
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// rowSource streams rows of text values from either engine. Values are
// valid until the next call to Next; nil is SQL NULL.
type rowSource interface {
	Next() bool
	Values(n int) ([][]byte, error)
	Err() error
	Close()
}

// sqlRows reads a MySQL result.
type sqlRows struct{ rows *sql.Rows }

func (r sqlRows) Next() bool { return r.rows.Next() }
func (r sqlRows) Err() error { return r.rows.Err() }
func (r sqlRows) Close()     { r.rows.Close() }
func (r sqlRows) Values(n int) ([][]byte, error) {
	raw := make([]sql.RawBytes, n)
	ptrs := make([]any, n)
	for i := range raw {
		ptrs[i] = &raw[i]
	}
	if err := r.rows.Scan(ptrs...); err != nil {
		return nil, err
	}
	out := make([][]byte, n)
	for i, b := range raw {
		out[i] = b
	}
	return out, nil
}

// pgRows reads a PostgreSQL result whose columns are all text (every
// query built here casts to text): the raw values are then the UTF-8 bytes.
type pgRows struct{ rows pgx.Rows }

func (r pgRows) Next() bool { return r.rows.Next() }
func (r pgRows) Err() error { return r.rows.Err() }
func (r pgRows) Close()     { r.rows.Close() }
func (r pgRows) Values(n int) ([][]byte, error) {
	raw := r.rows.RawValues()
	if len(raw) != n {
		return nil, fmt.Errorf("got %d columns, want %d", len(raw), n)
	}
	return raw, nil
}
