package alter

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestAlterKill9Resume kills the sluice binary with SIGKILL in the middle of
// the copy under a write load, runs the same command again (it resumes from
// the state on the source) and compares every row with the writers' model.
func TestAlterKill9Resume(t *testing.T) {
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		bin := testenv.SluiceBinary(t)
		name := env.NewDatabase(t, "alter_kill")
		db := env.MySQL(t, name)
		rows := seed(t, db, baseTable)
		l := startLoad(t, db, rows, 4)
		args := []string{"alter", "--source", env.MySQLAdminURL(name), "--table", "t", "--alter", "ADD COLUMN d INT, ADD INDEX ib (b)",
			"--method", "copy", "--workers", "2", "--chunk-rows", "300", "--log-format", "json"}
		first := testenv.SluiceCommand(bin, append(args, "--nice-ratio", "4")...)
		var out1 bytes.Buffer
		first.Stdout, first.Stderr = &out1, &out1
		if err := first.Start(); err != nil {
			l.finish()
			t.Fatal(err)
		}
		deadline := time.Now().Add(60 * time.Second)
		for {
			var n int
			_ = db.QueryRow("SELECT COUNT(*) FROM `sluice`.`alter_chunks` WHERE db = ? AND done = 1", name).Scan(&n)
			if n >= 5 {
				break
			}
			if time.Now().After(deadline) {
				_ = first.Process.Kill()
				l.finish()
				t.Fatalf("no chunk copied within 60s:\n%s", out1.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
		if err := first.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		_ = first.Wait()
		// alter status of the killed run: not running (no update for
		// staleAfter), exit 1, and how to resume.
		time.Sleep(staleAfter + 500*time.Millisecond) // also changes only the replay can bring
		out, err := testenv.SluiceCommand(bin, "alter", "status", "--source", env.MySQLAdminURL(name), "--table", "t").CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(string(out), "not running (last update") ||
			!strings.Contains(string(out), "run the same sluice alter again to resume") {
			t.Errorf("alter status of the killed run: want exit 1 and how to resume, got %v:\n%s", err, out)
		}
		second := testenv.SluiceCommand(bin, args...)
		out2, err := second.CombinedOutput()
		time.Sleep(200 * time.Millisecond)
		l.finish()
		if err != nil {
			t.Fatalf("resumed run: %v\n%s", err, out2)
		}
		if !strings.Contains(string(out2), "resumed") {
			t.Errorf("the second run did not resume:\n%s", out2)
		}
		l.compare(db)
		leftovers(t, db, name)

		// Refusals exit 2 through the binary.
		refused := testenv.SluiceCommand(bin, "alter", "--source", env.MySQLAdminURL(name), "--table", "t", "--alter", "RENAME COLUMN b TO bb")
		out3, err := refused.CombinedOutput()
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out3), "renames column b to bb") {
			t.Errorf("rename: want exit 2, got %v:\n%s", err, out3)
		}
	})
}
