package testenv

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Server versions. The same tests run on any source/target pair: three variables pick which
// sandbox server plays each part (docs/versions.md), the default pair unchanged when unset.
//
//	SLUICE_TEST_MARIADB=10.11|11.8         the MariaDB source (Get, the "mariadb" flavor)
//	SLUICE_TEST_PG=15|17|18                the PostgreSQL target
//	SLUICE_TEST_MARIADB_TARGET=10.11|11.8  the MariaDB MySQL target (MySQLTarget)
//
// A non-default choice reads the server's admin URL from its own variable (the export lines of
// `scripts/sandbox env`, e.g. SLUICE_TEST_PG17_ADMIN); when the tests start the sandbox themselves
// (CI=true), they ask it for that server (SLUICE_SANDBOX_PG17=1). The server's version is checked
// once: a test never runs on another server than the one asked for.

// versionChoice is one part of the pair: the variable choosing it, the versions it accepts, and
// for each non-default version the variable with its admin URL and the sandbox switch starting it.
type versionChoice struct {
	variable string
	deflt    string
	servers  map[string]newerServer
}

type newerServer struct {
	adminVar, sandboxVar string
}

var (
	mariadbChoice = versionChoice{variable: "SLUICE_TEST_MARIADB", deflt: "10.11", servers: map[string]newerServer{
		"11.8": {"SLUICE_TEST_MARIADB11_ADMIN", "SLUICE_SANDBOX_MARIADB11"}}}
	pgChoice = versionChoice{variable: "SLUICE_TEST_PG", deflt: "15", servers: map[string]newerServer{
		"17": {"SLUICE_TEST_PG17_ADMIN", "SLUICE_SANDBOX_PG17"},
		"18": {"SLUICE_TEST_PG18_ADMIN", "SLUICE_SANDBOX_PG18"}}}
	mariadbTargetChoice = versionChoice{variable: "SLUICE_TEST_MARIADB_TARGET", deflt: "10.11", servers: map[string]newerServer{
		"11.8": {"SLUICE_TEST_MARIADB11_TARGET_ADMIN", "SLUICE_SANDBOX_MARIADB11"}}}
)

// chosen is the version asked for ("" for the default) and the newer server playing it.
func (c versionChoice) chosen() (string, newerServer, error) {
	v := strings.TrimSpace(os.Getenv(c.variable))
	if v == "" || v == c.deflt {
		return "", newerServer{}, nil
	}
	s, ok := c.servers[v]
	if !ok {
		want := []string{c.deflt}
		for k := range c.servers {
			want = append(want, k)
		}
		slices.Sort(want[1:])
		return "", newerServer{}, fmt.Errorf("%s=%s: want one of %s", c.variable, v, strings.Join(want, ", "))
	}
	return v, s, nil
}

// sandboxSwitches are the SLUICE_SANDBOX_* settings that make `scripts/sandbox start` also
// start the servers the variables chose.
func sandboxSwitches() ([]string, error) {
	var out []string
	for _, c := range []versionChoice{mariadbChoice, pgChoice, mariadbTargetChoice} {
		v, s, err := c.chosen()
		if err != nil {
			return nil, err
		}
		if v != "" {
			out = append(out, s.sandboxVar+"=1")
		}
	}
	return out, nil
}

// applyVersions points v's admin URLs at the chosen servers; lookup finds a variable's value
// (the environment, or the sandbox's export lines). The sluice-user URLs follow the admin ones.
func applyVersions(v envVars, lookup func(string) string) (envVars, error) {
	for _, p := range []struct {
		c     versionChoice
		admin *string
		user  *string
	}{
		{mariadbChoice, &v.mysqlAdmin, &v.source},
		{pgChoice, &v.pgAdmin, &v.target},
		{mariadbTargetChoice, &v.mysqlTargetAdmin, nil},
	} {
		ver, s, err := p.c.chosen()
		if err != nil || ver == "" {
			if err != nil {
				return v, err
			}
			continue
		}
		u := lookup(s.adminVar)
		if u == "" {
			return v, fmt.Errorf("%s=%s but %s is not set: `%s=1 bash scripts/sandbox start` starts that server, "+
				"`bash scripts/sandbox env` prints its URL", p.c.variable, ver, s.adminVar, s.sandboxVar)
		}
		*p.admin = u
		if p.user != nil {
			*p.user = ""
		}
	}
	return v, nil
}

