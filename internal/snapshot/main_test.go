package snapshot

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestMain removes the sluice binary that the end-to-end tests build (once,
// on first use, testenv.SluiceBinary) and run as a subprocess.
func TestMain(m *testing.M) { testenv.MainWithSluiceBinary(m) }

// sluiceBinary is the binary built from ./cmd/sluice.
func sluiceBinary(t *testing.T) string {
	t.Helper()
	return testenv.SluiceBinary(t)
}

// sluiceCmd prepares `sluice args...` without inheriting SLUICE_* settings.
func sluiceCmd(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	cmd := testenv.SluiceCommand(sluiceBinary(t), args...)
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
