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

// TestPortedTriggerAfterFallback is the path docs/cutover.md describes,
// with an application trigger (every new account writes a log line): at the
// switch it is ported to PostgreSQL and enabled, and dropped on MySQL while
// the way back runs. The application writes on PostgreSQL (the trigger
// fires there, the way back carries both rows to MySQL), then falls back:
// the MySQL trigger is created again, the application writes on MySQL, and
// the forward stream is resumed with the PostgreSQL trigger still enabled.
// The binlog carries the log lines MySQL's trigger wrote; PostgreSQL's must
// not fire on the replicated accounts, or every one gets a second log line.
func TestPortedTriggerAfterFallback(t *testing.T) { testenv.Flavors(t, testPortedTriggerAfterFallback) }

func testPortedTriggerAfterFallback(t *testing.T, env *testenv.Env) {
	f := migrated(t, env, "cut_trig")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	if _, err := cutover.Run(ctx, f.options(t)); err != nil {
		t.Fatalf("cutover: %v", err)
	}
	my := env.MySQL(t, f.db)
	t.Cleanup(func() {
		for _, tbl := range []string{"applied", "schema_history", "checkpoint"} {
			_, _ = my.Exec("DELETE FROM sluice."+tbl+" WHERE stream = ?", f.rev)
		}
	})
	pg := env.PG(t)
	fn := pgx.Identifier{f.db, "acct_log"}.Sanitize()
	for _, q := range []string{
		"CREATE FUNCTION " + fn + "() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO " + f.qlog +
			" VALUES (NEW.id, 'new account'); RETURN NULL; END $$",
		"CREATE TRIGGER acct_log AFTER INSERT ON " + f.qacct + " FOR EACH ROW EXECUTE FUNCTION " + fn + "()",
	} {
		if _, err := pg.Exec(ctx, q); err != nil {
			t.Fatalf("PostgreSQL %s: %v", q, err)
		}
	}
	const n = 30
	for i := 1; i <= n; i++ { // the application on PostgreSQL
		q := fmt.Sprintf("INSERT INTO %s (id, name, balance) VALUES (%d, 'pg%d', %d)", f.qacct, 1000000+i, i, i)
		if _, err := pg.Exec(ctx, q); err != nil {
			t.Fatalf("PostgreSQL %s: %v", q, err)
		}
	}
	if code, _, errOut := runCLI(ctx, "replicate", "--source", env.TargetURL(), "--target", env.MySQLAdminURL(f.db),
		"--stream", f.rev, "--until-caught-up", "--log-level", "warn"); code != 0 {
		t.Fatalf("the way back: exit %d\n%s", code, errOut)
	}

	// Fall back: MySQL's trigger again, the application on MySQL.
	if _, err := my.Exec("CREATE TRIGGER acct_log AFTER INSERT ON acct FOR EACH ROW INSERT INTO log VALUES (NEW.id, 'new account')"); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		q := fmt.Sprintf("INSERT INTO acct (id, name, balance) VALUES (%d, 'my%d', %d)", 500000+i, i, i)
		if _, err := my.Exec(q); err != nil {
			t.Fatalf("MySQL %s: %v", q, err)
		}
	}
	if code, _, errOut := runCLI(ctx, "replicate", "--source", env.SourceURL(f.db), "--target", env.TargetURL(),
		"--stream", f.stream, "--until-caught-up", "--log-level", "warn"); code != 0 {
		t.Fatalf("the forward stream resumed: exit %d\n%s", code, errOut)
	}
	queries := []string{"SELECT id, name, balance FROM acct ORDER BY id",
		"SELECT acct, note, count(*) FROM log GROUP BY acct, note ORDER BY acct, note",
		"SELECT count(*) FROM log WHERE note = 'new account'"}
	var a, b []string
	for _, q := range queries {
		a = append(a, fmt.Sprint(testenv.MySQLRows(t, my, q)))
		b = append(b, fmt.Sprint(testenv.PGRows(t, pg, strings.Replace(q, "FROM ", "FROM "+pgx.Identifier{f.db}.Sanitize()+".", 1))))
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("PostgreSQL differs from MySQL after the forward stream resumed:\nMySQL      %v\nPostgreSQL %v", a[1:], b[1:])
	}
	if want := fmt.Sprintf("[%d]", 2*n); a[2] != want {
		t.Errorf("MySQL has %s log lines of new accounts, want %s", a[2], want)
	}
}
