package consistent

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestWindowReadReadOnlyUser: with only SELECT, REPLICATION SLAVE and
// REPLICATION CLIENT, a user reads both watermarks and a window's chunk
// (the first n rows after a bound, every value compared); and the chunk's
// locking read waits for an uncommitted writer of its rows and returns the
// committed value, where a plain read returns the old one at once (the
// hazard the lock closes). MariaDB and MySQL 9.7.
func TestWindowReadReadOnlyUser(t *testing.T) {
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		ctx := context.Background()
		db := env.NewDatabase(t, "window_ro")
		admin := env.MySQL(t, db)
		if _, err := admin.ExecContext(ctx, "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20))"); err != nil {
			t.Fatal(err)
		}
		for i := 1; i <= 10; i++ {
			if _, err := admin.ExecContext(ctx, "INSERT INTO t VALUES (?, ?)", i, fmt.Sprintf("v%d", i)); err != nil {
				t.Fatal(err)
			}
		}
		_, url := env.CloudUser(t, admin, db, []string{"REPLICATION SLAVE", "REPLICATION CLIENT"})
		m, err := config.ParseSource(url)
		if err != nil {
			t.Fatal(err)
		}
		ro, err := m.OpenDB()
		if err != nil {
			t.Fatal(err)
		}
		defer ro.Close()
		cat := loadTables(t, ro, db)
		tb := cat.Tables[0]
		k, err := NewKey(tb)
		if err != nil {
			t.Fatal(err)
		}
		q, err := WindowQuery(k, tb.TableID, []string{"`id`", "`v`"}, "", Bound{[]byte("3")}, 4)
		if err != nil {
			t.Fatal(err)
		}
		conn, err := ro.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, "SET SESSION innodb_lock_wait_timeout = 5"); err != nil {
			t.Fatal(err)
		}
		low := position(t, conn, env)
		if got := read(t, ctx, conn, q); got != "4=v4,5=v5,6=v6,7=v7" {
			t.Fatalf("chunk after 3, 4 rows: %s", got)
		}
		if high := position(t, conn, env); high == "" || low == "" {
			t.Fatalf("watermarks %q, %q", low, high)
		}

		// An uncommitted writer of a row in the chunk.
		w, err := admin.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Rollback() //nolint:errcheck
		if _, err := w.ExecContext(ctx, "UPDATE t SET v = 'new' WHERE id = 5"); err != nil {
			t.Fatal(err)
		}
		plain, err := ChunkQuery(k, tb.TableID, []string{"`id`", "`v`"}, "", Bound{[]byte("3")}, Bound{[]byte("7")})
		if err != nil {
			t.Fatal(err)
		}
		if got := read(t, ctx, conn, plain); got != "4=v4,5=v5,6=v6,7=v7" {
			t.Fatalf("plain read beside an uncommitted writer: %s", got)
		}
		done := make(chan string, 1)
		go func() { done <- read(t, ctx, conn, q) }()
		select {
		case got := <-done:
			t.Fatalf("the locking read did not wait for the uncommitted writer: %s", got)
		case <-time.After(500 * time.Millisecond):
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		select {
		case got := <-done:
			if got != "4=v4,5=new,6=v6,7=v7" {
				t.Fatalf("locking read after the writer committed: %s", got)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the locking read still waits after the writer committed")
		}
	})
}

// read runs a chunk read and spells its rows as id=v,...
func read(t *testing.T, ctx context.Context, c *sql.Conn, q Query) string {
	rows, err := Read(ctx, c, q)
	if err != nil {
		t.Error(err)
		return err.Error()
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		v := rows.Values()
		out = append(out, string(v[0])+"="+string(v[1]))
	}
	if err := rows.Err(); err != nil {
		t.Error(err)
	}
	return strings.Join(out, ",")
}

// position reads the source's binlog file:position as the read-only user.
func position(t *testing.T, c *sql.Conn, env *testenv.Env) string {
	row := firstRow(t, c, env.BinlogStatusSQL())
	return row["File"] + ":" + row["Position"]
}

// firstRow is the first row of a query by column name, as text.
func firstRow(t *testing.T, c *sql.Conn, q string, args ...any) map[string]string {
	t.Helper()
	rows, err := c.QueryContext(context.Background(), q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if !rows.Next() {
		t.Fatalf("%s: no row", q)
	}
	if err := rows.Scan(ptrs...); err != nil {
		t.Fatal(err)
	}
	row := make(map[string]string, len(cols))
	for i, name := range cols {
		row[name] = vals[i].String
	}
	return row
}
