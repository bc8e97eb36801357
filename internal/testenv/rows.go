package testenv

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// Null is how MySQLRows and PGRows print a NULL.
const Null = "NULL"

// MySQLRows runs q and returns every row as its columns' text joined by
// "|" (NULL as Null), in the order the server returns them.
func MySQLRows(t testing.TB, db *sql.DB, q string, args ...any) []string {
	t.Helper()
	var out []string
	for _, vals := range MySQLTexts(t, db, q, args...) {
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = Null
			if v.Valid {
				parts[i] = v.String
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
	return out
}

// MySQLTexts runs q and returns every row's values in the text protocol's
// form, in the order the server returns them.
func MySQLTexts(t testing.TB, db *sql.DB, q string, args ...any) [][]sql.NullString {
	t.Helper()
	rows, err := db.QueryContext(context.Background(), q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	var out [][]sql.NullString
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}

// PGTexts runs q and returns every row's values as PostgreSQL's text
// output (nil for NULL), in the order the server returns them.
func PGTexts(t testing.TB, pg PGQuerier, q string, args ...any) [][]*string {
	t.Helper()
	rows, err := pg.Query(context.Background(), q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out [][]*string
	for rows.Next() {
		vals := make([]*string, len(rows.FieldDescriptions()))
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}

// PGQuerier is what PGRows queries: a *pgxpool.Pool, *pgx.Conn or pgx.Tx.
type PGQuerier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// PGRows runs q and returns every row as its values printed by fmt.Sprint
// joined by "|" (NULL as Null), in the order the server returns them.
func PGRows(t testing.TB, pg PGQuerier, q string, args ...any) []string {
	t.Helper()
	rows, err := pg.Query(context.Background(), q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = Null
			if v != nil {
				parts[i] = fmt.Sprint(v)
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}
