// Package testenv gives integration tests real MariaDB and PostgreSQL servers.
//
// The servers come from, in this order:
//
//  1. SLUICE_TEST_MYSQL_ADMIN and SLUICE_TEST_PG_ADMIN (admin URLs; both must be set), and
//     SLUICE_TEST_MYSQL9_ADMIN for the MySQL server of the flavor axis (flavor.go);
//  2. with CI=true or SLUICE_TEST_SANDBOX=1: `scripts/sandbox start`, run once per test binary
//     (the script is idempotent and serialises concurrent callers with a lock file);
//  3. otherwise the sandbox's default ports (127.0.0.1:13306 and 127.0.0.1:15432), if they answer.
//
// When none of these yields working servers the test is skipped, except under CI=true, where it
// fails: CI must never pass by skipping its integration tests.
//
// Optional: SLUICE_TEST_SOURCE and SLUICE_TEST_TARGET name the non-admin (sluice user) URLs;
// by default they are sluice:sluice on the admin servers. SLUICE_TEST_KEEP=1 keeps the databases
// and schemas that NewDatabase creates, for debugging.
package testenv

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Env is a pair of reachable test servers. It is shared by all tests of a test binary and is
// immutable after Get returns it.
type Env struct {
	mysqlAdmin mysqlURL // admin (root) account on the source server
	source     mysqlURL // the sluice account on the same server
	pgAdmin    string   // superuser URL of the target database
	target     string   // the sluice role's URL of the same database
	origin     string   // how the servers were found, for messages
	flavor     Flavor   // which source server this is (MariaDB unless from GetFlavor)
	mysql9     string   // admin URL of the MySQL server for GetFlavor(t, MySQL), "" when unknown
	mysqlTgt   string   // admin URL of the second MariaDB, a MySQL target (sink/mysql/bulk.go)
	tgtFlavor  Flavor   // which server MySQLTarget returns: MariaDB (the second MariaDB) unless WithMySQLTarget(MySQL)
}

var (
	resolveOnce sync.Once
	resolvedEnv *Env
	resolveErr  error
)

// Get returns the shared test environment. Without reachable servers it skips the test, or,
// when CI=true, fails it.
func Get(t testing.TB) *Env {
	t.Helper()
	resolveOnce.Do(func() { resolvedEnv, resolveErr = resolve(context.Background()) })
	if resolveErr != nil {
		if InCI() {
			t.Fatalf("testenv: CI=true but no test databases: %v", resolveErr)
		}
		t.Skipf("testenv: no test databases (%v). Start them with `bash scripts/sandbox start` "+
			"(or `make sandbox`), or set SLUICE_TEST_SANDBOX=1 to let the tests start them.", resolveErr)
	}
	return resolvedEnv
}

// InCI reports whether CI=true: then a missing database is a failure, never a skip.
func InCI() bool { return truthy(os.Getenv("CI")) }

func truthy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// resolve finds the servers as described in the package comment and checks that they answer.
func resolve(ctx context.Context) (*Env, error) {
	my, pg := os.Getenv("SLUICE_TEST_MYSQL_ADMIN"), os.Getenv("SLUICE_TEST_PG_ADMIN")
	var (
		v      envVars
		lookup = os.Getenv
		origin string
	)
	switch {
	case my != "" && pg != "":
		v = envVars{mysqlAdmin: my, pgAdmin: pg,
			source: os.Getenv("SLUICE_TEST_SOURCE"), target: os.Getenv("SLUICE_TEST_TARGET"),
			mysql9Admin: os.Getenv("SLUICE_TEST_MYSQL9_ADMIN"), mysqlTargetAdmin: os.Getenv("SLUICE_TEST_MYSQL_TARGET_ADMIN")}
		origin = "SLUICE_TEST_MYSQL_ADMIN/SLUICE_TEST_PG_ADMIN"
	case my != "" || pg != "":
		return nil, errors.New("set both SLUICE_TEST_MYSQL_ADMIN and SLUICE_TEST_PG_ADMIN, or neither")
	case InCI() || truthy(os.Getenv("SLUICE_TEST_SANDBOX")):
		var exports map[string]string
		var err error
		if v, exports, err = startSandbox(ctx); err != nil {
			return nil, err
		}
		lookup = func(name string) string { return exports[name] }
		origin = "scripts/sandbox start"
	default:
		v, origin = sandboxDefaults(), "the sandbox's default ports"
		lookup = func(name string) string { return envOr(name, sandboxNewerDefaults[name]) }
	}
	v, err := applyVersions(v, lookup)
	if err != nil {
		return nil, err
	}
	env, err := connectEnv(ctx, v, origin)
	if err != nil {
		return nil, err
	}
	if err := checkVersions(ctx, v); err != nil {
		return nil, err
	}
	return env, nil
}

