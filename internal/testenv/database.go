package testenv

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// maxPrefixLen keeps generated names at most 48 characters: under MySQL's 64-character limit
// and PostgreSQL's 63, with room for suffixes a test may append (e.g. name + "_shadow").
const maxPrefixLen = 20

var nameCounter atomic.Int64

// UniqueName returns a lowercase identifier [a-z0-9_] that no other test, in this or any other
// test binary running at the same time, gets: prefix_pid_counter_random, at most 48 characters.
func UniqueName(prefix string) string {
	p := sanitizePrefix(prefix)
	var rnd [3]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		panic("testenv: crypto/rand: " + err.Error()) // never happens on Linux
	}
	return p + "_" + strconv.FormatInt(int64(os.Getpid()), 36) + "_" +
		strconv.FormatInt(nameCounter.Add(1), 36) + "_" + hex.EncodeToString(rnd[:])
}

// sanitizePrefix lowercases, replaces anything but [a-z0-9_] with '_', and never starts with a digit.
func sanitizePrefix(prefix string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(prefix) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
		if b.Len() >= maxPrefixLen {
			break
		}
	}
	p := b.String()
	if p == "" || (p[0] >= '0' && p[0] <= '9') {
		p = "t" + p
	}
	return p
}

// NewDatabase creates a fresh, uniquely named MySQL database (utf8mb4) and returns its name.
// When the test ends it drops the database and every PostgreSQL schema in the target database
// named like it (the name itself or name_*), which is where sluice puts its copy.
// SLUICE_TEST_KEEP=1 keeps both for debugging.
func (e *Env) NewDatabase(t testing.TB, prefix string) string {
	t.Helper()
	name := UniqueName(prefix)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := sql.Open("mysql", e.mysqlAdmin.DSN("", nil))
	if err != nil {
		t.Fatalf("testenv: open MySQL %s: %v", e.mysqlAdmin.Redacted(), err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "CREATE DATABASE `"+name+"` CHARACTER SET utf8mb4"); err != nil {
		t.Fatalf("testenv: create MySQL database %s: %v", name, err)
	}
	t.Cleanup(func() {
		if truthy(os.Getenv("SLUICE_TEST_KEEP")) {
			t.Logf("testenv: SLUICE_TEST_KEEP set, keeping MySQL database and PostgreSQL schemas %s", name)
			return
		}
		e.dropDatabase(t, name)
	})
	return name
}

// dropDatabase removes the MySQL database and the same-named PostgreSQL schemas.
func (e *Env) dropDatabase(t testing.TB, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	db, err := sql.Open("mysql", e.mysqlAdmin.DSN("", nil))
	if err == nil {
		_, err = db.ExecContext(ctx, "DROP DATABASE IF EXISTS `"+name+"`")
		_ = db.Close()
	}
	if err != nil {
		t.Errorf("testenv: cleanup: drop MySQL database %s: %v", name, err)
	}
	pool, err := pgxpool.New(ctx, e.pgAdmin)
	if err != nil {
		t.Errorf("testenv: cleanup: connect PostgreSQL %s: %v", redactURL(e.pgAdmin), err)
		return
	}
	defer pool.Close()
	if err := dropSchemas(ctx, pool, name); err != nil {
		t.Errorf("testenv: cleanup: drop PostgreSQL schemas %s: %v", name, err)
	}
}

// dropSchemas drops the schema name and every schema name_* with CASCADE.
func dropSchemas(ctx context.Context, pool *pgxpool.Pool, name string) error {
	rows, err := pool.Query(ctx,
		`SELECT nspname::text FROM pg_namespace WHERE nspname::text = $1::text OR starts_with(nspname::text, $1::text || '_')`, name)
	if err != nil {
		return err
	}
	schemas, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	for _, s := range schemas {
		if _, err := pool.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{s}.Sanitize()+" CASCADE"); err != nil {
			return err
		}
	}
	return nil
}
