package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The sluice binary that end-to-end tests run as a subprocess: built once per
// test binary into a temporary directory, removed by RemoveSluiceBinary.
var (
	binOnce  sync.Once
	binDir   string
	binPath  string
	binError error
)

// SluiceBinary builds ./cmd/sluice with `go build` once per test binary and
// returns its path. A package that uses it has MainWithSluiceBinary as its
// TestMain, which removes the binary after the tests.
func SluiceBinary(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		root, err := RepoRoot()
		if err != nil {
			binError = err
			return
		}
		if binDir, err = os.MkdirTemp("", "sluice-testbin-"); err != nil {
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

// RemoveSluiceBinary deletes the directory SluiceBinary built into, if any.
func RemoveSluiceBinary() {
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
}

// MainWithSluiceBinary is the TestMain of a package whose tests run the
// sluice binary: it runs the tests, removes what SluiceBinary built and exits
// with the tests' exit code.
func MainWithSluiceBinary(m *testing.M) {
	code := m.Run()
	RemoveSluiceBinary()
	os.Exit(code)
}

// SluiceCommand prepares `<bin> args...` with the environment of the test
// minus every SLUICE_* variable, so a developer's settings never leak into a
// test's sluice run (but for the sandbox's binlog retention minimum).
func SluiceCommand(bin string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "SLUICE_") {
			cmd.Env = append(cmd.Env, e)
		}
	}
	// The sandbox's retention is shorter than sluice's default minimum (retention.go).
	cmd.Env = append(cmd.Env, minRetentionEnv+"="+SandboxMinBinlogRetention)
	return cmd
}
