package reverse

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestReverseToastUnchanged: an UPDATE that leaves a large (TOASTed) value
// unchanged comes without it ('u' in pgoutput); the stream takes it from
// the whole old row (the slot's tables are REPLICA IDENTITY FULL) and
// MySQL keeps the value.
func TestReverseToastUnchanged(t *testing.T) {
	g := newRig(t, "rvtoast", "CREATE TABLE b (id INT PRIMARY KEY, n INT, big LONGTEXT)")
	g.snapshot()
	g.catchUp()
	g.postgres("INSERT INTO b SELECT 1, 0, string_agg(md5(i::text), '') FROM generate_series(1, 4000) i",
		"UPDATE b SET n = 7 WHERE id = 1")
	g.catchUp()
	rows := g.rows("b", []string{"n"}, "id")
	var n int
	if err := g.my.QueryRow("SELECT LENGTH(big) FROM b WHERE id = 1").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0] != "37" || n != 4000*32 {
		t.Fatalf("after the update: n=%v, length(big)=%d, want 7 and %d", rows, n, 4000*32)
	}
}

// TestReverseSkipsSluiceOrigin: a PostgreSQL transaction written under a
// replication origin named sluice… (the forward sink's sessions) is not
// carried back; others are.
func TestReverseSkipsSluiceOrigin(t *testing.T) {
	g := newRig(t, "rvorigin", "CREATE TABLE o (id INT PRIMARY KEY)")
	g.snapshot()
	g.catchUp()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, g.env.PGAdminURL())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	origin := "sluice_" + g.stream
	tbl := pgx.Identifier{g.db, "o"}.Sanitize()
	for _, q := range []string{
		"SELECT pg_replication_origin_create('" + origin + "')",
		"SELECT pg_replication_origin_session_setup('" + origin + "')",
		"INSERT INTO " + tbl + " VALUES (1)",
		// Large enough to be streamed in progress (spool.go) under 16MB.
		"INSERT INTO " + tbl + " SELECT generate_series(1000, 200000)",
		"SELECT pg_replication_origin_session_reset()",
		"SELECT pg_replication_origin_drop('" + origin + "')",
		"INSERT INTO " + tbl + " VALUES (2)",
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	o := g.options()
	o.MaxTxnMemory = 16 << 20
	if err := g.run(o); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(g.rows("o", []string{"id"}, "id"), " "); got != "32" {
		t.Fatalf("rows %s: want only id 2 (id 1 was written by a sluice origin)", got)
	}
}

// TestReverseLargeTransaction: one PostgreSQL transaction far larger than
// --max-txn-memory's fragments arrives in fragments written into one MySQL
// transaction.
func TestReverseLargeTransaction(t *testing.T) {
	g := newRig(t, "rvlarge", "CREATE TABLE l (id INT PRIMARY KEY, pad VARCHAR(1000))")
	g.snapshot()
	g.catchUp()
	const rows = 40000 // about 40 MB of text: 40 fragments of 1 MiB at --max-txn-memory 16MB
	g.postgres(fmt.Sprintf("INSERT INTO l SELECT i, repeat(md5(i::text), 31) FROM generate_series(1, %d) i", rows))
	o := g.options()
	o.MaxTxnMemory = 16 << 20
	start := time.Now()
	if err := g.run(o); err != nil {
		t.Fatalf("reverse: %v", err)
	}
	var n, sum int64
	if err := g.my.QueryRow("SELECT COUNT(*), SUM(LENGTH(pad)) FROM l").Scan(&n, &sum); err != nil {
		t.Fatal(err)
	}
	if n != rows || sum != rows*31*32 {
		t.Fatalf("%d rows (%d bytes), want %d (%d)", n, sum, rows, rows*31*32)
	}
	t.Logf("%d rows in one transaction in %s", n, time.Since(start).Round(time.Millisecond))
}

// TestReverseStreamedAborts: transactions larger than the server's
// decoding memory (a quarter of --max-txn-memory) arrive while in progress
// (pgoutput streaming): a rolled-back savepoint's rows and a rolled-back
// transaction are not applied, the rest is, exactly.
func TestReverseStreamedAborts(t *testing.T) {
	g := newRig(t, "rvstream", "CREATE TABLE s (id INT PRIMARY KEY, pad VARCHAR(1000))")
	g.snapshot()
	g.catchUp()
	fill := func(from, to int) string {
		return fmt.Sprintf("INSERT INTO s SELECT i, repeat(md5(i::text), 31) FROM generate_series(%d, %d) i", from, to)
	}
	g.postgres("BEGIN; "+fill(1, 8000)+"; SAVEPOINT a; "+fill(10001, 18000)+"; ROLLBACK TO SAVEPOINT a; "+fill(20000, 20000)+"; COMMIT",
		"BEGIN; "+fill(30001, 38000)+"; ROLLBACK", fill(40000, 40001))
	o := g.options()
	o.MaxTxnMemory = 16 << 20
	if err := g.run(o); err != nil {
		t.Fatalf("reverse: %v", err)
	}
	var n, above, sum int64
	if err := g.my.QueryRow("SELECT COUNT(*), SUM(id > 8000), SUM(id) FROM s").Scan(&n, &above, &sum); err != nil {
		t.Fatal(err)
	}
	if n != 8003 || above != 3 || sum != 8000*8001/2+20000+40000+40001 {
		t.Fatalf("%d rows (%d above 8000, id sum %d): want 8003 (3: 20000, 40000, 40001)", n, above, sum)
	}
}
