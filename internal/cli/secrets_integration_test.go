package cli

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/testenv"
)

// secretAccounts is a MySQL user and a PostgreSQL role (owning a database
// of its own) whose passwords are unique strings, so that a test can search
// every output for them. The URLs have no password.
type secretAccounts struct {
	myPW, pgPW string
	src, dst   string
	pgAdminDB  string // superuser URL of the role's database
}

func newSecretAccounts(t *testing.T, env *testenv.Env, my *sql.DB, db string) secretAccounts {
	t.Helper()
	ctx := context.Background()
	user := testenv.UniqueName("sec")
	// Characters a URL must escape around a core the checks search for.
	a := secretAccounts{myPW: "My" + user + "@:/ %", pgPW: "Pg" + user + "@:/#%"}
	if _, err := my.Exec("CREATE USER '" + user + "'@'%' IDENTIFIED BY '" + a.myPW + "'; GRANT ALL PRIVILEGES ON *.* TO '" + user + "'@'%'"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = my.Exec("DROP USER '" + user + "'@'%'") })
	src, err := url.Parse(env.SourceURL(db))
	if err != nil {
		t.Fatal(err)
	}
	src.User = url.User(user)
	a.src = src.String()

	pg := env.PG(t)
	if _, err := pg.Exec(ctx, "CREATE ROLE "+user+" LOGIN PASSWORD '"+a.pgPW+"'"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = pg.Exec(context.Background(), "DROP ROLE IF EXISTS "+user) })
	if _, err := pg.Exec(ctx, `CREATE DATABASE "`+user+`" OWNER `+user); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = pg.Exec(context.Background(), `DROP DATABASE IF EXISTS "`+user+`" WITH (FORCE)`) })
	dst, err := url.Parse(env.TargetURL())
	if err != nil {
		t.Fatal(err)
	}
	dst.User, dst.Path = url.User(user), "/"+user
	a.dst = dst.String()
	admin, err := url.Parse(env.PGAdminURL())
	if err != nil {
		t.Fatal(err)
	}
	admin.Path = "/" + user
	a.pgAdminDB = admin.String()
	// The role sluice applies as needs to set session_replication_role
	// (pre-flight refuses it otherwise); only a superuser can grant that.
	su, err := pgx.Connect(ctx, env.PGAdminURL())
	if err != nil {
		t.Fatal(err)
	}
	defer su.Close(ctx)
	if _, err := su.Exec(ctx, `GRANT SET ON PARAMETER session_replication_role TO "`+user+`"`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), env.PGAdminURL())
		if err == nil {
			_, _ = c.Exec(context.Background(), `REVOKE SET ON PARAMETER session_replication_role FROM "`+user+`"`)
			_ = c.Close(context.Background())
		}
	})
	return a
}

// assertNoSecret fails when out holds any of the passwords (their distinctive
// core, so an escaped form is caught too).
func assertNoSecret(t *testing.T, what, out string, passwords ...string) {
	t.Helper()
	for _, pw := range passwords {
		core := strings.TrimRight(pw, "@:/ %#")
		if strings.Contains(out, core) {
			t.Errorf("%s shows a password (%s…):\n%s", what, core[:4], out)
		}
	}
}

func writeSecretFile(t *testing.T, name, content string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	return p
}

// unsetEnv removes environment variables for the test; t.Setenv puts back
// what was there when it ends.
func unsetEnv(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		t.Setenv(n, "")
		_ = os.Unsetenv(n)
	}
}

// withPassword is u with pw in it: a URL as a user would type it.
func withPassword(t *testing.T, u, pw string) string {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	p.User = url.UserPassword(p.User.Username(), pw)
	return p.String()
}

// TestPasswordsFromFileAndEnvironment: URLs without a password connect with
// the source's password from --source-password-file and the target's from
// SLUICE_TARGET_PASSWORD, or both from a 0600 config file; the rows arrive;
// a password file or config file others may read is refused with exit 2 and
// the chmod; wrong passwords fail with exit 2; no password ever appears in
// the output, the status output and the JSON reports included.
func TestPasswordsFromFileAndEnvironment(t *testing.T) {
	testenv.Flavors(t, testPasswordsFromFileAndEnvironment)
}

