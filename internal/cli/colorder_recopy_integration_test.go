package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestColumnOrderAndRecopyCLI: after a column placed AFTER another on the
// source is replicated, status and verify name the differing column order
// (verify exits 0: not a data difference); snapshot --recopy of the table
// through the command line copies it again and verify stays equal; --recopy
// into a MySQL target is refused with exit 2.
func TestColumnOrderAndRecopyCLI(t *testing.T) {
	env := testenv.Get(t)
	db := env.NewDatabase(t, "cli_colorder")
	my := env.MySQL(t, db)
	for _, q := range []string{"CREATE TABLE t (id INT PRIMARY KEY, a INT)", "INSERT INTO t VALUES (1, 10), (2, 20)"} {
		if _, err := my.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	stream := testenv.UniqueName("co")
	forgetStream(t, env, stream)
	forgetStream(t, env, stream+"/recopy")
	pg := env.PG(t)
	t.Cleanup(func() { _, _ = pg.Exec(context.Background(), "DELETE FROM sluice.recopy WHERE stream = $1", stream) })
	base := []string{"--source", env.SourceURL(db), "--target", env.TargetURL(), "--stream", stream, "--log-level", "error"}
	if code, _, errOut := runCLI(context.Background(), append([]string{"snapshot"}, base...)...); code != 0 {
		t.Fatalf("snapshot: %s", errOut)
	}
	for _, q := range []string{"ALTER TABLE t ADD COLUMN c INT NOT NULL DEFAULT 0 AFTER id", "INSERT INTO t VALUES (3, 300, 30)"} {
		if _, err := my.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, errOut := runCLI(context.Background(), append([]string{"replicate", "--until-caught-up"}, base...)...); code != 0 {
		t.Fatalf("replicate: %s", errOut)
	}
	code, out, errOut := runCLI(context.Background(), "status", "--target", env.TargetURL(), "--stream", stream)
	if code != 0 || !strings.Contains(out, "column order differs") || !strings.Contains(out, db+".t: source (id, c, a) target (id, a, c)") {
		t.Errorf("status (exit %d):\n%s%s", code, out, errOut)
	}
	verifyArgs := []string{"verify", "--source", env.SourceURL(db), "--target", env.TargetURL(), "--log-level", "error"}
	code, out, errOut = runCLI(context.Background(), verifyArgs...)
	if code != 0 || !strings.Contains(out, "column order differs: source (id, c, a) target (id, a, c)") {
		t.Errorf("verify (exit %d):\n%s%s", code, out, errOut)
	}

	if _, err := pg.Exec(context.Background(), "UPDATE "+db+".t SET c = -1 WHERE id = 3"); err != nil {
		t.Fatal(err)
	}
	if code, _, _ = runCLI(context.Background(), verifyArgs...); code != 1 {
		t.Errorf("verify of a damaged table: exit %d, want 1", code)
	}
	if code, out, errOut = runCLI(context.Background(), append([]string{"snapshot", "--include", db + ".t", "--recopy"}, base...)...); code != 0 {
		t.Fatalf("snapshot --recopy (exit %d): %s%s", code, out, errOut)
	}
	if code, out, errOut = runCLI(context.Background(), verifyArgs...); code != 0 {
		t.Errorf("verify after --recopy (exit %d):\n%s%s", code, out, errOut)
	}

	mt := env.MySQLTarget(t)
	tdb := testenv.UniqueName("cli_recopy_t")
	mt.NewDatabase(t, tdb)
	code, _, errOut = runCLI(context.Background(), "snapshot", "--source", env.SourceURL(db), "--target", mt.URL(tdb),
		"--include", db+".t", "--recopy", "--stream", stream, "--log-level", "error")
	if code != 2 || !strings.Contains(errOut, "MySQL/MariaDB target is not supported") {
		t.Errorf("--recopy into a MySQL target: exit %d: %s", code, errOut)
	}
}
