package reverse

import (
	"errors"
	"os/exec"
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
}
