package notify

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Hook is one --hook EVENT=COMMAND: the program and its arguments, run
// directly (no shell) with the event in its environment.
type Hook struct {
	Event string   // an event name, or All
	Argv  []string // the program (resolved by exec.LookPath) and its arguments
}

// name is the hook as logs show it: the event and the program, not its
// arguments (they may hold a token).
func (h Hook) name() string { return h.Event + "=" + h.Argv[0] }

// ParseHook parses and checks one --hook value: a known event, a command
// that splits and whose program exists. The error names the fix.
func ParseHook(spec string) (Hook, error) {
	event, command, ok := strings.Cut(spec, "=")
	event = strings.TrimSpace(event)
	if !ok || event == "" || strings.TrimSpace(command) == "" {
		return Hook{}, fmt.Errorf("--hook %q: give EVENT=COMMAND, e.g. --hook failed='/usr/local/bin/page-oncall --team db'", spec)
	}
	if !known(event) {
		return Hook{}, fmt.Errorf("--hook %q: unknown event %q; the events are %s, or %s for every one", spec, event,
			strings.Join(names, ", "), All)
	}
	argv, err := splitWords(command)
	if err != nil {
		return Hook{}, fmt.Errorf("--hook %q: %w in the command", spec, err)
	}
	if len(argv) == 0 {
		return Hook{}, fmt.Errorf("--hook %q: the command is empty", spec)
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return Hook{}, fmt.Errorf("--hook %q: the command %q is not an executable file or in $PATH: give its full path "+
			"(run through a shell with /bin/sh -c '…' if it is a shell command): %w", spec, argv[0], err)
	}
	argv[0] = path
	return Hook{Event: event, Argv: argv}, nil
}

func (h Hook) matches(event string) bool { return h.Event == All || h.Event == event }

// maxOutput bounds what a failing hook's output adds to the log line.
const maxOutput = 500

// run runs the hook for ev, killing its process group at timeout (a
// hook's own children die with it).
func (h Hook) run(ctx context.Context, ev Event, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, h.Argv[0], h.Argv[1:]...)
	cmd.Env = append(hookEnviron(os.Environ()), ev.env()...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second // a grandchild holding the output open does not hold us
	var out boundedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("killed after the --hook-timeout of %s", timeout)
	case err != nil:
		if o := strings.TrimSpace(out.String()); o != "" {
			return fmt.Errorf("%w: %s", err, o)
		}
		return err
	}
	return nil
}

// hookEnviron is sluice's environment as a hook gets it: without the
// SLUICE_* settings (SLUICE_TARGET_PASSWORD…) and the clients' password
// variables, so a hook never sees a password.
func hookEnviron(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "SLUICE_") || name == "PGPASSWORD" || name == "MYSQL_PWD" {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// boundedBuffer keeps the first maxOutput bytes written to it.
type boundedBuffer struct{ b []byte }

func (w *boundedBuffer) Write(p []byte) (int, error) {
	if room := maxOutput - len(w.b); room > 0 {
		w.b = append(w.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (w *boundedBuffer) String() string { return string(w.b) }
