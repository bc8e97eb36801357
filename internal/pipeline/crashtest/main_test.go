// Package crashtest holds the end-to-end tests of replication that need the
// built sluice binary: kill -9 of `sluice replicate` (and of PostgreSQL)
// under a running write load, into PostgreSQL and into a MySQL target, and a
// 1 GB source transaction under --max-txn-memory. They run against the
// sandbox MariaDB (and its MySQL target) and, where the test kills
// PostgreSQL, a private throwaway PostgreSQL; `make test` runs them alone,
// after the other packages, because their load would make other tests' FLUSH
// TABLES WITH READ LOCK wait.
package crashtest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/testenv"
)

func TestMain(m *testing.M) { testenv.MainWithSluiceBinary(m) }

// sluiceBinary builds cmd/sluice once per test binary (testenv.SluiceBinary),
// or uses the binary named by SLUICE_CRASHTEST_BIN.
func sluiceBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("SLUICE_CRASHTEST_BIN"); p != "" {
		return p
	}
	return testenv.SluiceBinary(t)
}

// sluiceCmd prepares `sluice args...` without inheriting SLUICE_* settings;
// its output goes to a file in the test's temp dir (logs can be long).
func sluiceCmd(t *testing.T, logPath string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := testenv.SluiceCommand(sluiceBinary(t), args...)
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	cmd.Stdout, cmd.Stderr = f, f
	return cmd
}

// requireImplemented skips while `sluice <sub>` is still the placeholder.
func requireImplemented(t *testing.T, sub string) {
	t.Helper()
	cmd := exec.Command(sluiceBinary(t), sub, "--help")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	_ = cmd.Run()
	if strings.Contains(out.String(), "not implemented") {
		t.Skipf("sluice %s is not implemented yet", sub)
	}
}

func logTail(path string, n int) string {
	b, _ := os.ReadFile(path)
	return testenv.Tail(string(b), n)
}

// logFile is where a test's sluice processes write; SLUICE_TEST_KEEP=1 keeps
// it after the test (otherwise it goes with t.TempDir).
func logFile(t *testing.T) string {
	dir := t.TempDir()
	if os.Getenv("SLUICE_TEST_KEEP") != "" {
		var err error
		if dir, err = os.MkdirTemp("", "sluice-crashtest-log-"); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "sluice.log")
}