// sandboxNewerDefaults are the URLs of the newer servers `scripts/sandbox env` prints when they
// were started (SLUICE_SANDBOX_MARIADB11=1 etc.).
var sandboxNewerDefaults = map[string]string{
	"SLUICE_TEST_MARIADB11_ADMIN":        "mysql://root:root@127.0.0.1:" + envOr("SLUICE_MARIADB11_PORT", "13318") + "/",
	"SLUICE_TEST_MARIADB11_TARGET_ADMIN": "mysql://root:root@127.0.0.1:" + envOr("SLUICE_MARIADB11_TARGET_PORT", "13319") + "/",
	"SLUICE_TEST_PG17_ADMIN":             "postgres://postgres:postgres@127.0.0.1:" + envOr("SLUICE_PG17_PORT", "15417") + "/sluice",
	"SLUICE_TEST_PG18_ADMIN":             "postgres://postgres:postgres@127.0.0.1:" + envOr("SLUICE_PG18_PORT", "15418") + "/sluice",
}

// envVars are the four URLs of a test environment, as strings.
type envVars struct {
	mysqlAdmin, pgAdmin, source, target string
	mysql9Admin                         string // the MySQL server of the flavor axis (flavor.go)
	mysqlTargetAdmin                    string // the second MariaDB, a MySQL target (sink/mysql/bulk.go)
}

// sandboxDefaults are the URLs `scripts/sandbox env` prints, honouring its port variables.
func sandboxDefaults() envVars {
	myPort := envOr("SLUICE_MYSQL_PORT", "13306")
	pgPort := envOr("SLUICE_PG_PORT", "15432")
	return envVars{
		mysqlAdmin:       "mysql://root:root@127.0.0.1:" + myPort + "/",
		pgAdmin:          "postgres://postgres:postgres@127.0.0.1:" + pgPort + "/sluice",
		source:           "mysql://sluice:sluice@127.0.0.1:" + myPort + "/sbtest",
		target:           "postgres://sluice:sluice@127.0.0.1:" + pgPort + "/sluice",
		mysql9Admin:      "mysql://root:root@127.0.0.1:" + envOr("SLUICE_MYSQL9_PORT", "13307") + "/",
		mysqlTargetAdmin: "mysql://root:root@127.0.0.1:" + envOr("SLUICE_MYSQL_TARGET_PORT", "13308") + "/",
	}
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// connectEnv parses the URLs, fills in the defaults of the non-admin ones and pings both servers.
func connectEnv(ctx context.Context, v envVars, origin string) (*Env, error) {
	admin, err := parseMySQLURL(v.mysqlAdmin)
	if err != nil {
		return nil, fmt.Errorf("MySQL admin URL from %s: %w", origin, err)
	}
	source := mysqlURL{User: "sluice", Password: "sluice", Host: admin.Host, Port: admin.Port}
	if v.source != "" {
		if source, err = parseMySQLURL(v.source); err != nil {
			return nil, fmt.Errorf("MySQL source URL from %s: %w", origin, err)
		}
	}
	pgAdmin, err := url.Parse(v.pgAdmin)
	if err != nil || (pgAdmin.Scheme != "postgres" && pgAdmin.Scheme != "postgresql") {
		return nil, fmt.Errorf("PostgreSQL admin URL from %s: want postgres://user:pass@host:port/db", origin)
	}
	target := v.target
	if target == "" {
		t := *pgAdmin
		t.User = url.UserPassword("sluice", "sluice")
		target = t.String()
	}
	env := &Env{mysqlAdmin: admin, source: source, pgAdmin: v.pgAdmin, target: target, origin: origin,
		flavor: MariaDB, mysql9: v.mysql9Admin, mysqlTgt: v.mysqlTargetAdmin}
	if err := env.ping(ctx); err != nil {
		return nil, fmt.Errorf("servers from %s: %w", origin, err)
	}
	return env, nil
}

// ping checks that both admin accounts can log in, within a few seconds.
func (e *Env) ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	db, err := sql.Open("mysql", e.mysqlAdmin.DSN("", nil))
	if err != nil {
		return fmt.Errorf("MySQL %s: %w", e.mysqlAdmin.Redacted(), err)
	}
	defer db.Close()
	if err := db.PingContext(ctx); err != nil {
		return fmt.Errorf("MySQL %s: %w", e.mysqlAdmin.Redacted(), err)
	}
	pool, err := pgxpool.New(ctx, e.pgAdmin)
	if err != nil {
		return fmt.Errorf("PostgreSQL %s: %w", redactURL(e.pgAdmin), err)
	}
	defer pool.Close()
	if err := pool.Ping(ctx); err != nil {
		return fmt.Errorf("PostgreSQL %s: %w", redactURL(e.pgAdmin), err)
	}
	return nil
}

