package postgres

import (
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestUniqueCollision: a unique index PostgreSQL cannot build names the
// duplicated key and the policies that make distinct source rows equal
// (found by TestFuzzDifferential: zero dates in a DATETIME NOT NULL key
// became -infinity twice); other errors pass unchanged.
func TestUniqueCollision(t *testing.T) {
	dup := &pgconn.PgError{Code: "23505", Message: "could not create unique index \"t_pkey\"",
		Detail: "Key (d)=(-infinity) is duplicated."}
	err := uniqueCollision(dup)
	for _, want := range []string{"Key (d)=(-infinity) is duplicated", "--zero-date", "--nul-char"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v: want %q", err, want)
		}
	}
	if !errors.Is(err, dup) {
		t.Errorf("the PostgreSQL error is not wrapped")
	}
	other := &pgconn.PgError{Code: "42P07"}
	if got := uniqueCollision(other); got != other {
		t.Errorf("other error changed: %v", got)
	}
}