// checkVersions fails when a chosen server runs another version than the one asked for.
func checkVersions(ctx context.Context, v envVars) error {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	for _, p := range []struct {
		c   versionChoice
		url string
	}{{mariadbChoice, v.mysqlAdmin}, {mariadbTargetChoice, v.mysqlTargetAdmin}} {
		if ver, _, _ := p.c.chosen(); ver != "" {
			got, err := mysqlVersion(ctx, p.url)
			if err != nil {
				return fmt.Errorf("%s=%s: %w", p.c.variable, ver, err)
			}
			if !strings.HasPrefix(got, ver+".") {
				return fmt.Errorf("%s=%s but the server at %s is %s", p.c.variable, ver, redactURL(p.url), got)
			}
		}
	}
	if ver, _, _ := pgChoice.chosen(); ver != "" {
		got, err := pgMajor(ctx, v.pgAdmin)
		if err != nil {
			return fmt.Errorf("%s=%s: %w", pgChoice.variable, ver, err)
		}
		if strconv.Itoa(got) != ver {
			return fmt.Errorf("%s=%s but the server at %s is PostgreSQL %d", pgChoice.variable, ver, redactURL(v.pgAdmin), got)
		}
	}
	return nil
}

func mysqlVersion(ctx context.Context, adminURL string) (string, error) {
	m, err := parseMySQLURL(adminURL)
	if err != nil {
		return "", err
	}
	db, err := sql.Open("mysql", m.DSN("", nil))
	if err != nil {
		return "", err
	}
	defer db.Close()
	var ver string
	if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&ver); err != nil {
		return "", fmt.Errorf("%s: %w", m.Redacted(), err)
	}
	return ver, nil
}

func pgMajor(ctx context.Context, adminURL string) (int, error) {
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", redactURL(adminURL), err)
	}
	defer conn.Close(ctx)
	var num int
	if err := conn.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&num); err != nil {
		return 0, fmt.Errorf("%s: %w", redactURL(adminURL), err)
	}
	return num / 10000, nil
}

// PGMajor is the target PostgreSQL's major version (15, 17, 18).
func (e *Env) PGMajor(t testing.TB) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	n, err := pgMajor(ctx, e.pgAdmin)
	if err != nil {
		t.Fatalf("testenv: PostgreSQL version: %v", err)
	}
	return n
}

// MySQLVersion is the source server's VERSION() (e.g. "11.8.9-MariaDB-0+deb13u1 from Debian-log").
func (e *Env) MySQLVersion(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	v, err := mysqlVersion(ctx, e.mysqlAdmin.URL(""))
	if err != nil {
		t.Fatalf("testenv: source version: %v", err)
	}
	return v
}

// mariadbAtLeast reports whether VERSION() version is MariaDB major.minor or newer.
func mariadbAtLeast(version string, major, minor int) (bool, error) {
	if !strings.Contains(strings.ToLower(version), "mariadb") {
		return false, nil
	}
	var ma, mi int
	if _, err := fmt.Sscanf(version, "%d.%d", &ma, &mi); err != nil {
		return false, fmt.Errorf("version %q: %w", version, err)
	}
	return ma > major || ma == major && mi >= minor, nil
}

// HasVector reports whether MariaDB's VECTOR goes from e's source into its MySQL target: both
// MariaDB 11.7+ (the all-types corpus's typecorpus.Vector; MySQL 9's VECTOR:
// TestMySQLTargetVectorDDL).
func (e *Env) HasVector(t testing.TB) bool {
	t.Helper()
	if !e.MariaDBAtLeast(t, 11, 7) {
		return false
	}
	var version string
	if err := e.MySQLTarget(t).Admin(t).QueryRow("SELECT VERSION()").Scan(&version); err != nil {
		t.Fatalf("testenv: MySQL target version: %v", err)
	}
	ok, err := mariadbAtLeast(version, 11, 7)
	if err != nil {
		t.Fatalf("testenv: MySQL target: %v", err)
	}
	return ok
}

// MariaDBAtLeast reports whether the source is MariaDB major.minor or newer (false for MySQL):
// the gate of what only newer MariaDB servers have or do (VECTOR since 11.7, generated columns
// left out of UPDATE and DELETE row images in 11.8).
func (e *Env) MariaDBAtLeast(t testing.TB, major, minor int) bool {
	t.Helper()
	if e.IsMySQL() {
		return false
	}
	ok, err := mariadbAtLeast(e.MySQLVersion(t), major, minor)
	if err != nil {
		t.Fatalf("testenv: source: %v", err)
	}
	return ok
}