// SourceURL is the mysql:// URL of the full-privilege sluice account for database db.
func (e *Env) SourceURL(db string) string { return e.source.URL(db) }

// TargetURL is the postgres:// URL of the sluice role on the target database.
func (e *Env) TargetURL() string { return e.target }

// MySQLAdminURL is the mysql:// URL of the admin account for database db ("" for none).
func (e *Env) MySQLAdminURL(db string) string { return e.mysqlAdmin.URL(db) }

// MySQLAdminDSN is the go-sql-driver DSN of the admin account for database db, with
// multiStatements=true plus the given extra parameters (e.g. "time_zone": "'+00:00'").
func (e *Env) MySQLAdminDSN(db string, params map[string]string) string {
	return e.mysqlAdmin.DSN(db, params)
}

// PGAdminURL is the postgres:// URL of the superuser on the target database.
func (e *Env) PGAdminURL() string { return e.pgAdmin }

// String says where the servers came from, without passwords.
func (e *Env) String() string {
	return fmt.Sprintf("%s %s, PostgreSQL %s (from %s)", e.flavor, e.mysqlAdmin.Redacted(), redactURL(e.pgAdmin), e.origin)
}

// MySQL opens an admin connection pool to database db ("" for none) with multiStatements=true.
// It is closed when the test ends.
func (e *Env) MySQL(t testing.TB, db string) *sql.DB {
	t.Helper()
	conn, err := sql.Open("mysql", e.mysqlAdmin.DSN(db, nil))
	if err != nil {
		t.Fatalf("testenv: open MySQL %s: %v", e.mysqlAdmin.Redacted(), err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := conn.PingContext(ctx); err != nil {
		t.Fatalf("testenv: connect MySQL %s database %q: %v", e.mysqlAdmin.Redacted(), db, err)
	}
	return conn
}

// PG opens a superuser connection pool to the target database. It is closed when the test ends.
func (e *Env) PG(t testing.TB) *pgxpool.Pool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	pool, err := pgxpool.New(ctx, e.pgAdmin)
	if err != nil {
		t.Fatalf("testenv: open PostgreSQL %s: %v", redactURL(e.pgAdmin), err)
	}
	t.Cleanup(pool.Close)
	if err := pool.Ping(ctx); err != nil {
		t.Fatalf("testenv: connect PostgreSQL %s: %v", redactURL(e.pgAdmin), err)
	}
	return pool
}

// NewPGDatabase creates a fresh PostgreSQL database owned by the sluice role
// and returns a superuser URL to it; it is dropped when the test ends. Tests
// that need their own `sluice` state schema (which is one per database) use it.
func (e *Env) NewPGDatabase(t testing.TB, prefix string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	name := UniqueName(prefix)
	admin := e.PG(t)
	if _, err := admin.Exec(ctx, `CREATE DATABASE "`+name+`" OWNER sluice`); err != nil {
		t.Fatalf("testenv: create PostgreSQL database %s: %v", name, err)
	}
	t.Cleanup(func() {
		if truthy(os.Getenv("SLUICE_TEST_KEEP")) {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := admin.Exec(ctx, `DROP DATABASE IF EXISTS "`+name+`" WITH (FORCE)`); err != nil {
			t.Logf("testenv: drop PostgreSQL database %s: %v", name, err)
		}
	})
	u, err := url.Parse(e.pgAdmin)
	if err != nil {
		t.Fatalf("testenv: PostgreSQL admin URL: %v", err)
	}
	u.Path = "/" + name
	return u.String()
}
