package testenv

import (
	"context"
	"database/sql"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

var namePattern = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

func TestUniqueName(t *testing.T) {
	t.Parallel()
	cases := []struct{ prefix, wantStart string }{
		{"snap", "snap_"},
		{"TestSnapshot/Types", "testsnapshot_types_"},
		{"", "t_"},
		{"9lives", "t9lives_"},
		{"a-very-long-prefix-that-goes-on-and-on", "a_very_long_prefix_t_"},
		{"ünïcode", "_n_code_"},
	}
	for _, c := range cases {
		got := UniqueName(c.prefix)
		if !strings.HasPrefix(got, c.wantStart) {
			t.Errorf("UniqueName(%q) = %q, want prefix %q", c.prefix, got, c.wantStart)
		}
		if !namePattern.MatchString(got) || len(got) > 48 {
			t.Errorf("UniqueName(%q) = %q (%d chars): not a lowercase identifier of at most 48 chars", c.prefix, got, len(got))
		}
	}
	seen := map[string]bool{}
	for i := 0; i < 2000; i++ {
		n := UniqueName("dup")
		if seen[n] {
			t.Fatalf("UniqueName returned %q twice", n)
		}
		seen[n] = true
	}
}

func TestParseExports(t *testing.T) {
	t.Parallel()
	out := "export SLUICE_SOURCE=mysql://sluice:sluice@127.0.0.1:13306/sbtest\n" +
		"noise line\n" +
		"export SLUICE_TEST_PG_ADMIN='postgres://postgres:postgres@127.0.0.1:15432/sluice'\n" +
		"  export QUOTED=\"a b\"\n"
	got := parseExports(out)
	want := map[string]string{
		"SLUICE_SOURCE":        "mysql://sluice:sluice@127.0.0.1:13306/sbtest",
		"SLUICE_TEST_PG_ADMIN": "postgres://postgres:postgres@127.0.0.1:15432/sluice",
		"QUOTED":               "a b",
	}
	if len(got) != len(want) {
		t.Fatalf("parseExports = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("parseExports[%s] = %q, want %q", k, got[k], v)
		}
	}
}

func TestMySQLURL(t *testing.T) {
	t.Parallel()
	u, err := parseMySQLURL("mysql://root:s3cr%40t@127.0.0.1:13306/")
	if err != nil {
		t.Fatal(err)
	}
	if u.User != "root" || u.Password != "s3cr@t" || u.Host != "127.0.0.1" || u.Port != "13306" {
		t.Fatalf("parsed %+v", u)
	}
	if got, want := u.URL("db1"), "mysql://root:s3cr%40t@127.0.0.1:13306/db1"; got != want {
		t.Errorf("URL = %q, want %q", got, want)
	}
	if got := u.DSN("db1", map[string]string{"time_zone": "'+00:00'"}); !strings.HasPrefix(got, "root:s3cr@t@tcp(127.0.0.1:13306)/db1?") ||
		!strings.Contains(got, "multiStatements=true") || !strings.Contains(got, "time_zone=") {
		t.Errorf("DSN = %q", got)
	}
	if r := u.Redacted(); strings.Contains(r, "s3cr") {
		t.Errorf("Redacted leaks the password: %q", r)
	}
	if r := redactURL("postgres://postgres:hunter2@127.0.0.1:15432/sluice"); strings.Contains(r, "hunter2") || !strings.Contains(r, "postgres:xxxxx@") {
		t.Errorf("redactURL = %q", r)
	}
	for _, bad := range []string{"postgres://a:b@h/x", "mysql://:pw@h/", "mysql://u:p%zz@h/"} {
		_, err := parseMySQLURL(bad)
		if err == nil {
			t.Errorf("parseMySQLURL(%q) accepted", bad)
		} else if strings.Contains(err.Error(), "pw") || strings.Contains(err.Error(), "%zz") {
			t.Errorf("parseMySQLURL(%q) error leaks the password: %v", bad, err)
		}
	}
}

func TestMariaDBDefaultsAreOverridable(t *testing.T) {
	t.Parallel()
	args := mariadbDefaults("/d", "/r", 1234)
	if args[0] != "--no-defaults" {
		t.Fatalf("first argument %q, mariadbd needs --no-defaults first", args[0])
	}
	for _, want := range []string{"--binlog-format=ROW", "--binlog-row-image=FULL", "--binlog-row-metadata=FULL",
		"--log-bin=/d/mysql-bin", "--port=1234", "--bind-address=127.0.0.1", "--gtid-strict-mode=ON"} {
		if !contains(args, want) {
			t.Errorf("defaults lack %s: %v", want, args)
		}
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func TestGetConnectsAllFourAccounts(t *testing.T) {
	t.Parallel()
	env := Get(t)
	ctx := context.Background()

	var user string
	if err := env.MySQL(t, "").QueryRowContext(ctx, "SELECT CURRENT_USER()").Scan(&user); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(user, "root@") {
		t.Errorf("admin MySQL user = %q, want root@...", user)
	}

	src, err := parseMySQLURL(env.SourceURL("mysql"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("mysql", src.DSN("mysql", nil))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var grants string
	if err := db.QueryRowContext(ctx, "SELECT CURRENT_USER()").Scan(&user); err != nil {
		t.Fatalf("log in as %s: %v", src.Redacted(), err)
	}
	if !strings.HasPrefix(user, "sluice@") {
		t.Errorf("source user = %q, want sluice@...", user)
	}
	if err := db.QueryRowContext(ctx, "SHOW GRANTS").Scan(&grants); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(grants, "ALL PRIVILEGES ON *.*") {
		t.Errorf("source user grants = %q, want ALL PRIVILEGES ON *.*", grants)
	}

	if err := env.PG(t).QueryRow(ctx, "SELECT current_user").Scan(&user); err != nil {
		t.Fatal(err)
	}
	if user != "postgres" {
		t.Errorf("admin PostgreSQL user = %q, want postgres", user)
	}
	conn, err := pgx.Connect(ctx, env.TargetURL())
	if err != nil {
		t.Fatalf("connect %s: %v", redactURL(env.TargetURL()), err)
	}
	defer conn.Close(ctx)
	var canCreate bool
	if err := conn.QueryRow(ctx, "SELECT current_user, has_database_privilege(current_database(), 'CREATE')").Scan(&user, &canCreate); err != nil {
		t.Fatal(err)
	}
	if user != "sluice" || !canCreate {
		t.Errorf("target role %q CREATE=%v, want sluice with CREATE on the database", user, canCreate)
	}
}

func TestNewDatabaseCreatesAndDrops(t *testing.T) {
	t.Parallel()
	env := Get(t)
	ctx := context.Background()
	admin := env.MySQL(t, "")
	pg := env.PG(t)

	var name string
	t.Run("inner", func(t *testing.T) {
		name = env.NewDatabase(t, "TestNewDatabase")
		if !namePattern.MatchString(name) || !strings.HasPrefix(name, "testnewdatabase_") {
			t.Fatalf("NewDatabase name %q", name)
		}
		if n := countRows(t, admin, "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", name); n != 1 {
			t.Fatalf("database %s: %d rows in information_schema.SCHEMATA, want 1", name, n)
		}
		// The database is usable through the source URL and the admin pool.
		if _, err := env.MySQL(t, name).ExecContext(ctx, "CREATE TABLE t (id INT PRIMARY KEY); INSERT INTO t VALUES (1),(2)"); err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{name, name + "_extra"} {
			if _, err := pg.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{s}.Sanitize()); err != nil {
				t.Fatal(err)
			}
		}
	})
	// The inner test's cleanup has run: the database and both schemas are gone.
	if n := countRows(t, admin, "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", name); n != 0 {
		t.Errorf("database %s still exists after cleanup", name)
	}
	var schemas int
	if err := pg.QueryRow(ctx, "SELECT count(*) FROM pg_namespace WHERE nspname::text IN ($1::text, $1::text || '_extra')", name).Scan(&schemas); err != nil {
		t.Fatal(err)
	}
	if schemas != 0 {
		t.Errorf("%d PostgreSQL schemas named %s* remain after cleanup", schemas, name)
	}
}

func countRows(t *testing.T, db *sql.DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestStartMariaDBWithStatementBinlog(t *testing.T) {
	t.Parallel()
	var addr string
	t.Run("server", func(t *testing.T) {
		adminURL := StartMariaDB(t, "--binlog-format=STATEMENT")
		u, err := parseMySQLURL(adminURL)
		if err != nil {
			t.Fatal(err)
		}
		if u.User != "root" || u.Password != "root" || u.Host != "127.0.0.1" {
			t.Fatalf("admin URL %s", u.Redacted())
		}
		addr = net.JoinHostPort(u.Host, u.Port)
		db, err := sql.Open("mysql", u.DSN("", nil))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var format, rowMeta string
		var logBin int
		if err := db.QueryRow("SELECT @@global.binlog_format, @@global.log_bin, @@global.binlog_row_metadata").
			Scan(&format, &logBin, &rowMeta); err != nil {
			t.Fatal(err)
		}
		if format != "STATEMENT" || logBin != 1 || rowMeta != "FULL" {
			t.Errorf("binlog_format=%s log_bin=%d binlog_row_metadata=%s, want STATEMENT, 1, FULL", format, logBin, rowMeta)
		}
		sluice := mysqlURL{User: "sluice", Password: "sluice", Host: u.Host, Port: u.Port}
		sdb, err := sql.Open("mysql", sluice.DSN("", nil))
		if err != nil {
			t.Fatal(err)
		}
		defer sdb.Close()
		if err := sdb.Ping(); err != nil {
			t.Errorf("sluice account on the throwaway server: %v", err)
		}
	})
	// Cleanup stopped the server: its port no longer accepts connections.
	if addr == "" {
		return
	}
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Errorf("throwaway server %s still accepts connections after cleanup", addr)
	}
}
