package reverse

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestReverseCLIExitCodes: through the binary, a value MySQL cannot hold
// exits 1 naming it, and a reverse stream into a non-MySQL target exits 2.
func TestReverseCLIExitCodes(t *testing.T) {
	bin := testenv.SluiceBinary(t)
	g := newRig(t, "rvcli", "CREATE TABLE c (id INT PRIMARY KEY, y YEAR)")
	g.snapshot()
	g.catchUp()
	g.postgres("INSERT INTO c VALUES (1, 10000)")
	code := func(args ...string) (int, string) {
		out, err := testenv.SluiceCommand(bin, args...).CombinedOutput()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), string(out)
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0, string(out)
	}
	n, out := code("replicate", "--source", g.env.TargetURL(), "--target", g.env.MySQLAdminURL(g.db), "--stream", g.stream, "--until-caught-up")
	if n != 1 || !strings.Contains(out, "year 10000") || !strings.Contains(out, "column y") {
		t.Fatalf("year 10000: exit %d\n%s", n, tail([]byte(out)))
	}
	n, out = code("replicate", "--source", g.env.TargetURL(), "--target", g.env.TargetURL(), "--stream", g.stream)
	if n != 2 || !strings.Contains(out, "mysql://") {
		t.Fatalf("postgres target: exit %d\n%s", n, tail([]byte(out)))
	}
	n, out = code("replicate", "--source", g.env.TargetURL(), "--target", g.env.MySQLAdminURL(g.db), "--stream", g.stream,
		"--until-caught-up", "--on-error", "skip-and-log")
	if n != 0 || !strings.Contains(out, "row left out") {
		t.Fatalf("skip-and-log: exit %d\n%s", n, tail([]byte(out)))
	}
	// The way back's URLs without passwords: PostgreSQL's (the source now)
	// from SLUICE_SOURCE_PASSWORD, MySQL's from --target-password-file.
	pgURL, pgPW := testenv.SplitPassword(t, g.env.TargetURL())
	myURL, myPW := testenv.SplitPassword(t, g.env.MySQLAdminURL(g.db))
	pwFile := filepath.Join(t.TempDir(), "mysql.pw")
	if err := os.WriteFile(pwFile, []byte(myPW+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	g.postgres("INSERT INTO c VALUES (2, 2001)")
	cmd := testenv.SluiceCommand(bin, "replicate", "--source", pgURL, "--target", myURL, "--target-password-file", pwFile,
		"--stream", g.stream, "--until-caught-up")
	cmd.Env = append(cmd.Env, "SLUICE_SOURCE_PASSWORD="+pgPW)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the way back with its passwords from the environment and a file: %v\n%s", err, tail(b))
	}
	var y int
	if err := g.my.QueryRow("SELECT y FROM c WHERE id = 2").Scan(&y); err != nil || y != 2001 {
		t.Fatalf("row 2 back in MySQL: y = %d (%v), want 2001", y, err)
	}
}
