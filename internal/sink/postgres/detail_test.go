package postgres

import (
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

func TestPgDetail(t *testing.T) {
	err := fmt.Errorf("exec: %w", &pgconn.PgError{Message: "duplicate key", Detail: "Key (id)=(1) already exists."})
	if got := pgDetail(err); got != "Key (id)=(1) already exists." {
		t.Fatalf("wrapped PgError: %q", got)
	}
	if got := pgDetail(errors.New("conn closed")); got != "" {
		t.Fatalf("plain error: %q", got)
	}
}