func testPasswordsFromFileAndEnvironment(t *testing.T, env *testenv.Env) {
	// The developer's shell may export the sandbox's (scripts/sandbox env):
	// they would beat the config file below.
	unsetEnv(t, "SLUICE_SOURCE", "SLUICE_TARGET", "SLUICE_STREAM", "SLUICE_CONFIG", "SLUICE_SOURCE_PASSWORD", "SLUICE_TARGET_PASSWORD",
		"SLUICE_SOURCE_PASSWORD_FILE", "SLUICE_TARGET_PASSWORD_FILE", "SLUICE_REPLICA_PASSWORD", "SLUICE_REPLICA_PASSWORD_FILE")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	db := env.NewDatabase(t, "cli_secret")
	my := env.MySQL(t, db)
	if _, err := my.Exec("CREATE TABLE acct (id INT PRIMARY KEY, note VARCHAR(20)); INSERT INTO acct VALUES (1, 'one'), (2, 'two')"); err != nil {
		t.Fatal(err)
	}
	a := newSecretAccounts(t, env, my, db)
	pwFile := writeSecretFile(t, "mysql.pw", a.myPW+"\n", 0o600)
	t.Setenv("SLUICE_TARGET_PASSWORD", a.pgPW)
	stream := db
	code, out, errOut := runCLI(ctx, "migrate", "--source", a.src, "--source-password-file", pwFile, "--target", a.dst,
		"--stream", stream, "--workers", "2", "--until-caught-up", "--json")
	if code != 0 {
		t.Fatalf("migrate with the passwords from a file and the environment: exit %d\n%s", code, errOut)
	}
	assertNoSecret(t, "migrate", out+errOut, a.myPW, a.pgPW)
	if !strings.Contains(out, `"caught up"`) {
		t.Errorf("migrate report: %s", out)
	}
	pg, err := pgx.Connect(ctx, a.pgAdminDB)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close(context.Background())
	rows, err := pg.Query(ctx, `SELECT id, note FROM "`+db+`".acct ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
		var id int
		var note string
		err := r.Scan(&id, &note)
		return strings.Join([]string{string(rune('0' + id)), note}, "="), err
	})
	if err != nil || strings.Join(got, ",") != "1=one,2=two" {
		t.Fatalf("target rows %v (%v), want 1=one,2=two", got, err)
	}

	// Both passwords from a config file of mode 0600; status names neither.
	unsetEnv(t, "SLUICE_TARGET_PASSWORD")
	cfg := writeSecretFile(t, "sluice.yaml", "source: "+a.src+"\nsource-password-file: "+pwFile+
		"\ntarget: "+a.dst+"\ntarget-password: '"+a.pgPW+"'\nstream: "+stream+"\n", 0o600)
	code, out, errOut = runCLI(ctx, "status", "--config", cfg, "--json")
	// The source's position is there: status connected to both (the shared
	// source's other writers keep it from being caught up).
	var st struct {
		Stream         string          `json:"stream"`
		SourcePosition json.RawMessage `json:"source_position"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil || st.Stream != stream || len(st.SourcePosition) == 0 {
		t.Fatalf("status --config (0600): exit %d %+v\n%s\n%s", code, st, out, errOut)
	}
	assertNoSecret(t, "status --json", out+errOut, a.myPW, a.pgPW)
	code, out, errOut = runCLI(ctx, "status", "--config", cfg)
	if code != 0 || !strings.Contains(out, stream) {
		t.Fatalf("status: exit %d\n%s\n%s", code, out, errOut)
	}
	assertNoSecret(t, "status", out+errOut, a.myPW, a.pgPW)

	// Files others may read: refused before any connection, with the fix.
	if err := os.Chmod(cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runCLI(ctx, "status", "--config", cfg)
	if code != 2 || !strings.Contains(errOut, "chmod 600 "+cfg) {
		t.Errorf("a 0644 config file with a password: exit %d\n%s", code, errOut)
	}
	assertNoSecret(t, "status (0644 config)", errOut, a.myPW, a.pgPW)
	if err := os.Chmod(pwFile, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SLUICE_TARGET_PASSWORD", a.pgPW)
	code, _, errOut = runCLI(ctx, "snapshot", "--source", a.src, "--source-password-file", pwFile, "--target", a.dst, "--stream", stream)
	if code != 2 || !strings.Contains(errOut, "chmod 600 "+pwFile) || !strings.Contains(errOut, "--source-password-file") {
		t.Errorf("a 0644 password file: exit %d\n%s", code, errOut)
	}
	assertNoSecret(t, "snapshot (0644 password file)", errOut, a.myPW, a.pgPW)

	// alter: the source's password from the environment, its replicas' from
	// a file. The source server is no replica: that refusal shows the replica
	// connection logged in (a wrong password says "is not reachable").
	if err := os.Chmod(pwFile, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SLUICE_SOURCE_PASSWORD", a.myPW)
	code, out, errOut = runCLI(ctx, "alter", "--source", a.src, "--table", "acct", "--alter", "ADD COLUMN extra INT", "--dry-run")
	if code != 0 || !strings.Contains(out, "dry run of ALTER TABLE acct") {
		t.Errorf("alter --dry-run with SLUICE_SOURCE_PASSWORD: exit %d\n%s%s", code, out, errOut)
	}
	replica := strings.TrimSuffix(a.src, db)
	code, out, errOut = runCLI(ctx, "alter", "--source", a.src, "--table", "acct", "--alter", "ADD COLUMN extra INT", "--dry-run",
		"--max-lag", "10s", "--replica", replica, "--replica-password-file", pwFile)
	if code != 2 || !strings.Contains(errOut, "replicates from no source") {
		t.Errorf("alter --replica with --replica-password-file: exit %d\n%s%s", code, out, errOut)
	}
	assertNoSecret(t, "alter", out+errOut, a.myPW)

	// Wrong passwords, from the environment and on the command line: exit 2,
	// never shown.
	wrongMy, wrongPg := "WrongMy"+a.myPW, "WrongPg"+a.pgPW
	t.Setenv("SLUICE_SOURCE_PASSWORD", wrongMy)
	code, out, errOut = runCLI(ctx, "status", "--source", a.src, "--target", a.dst, "--stream", stream)
	if code != 2 || !strings.Contains(errOut, "source") {
		t.Errorf("status with a wrong source password: exit %d\n%s%s", code, out, errOut)
	}
	assertNoSecret(t, "status (wrong source password)", out+errOut, wrongMy, a.pgPW)
	t.Setenv("SLUICE_TARGET_PASSWORD", wrongPg)
	code, out, errOut = runCLI(ctx, "migrate", "--source", a.src, "--target", a.dst, "--stream", stream, "--until-caught-up", "--json")
	if code != 2 {
		t.Errorf("migrate with wrong passwords: exit %d\n%s%s", code, out, errOut)
	}
	assertNoSecret(t, "migrate (wrong passwords)", out+errOut, wrongMy, wrongPg)
	unsetEnv(t, "SLUICE_SOURCE_PASSWORD", "SLUICE_TARGET_PASSWORD")
	code, out, errOut = runCLI(ctx, "verify", "--source", withPassword(t, a.src, wrongMy), "--target", withPassword(t, a.dst, a.pgPW),
		"--stream", stream)
	if code != 2 || !strings.Contains(errOut, "the --source URL on the command line has a password") {
		t.Errorf("verify with a wrong password on the command line: exit %d\n%s%s", code, out, errOut)
	}
	assertNoSecret(t, "verify (wrong password on the command line)", out+errOut, wrongMy, a.pgPW)
}
