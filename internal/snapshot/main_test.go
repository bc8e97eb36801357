package snapshot

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/testenv"
)

var (
	binDir   string
	binOnce  sync.Once
	binPath  string
	binError error
)

// TestMain provides a temporary directory for the sluice binary that the
// end-to-end tests build (once, on first use) and run as a subprocess.
func TestMain(m *testing.M) {
	code := func() int {
		dir, err := os.MkdirTemp("", "sluice-snapshot-test-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		binDir = dir
		return m.Run()
	}()
	os.Exit(code)
}

// sluiceBinary builds cmd/sluice with `go build` (once per test binary).
func sluiceBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		root, err := testenv.RepoRoot()
		if err != nil {
			binError = err
			return
		}
		binPath = filepath.Join(binDir, "sluice")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/sluice")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			binError = fmt.Errorf("go build ./cmd/sluice: %v\n%s", err, out)
		}
	})
	if binError != nil {
		t.Fatal(binError)
	}
	return binPath
}

// sluiceCmd prepares `sluice args...` without inheriting SLUICE_* settings.
func sluiceCmd(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(sluiceBinary(t), args...)
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "SLUICE_") {
			cmd.Env = append(cmd.Env, e)
		}
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	return cmd, &out, &errOut
}

// runSluice runs the binary to the end and returns its exit code and output.
func runSluice(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	cmd, out, errOut := sluiceCmd(t, args...)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-ctx.Done():
		cmd.Process.Kill()
		<-done
		t.Fatalf("sluice %s: timed out\n%s", strings.Join(args, " "), errOut)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
}
