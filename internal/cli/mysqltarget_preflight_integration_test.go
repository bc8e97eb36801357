package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestMySQLTargetBadInputIsRefused: a target engine without transactions,
// an engine the target does not have, and a target user without the
// privileges to create and write the tables are each refused by pre-flight
// with exit 2 and the fix, before anything is written.
func TestMySQLTargetBadInputIsRefused(t *testing.T) {
	env := testenv.Get(t)
	tgt := env.MySQLTarget(t)
	admin := tgt.Admin(t)
	db := env.NewDatabase(t, "cli_mtbad")
	if _, err := env.MySQL(t, db).Exec("CREATE TABLE t (id INT PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	tdb := db + "_r"
	tgt.DropAtEnd(t, tdb)
	user := testenv.UniqueName("ro")
	if _, err := admin.Exec("CREATE USER '" + user + "'@'%' IDENTIFIED BY 'pw'; GRANT SELECT ON `" + tdb + "`.* TO '" + user + "'@'%'"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = admin.Exec("DROP USER '" + user + "'@'%'") })
	readOnly := strings.Replace(tgt.URL(tdb), "sluice:sluice@", user+":pw@", 1)

	for _, c := range []struct {
		name  string
		args  []string
		wants []string
	}{
		{"MyISAM", []string{"--target", tgt.URL(tdb), "--target-engine", "MyISAM"}, []string{"MyISAM has no transactions", "--target-engine"}},
		{"unknown engine", []string{"--target", tgt.URL(tdb), "--target-engine", "NOPE"}, []string{"NOPE is not available"}},
		{"read-only user", []string{"--target", readOnly}, []string{"lacks", "GRANT", "INSERT", tdb}},
	} {
		for _, cmd := range []string{"snapshot", "replicate"} {
			args := append([]string{cmd, "--source", env.SourceURL(db), "--stream", testenv.UniqueName("bad"), "--log-level", "error"}, c.args...)
			if cmd == "replicate" {
				args = append(args, "--start-position", "mysql-bin.000001:4")
			}
			code, _, errOut := runCLI(context.Background(), args...)
			if code != exitcode.Config {
				t.Errorf("%s, %s: exit %d, want 2:\n%s", c.name, cmd, code, errOut)
			}
			for _, w := range c.wants {
				if !strings.Contains(errOut, w) {
					t.Errorf("%s, %s: the error does not say %q:\n%s", c.name, cmd, w, errOut)
				}
			}
		}
	}
	var n int
	if err := admin.QueryRow("SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", tdb).Scan(&n); err != nil || n != 0 {
		t.Errorf("the target database was created (%d, %v): pre-flight must refuse before writing", n, err)
	}
}

// TestTargetEngineOnlyWithStorageEngines: --target-engine into a PostgreSQL
// target is refused, before anything is written, with one message (exit 2)
// by both commands that take the flag: the target's engine has no storage
// engines to choose (target.Capabilities.StorageEngines).
func TestTargetEngineOnlyWithStorageEngines(t *testing.T) {
	env := testenv.Get(t)
	db := env.NewDatabase(t, "cli_tepg")
	if _, err := env.MySQL(t, db).Exec("CREATE TABLE t (id INT PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	const want = "--target-engine applies to a MySQL target (mysql:// --target) only"
	for _, cmd := range []string{"snapshot", "replicate"} {
		args := []string{cmd, "--source", env.SourceURL(db), "--target", env.TargetURL(), "--stream", testenv.UniqueName("tepg"),
			"--log-level", "error", "--target-engine", "InnoDB"}
		if cmd == "replicate" {
			args = append(args, "--start-position", "mysql-bin.000001:4")
		}
		code, out, errOut := runCLI(context.Background(), args...)
		if code != exitcode.Config || !strings.Contains(errOut, want) {
			t.Errorf("%s --target-engine into PostgreSQL: exit %d, want 2 and %q:\n%s%s", cmd, code, want, out, errOut)
		}
	}
}
