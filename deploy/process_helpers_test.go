package deploy

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/testenv"
)

// proc is a sluice process the test started, with its output.
type proc struct {
	name string
	cmd  *exec.Cmd
	out  *testenv.SyncBuffer
	done chan error
}

func startSluice(t *testing.T, bin, name string, args ...string) *proc {
	t.Helper()
	p := &proc{name: name, cmd: testenv.SluiceCommand(bin, args...), out: &testenv.SyncBuffer{}, done: make(chan error, 1)}
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// running fails the test when the process ended.
func (p *proc) running(t *testing.T) {
	t.Helper()
	select {
	case err := <-p.done:
		t.Fatalf("sluice %s ended: %v\n%s", p.name, err, testenv.Tail(p.out.String(), 40))
	default:
	}
}

// stop ends the process with SIGINT (a graceful stop) and waits for it.
func (p *proc) stop(t *testing.T) {
	t.Helper()
	_ = p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.done:
	case <-time.After(60 * time.Second):
		t.Fatalf("sluice %s did not stop on SIGINT\n%s", p.name, testenv.Tail(p.out.String(), 40))
	}
}

// kill ends the process with SIGKILL.
func (p *proc) kill() {
	_ = p.cmd.Process.Kill()
	<-p.done
}

// runSluice runs a sluice command to its end and returns its exit code and output.
func runSluice(t *testing.T, bin string, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// SluiceCommand's environment (no SLUICE_* of the developer), with a deadline.
	env := testenv.SluiceCommand(bin, args...).Env
	c := exec.CommandContext(ctx, bin, args...)
	c.Env = env
	b, err := c.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("sluice %v: timed out\n%s", args, b)
	}
	if err != nil && c.ProcessState == nil {
		t.Fatalf("sluice %v: %v", args, err)
	}
	return c.ProcessState.ExitCode(), string(b)
}
