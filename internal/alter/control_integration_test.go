package alter

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestAlterControlLive changes the chunk size and the workers of a running
// copy through its control file, pauses and resumes it, and feeds it
// malformed lines, reading each effect back from alter status (in process
// and through the binary); the table is equal to the writers' model after.
func TestAlterControlLive(t *testing.T) {
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		bin := testenv.SluiceBinary(t)
		name := env.NewDatabase(t, "alter_ctl")
		db := env.MySQL(t, name)
		rows := seed(t, db, baseTable)
		l := startLoad(t, db, rows, 2)
		ctl := filepath.Join(t.TempDir(), "alter.ctl")
		if err := os.WriteFile(ctl, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		o := alterOptions(t, env, name, "ADD COLUMN d INT, ADD INDEX ib (b)")
		o.ChunkRows, o.Workers, o.ControlFile = 500, 2, ctl
		o.afterChunk = func(int) { time.Sleep(250 * time.Millisecond) } // a copy slow enough to steer
		src, err := config.ParseSource(env.MySQLAdminURL(name))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		done := make(chan error, 1)
		go func() { _, err := Run(ctx, o); done <- err }()
		st := func() *Status {
			t.Helper()
			s, err := ReadStatus(ctx, src, "t")
			if err != nil {
				t.Fatalf("alter status: %v", err)
			}
			return s
		}
		waitFor := func(what string, ok func(*Status) bool) *Status {
			t.Helper()
			for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
				select {
				case err := <-done:
					t.Fatalf("the run ended (%v) before %s", err, what)
				default:
				}
				if s, err := ReadStatus(ctx, src, "t"); err == nil && ok(s) {
					return s
				}
				if time.Now().After(deadline) {
					t.Fatalf("no %s within 60s; last status %+v", what, st())
				}
			}
		}
		write := func(text string) {
			t.Helper()
			if err := os.WriteFile(ctl, []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		s0 := waitFor("chunk copied", func(s *Status) bool { return s.ChunksDone >= 2 && s.Phase == phaseCopy })
		if s0.Statements < s0.ChunksDone || s0.Statements > s0.ChunksDone+int64(o.Workers) || setting(s0, "chunk-rows") != "500" || setting(s0, "workers") != "2" {
			t.Fatalf("before any setting line: %d statements for %d chunks, settings %v", s0.Statements, s0.ChunksDone, s0.Settings)
		}
		write("chunk-rows 100\nworkers 3\n")
		s1 := waitFor("chunk-rows 100 in force", func(s *Status) bool {
			return setting(s, "chunk-rows") == "100" && setting(s, "workers") == "3"
		})
		s2 := waitFor("chunks copied in pieces", func(s *Status) bool { return s.ChunksDone >= s1.ChunksDone+3 })
		// 500 rows copy as 5 pieces of 100; the load's deletes thin some
		// chunks (fewer pieces) and a chunk in flight at s1 still copies
		// whole, so ask for clearly more than the one statement a chunk
		// that chunk-rows 500 gives.
		if got, chunks := s2.Statements-s1.Statements, s2.ChunksDone-s1.ChunksDone; got < 2*chunks {
			t.Errorf("chunk-rows 100 of 500-row chunks: %d statements for %d chunks, want 2 or more a chunk", got, chunks)
		}

		write("chunk-rows 100\nworkers 3\npause\n")
		p := waitFor("pause", func(s *Status) bool { return strings.Contains(s.Paused, "paused by the control file") })
		time.Sleep(2 * time.Second) // chunks in flight finish
		p1 := st()
		time.Sleep(1500 * time.Millisecond)
		if p2 := st(); p2.ChunksDone != p1.ChunksDone || p2.Paused == "" {
			t.Errorf("paused: chunks went from %d to %d (status %q)", p1.ChunksDone, p2.ChunksDone, p2.Paused)
		}
		_ = p

		write("chunk-rows 0\nworkers lots\nmax-load Threads_running\npause\n")
		bad := waitFor("a refused line", func(s *Status) bool { return strings.Contains(s.Refused, "refused, nothing changed") })
		time.Sleep(1500 * time.Millisecond)
		bad = st()
		for knob, want := range map[string]string{"chunk-rows": "100", "workers": "3", "max-load": "off"} {
			if got := setting(bad, knob); got != want {
				t.Errorf("after malformed lines, %s is %q, want %q (unchanged)", knob, got, want)
			}
		}
		out, err := testenv.SluiceCommand(bin, "alter", "status", "--source", env.MySQLAdminURL(name), "--table", "t").CombinedOutput()
		if err != nil || !strings.Contains(string(out), "running, phase copy") || !strings.Contains(string(out), "chunk-rows 100, workers 3") ||
			!strings.Contains(string(out), "throttle: paused by the control file") || !strings.Contains(string(out), "rows copied: ") {
			t.Errorf("alter status during the run: %v\n%s", err, out)
		}

		write("chunk-rows 100\nworkers 2\nresume\n") // fewer workers: the extra one stops
		if err := <-done; err != nil {
			l.finish()
			t.Fatalf("alter: %v", err)
		}
		l.finish()
		l.compare(db)
		leftovers(t, db, name)
		end := st()
		if end.Phase != phaseDone || end.ChunksDone != end.Chunks || end.Rows == 0 {
			t.Errorf("status after the swap: %+v", end)
		}
		if lines, code := end.Lines(); code != 0 || !strings.HasPrefix(lines[0], name+".t: done") {
			t.Errorf("status lines after the swap (exit %d): %v", code, lines)
		}
		var ee *exec.ExitError
		out, err = testenv.SluiceCommand(bin, "alter", "status", "--source", env.MySQLAdminURL(name), "--table", "nosuch").CombinedOutput()
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "no sluice alter of "+name+".nosuch") {
			t.Errorf("alter status of no run: want exit 2, got %v:\n%s", err, out)
		}
	})
}

func setting(s *Status, name string) string {
	for _, st := range s.Settings {
		if st.Name == name {
			return st.Value
		}
	}
	return ""
}
