package cutover_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/cutover"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestBothDirectionsAtOnce: after the cut-over, the forward stream
// (MySQL → PostgreSQL) and the reverse stream (PostgreSQL → MySQL) run at
// the same time while both sides write different rows. Each side ends with
// every row exactly once: nothing the forward apply wrote comes back
// (replication origin skipped by the reverse decoder), nothing the reverse
// apply wrote goes forward again (its transactions start with the applied
// record, which the forward binlog reader skips). The keyless table proves
// it: a row that looped would be there twice.
func TestBothDirectionsAtOnce(t *testing.T) {
	env := testenv.Get(t)
	f := migrated(t, env, "cut_both")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	if _, err := cutover.Run(ctx, f.options(t)); err != nil {
		t.Fatalf("cutover: %v", err)
	}
	t.Cleanup(func() {
		my := env.MySQL(t, f.db)
		_, _ = my.Exec("DELETE FROM sluice.applied WHERE stream = ?", f.rev)
		_, _ = my.Exec("DELETE FROM sluice.schema_history WHERE stream = ?", f.rev)
		_, _ = my.Exec("DELETE FROM sluice.checkpoint WHERE stream = ?", f.rev)
	})

	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	type ended struct {
		name   string
		code   int
		errOut string
	}
	done := make(chan ended, 2)
	go func() {
		code, _, errOut := runCLI(runCtx, "replicate", "--source", env.SourceURL(f.db), "--target", env.TargetURL(),
			"--stream", f.stream, "--log-level", "warn")
		done <- ended{"forward", code, errOut}
	}()
	go func() {
		code, _, errOut := runCLI(runCtx, "replicate", "--source", env.TargetURL(), "--target", env.MySQLAdminURL(f.db),
			"--stream", f.rev, "--log-level", "warn")
		done <- ended{"reverse", code, errOut}
	}()

	my := env.MySQL(t, f.db)
	pg := env.PG(t)
	const n = 40
	for i := 1; i <= n; i++ {
		// MySQL: new accounts, balance changes of ids 1-40, a log line
		// each. PostgreSQL: new accounts, balance changes of ids 101-140, a
		// log line each. The new ids come from disjoint ranges, as an
		// application writing both sides must arrange (docs/reverse.md):
		// MySQL's AUTO_INCREMENT jumps past every id the reverse stream
		// inserts, so generated ids would collide.
		for _, q := range []string{
			fmt.Sprintf("INSERT INTO acct (id, name, balance) VALUES (%d, 'my%d', %d)", 500000+i, i, i),
			fmt.Sprintf("UPDATE acct SET balance = balance + 1000 WHERE id = %d", i),
			fmt.Sprintf("INSERT INTO log VALUES (%d, 'my')", i),
		} {
			if _, err := my.Exec(q); err != nil {
				t.Fatalf("MySQL %s: %v", q, err)
			}
		}
		for _, q := range []string{
			fmt.Sprintf("INSERT INTO %s (id, name, balance) VALUES (%d, 'pg%d', %d)", f.qacct, 1000000+i, i, i),
			fmt.Sprintf("UPDATE %s SET balance = balance + 2000 WHERE id = %d", f.qacct, 100+i),
			fmt.Sprintf("INSERT INTO %s VALUES (%d, 'pg')", f.qlog, i),
		} {
			if _, err := pg.Exec(ctx, q); err != nil {
				t.Fatalf("PostgreSQL %s: %v", q, err)
			}
		}
		select {
		case e := <-done:
			t.Fatalf("the %s stream stopped while both sides wrote: exit %d\n%s", e.name, e.code, e.errOut)
		default:
		}
	}

	queries := []string{"SELECT id, name, balance FROM acct ORDER BY id", "SELECT acct, note, count(*) FROM log GROUP BY acct, note ORDER BY acct, note"}
	read := func() (a, b []string) {
		for _, q := range queries {
			a = append(a, fmt.Sprint(testenv.MySQLRows(t, my, q)))
			b = append(b, fmt.Sprint(testenv.PGRows(t, pg, strings.Replace(q, "FROM ", "FROM "+pgx.Identifier{f.db}.Sanitize()+".", 1))))
		}
		return a, b
	}
	var a, b []string
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		select {
		case e := <-done:
			t.Fatalf("the %s stream stopped: exit %d\n%s", e.name, e.code, e.errOut)
		default:
		}
		if a, b = read(); reflect.DeepEqual(a, b) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the two sides did not converge:\nMySQL      %v\nPostgreSQL %v", a, b)
		}
	}
	// Converged; a loop would keep adding rows: wait, then count exactly.
	time.Sleep(3 * time.Second)
	counts := func(q func(string) int) (int, int, int) {
		return q("SELECT count(*) FROM acct"), q("SELECT count(*) FROM log WHERE note = 'my'"), q("SELECT count(*) FROM log WHERE note = 'pg'")
	}
	myCount := func(q string) int {
		var c int
		if err := my.QueryRow(q).Scan(&c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	pgCount := func(q string) int {
		var c int
		if err := pg.QueryRow(ctx, strings.Replace(q, "FROM ", "FROM "+pgx.Identifier{f.db}.Sanitize()+".", 1)).Scan(&c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	for side, q := range map[string]func(string) int{"MySQL": myCount, "PostgreSQL": pgCount} {
		accts, myLogs, pgLogs := counts(q)
		if accts != 200+2*n || myLogs != n || pgLogs != n {
			t.Errorf("%s: %d accounts (want %d), %d MySQL log lines and %d PostgreSQL ones (want %d each): a change looped or was lost",
				side, accts, 200+2*n, myLogs, pgLogs, n)
		}
	}
	var bal1, bal101 int
	if err := my.QueryRow("SELECT (SELECT balance FROM acct WHERE id = 1), (SELECT balance FROM acct WHERE id = 101)").Scan(&bal1, &bal101); err != nil {
		t.Fatal(err)
	}
	if bal1 != 1+1000 || bal101 != 101+2000 {
		t.Errorf("balances on MySQL: id 1 %d (want 1001), id 101 %d (want 2101): an update applied twice or lost", bal1, bal101)
	}
	stop()
	for range 2 {
		if e := <-done; e.code != 0 {
			t.Errorf("the %s stream ended with exit %d after its cancel\n%s", e.name, e.code, e.errOut)
		}
	}
}
