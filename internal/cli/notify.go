package cli

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/cobra"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/notify"
)

// notifyGrace is how long a command that ends waits for its last events
// (stopped, failed) to reach the hooks and webhooks.
const notifyGrace = 10 * time.Second

// addNotifyFlags adds --hook, --hook-timeout, --notify-webhook and
// --notify-lag (docs/monitoring.md, "Hooks and webhooks").
func addNotifyFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringArray("hook", nil, "run COMMAND on EVENT: EVENT=COMMAND (repeatable); the events: "+strings.Join(notify.Names(), ", ")+
		", or all; COMMAND is split into words like a shell does but runs without one (say /bin/sh -c '…' for one), "+
		"with SLUICE_EVENT, SLUICE_STREAM, SLUICE_POSITION, SLUICE_LAG_SECONDS, SLUICE_TABLE, SLUICE_ERROR… in its "+
		"environment, e.g. --hook failed='/usr/local/bin/page-oncall db'")
	f.Duration("hook-timeout", 30*time.Second, "kill a --hook command (and its children) still running after this long")
	f.Bool("hook-required", false, "a --hook that fails (exits non-zero, is killed at --hook-timeout, or misses an event) "+
		"stops the command with exit 1; without it a failing hook is logged and the command goes on")
	f.StringArray("notify-webhook", nil, "POST every event as JSON to this http(s) URL (repeatable), retried with backoff, "+
		"never holding replication up, e.g. --notify-webhook https://hooks.example.com/sluice")
	f.Duration("notify-lag", 0, "a stream's lag over this is a lag_over event, back under half of it a lag_under event "+
		"(0: none), e.g. --notify-lag 30s")
}

var errLagWithoutNotify = exitcode.ConfigError(errors.New("--notify-lag says when to notify: give a --hook or a " +
	"--notify-webhook to notify, e.g. --notify-webhook https://hooks.example.com/sluice"))

// newNotifier starts the notifier of the notify flags (nil without hooks
// and webhooks); its metrics go on reg. It is closed when the command has
// returned (atExit), delivering its last events.
func newNotifier(cmd *cobra.Command, s *Settings, reg *prometheus.Registry) (*notify.Notifier, error) {
	o, err := notifyOptions(cmd, s, reg)
	if err != nil {
		return nil, err
	}
	n, err := notify.New(o)
	if err != nil {
		return nil, err
	}
	atExit(cmd.Context(), func() { n.Close(notifyGrace) })
	return n, nil
}

// notifyOptions reads and checks the notify flags (exit 2 naming the fix).
func notifyOptions(cmd *cobra.Command, s *Settings, reg *prometheus.Registry) (notify.Options, error) {
	k := s.K
	o := notify.Options{Command: cmd.Name(), HookTimeout: k.Duration("hook-timeout"), Registry: reg, Log: s.Log,
		Required: k.Bool("hook-required"), Stop: stopFunc(cmd.Context())}
	o.Host, _ = os.Hostname()
	for _, spec := range config.List(k, "hook") {
		h, err := notify.ParseHook(spec)
		if err != nil {
			return o, exitcode.ConfigError(err)
		}
		o.Hooks = append(o.Hooks, h)
	}
	for _, raw := range config.List(k, "notify-webhook") {
		w, err := notify.ParseWebhook(raw)
		if err != nil {
			return o, exitcode.ConfigError(err)
		}
		o.Webhooks = append(o.Webhooks, w)
	}
	if k.Duration("notify-lag") < 0 || k.Duration("hook-timeout") < 0 {
		return o, exitcode.ConfigError(errors.New("--notify-lag and --hook-timeout take a positive duration, e.g. 30s"))
	}
	if o.Required && len(o.Hooks) == 0 {
		return o, exitcode.ConfigError(errors.New("--hook-required makes a failing --hook stop the command: give a --hook, " +
			"e.g. --hook caught_up=/usr/local/bin/switch-traffic --hook-required"))
	}
	if k.Duration("notify-lag") > 0 && len(o.Hooks) == 0 && len(o.Webhooks) == 0 {
		return o, errLagWithoutNotify
	}
	return o, nil
}

// exits are the functions Execute runs once the command returned: what
// must outlive the command's context (the notifier's last events); and
// stop, which ends the command's context with a cause that becomes its
// error (a failed --hook-required hook).
type exits struct {
	mu   sync.Mutex
	fns  []func()
	stop context.CancelCauseFunc
}

type exitsKey struct{}

// withExits returns ctx carrying an exit list, and the function running it.
func withExits(ctx context.Context) (context.Context, func()) {
	e := &exits{}
	ctx, e.stop = context.WithCancelCause(ctx)
	return context.WithValue(ctx, exitsKey{}, e), func() {
		e.mu.Lock()
		fns := e.fns
		e.fns = nil
		e.mu.Unlock()
		for i := len(fns) - 1; i >= 0; i-- {
			fns[i]()
		}
	}
}

// executeContext runs the command line, then what it left for its exit.
// A command stopped by stopFunc's cause returns that cause, whatever the
// command itself returned (a replicator stops gracefully, with nil).
func executeContext(ctx context.Context, root *cobra.Command) error {
	ctx, runExits := withExits(ctx)
	defer runExits()
	err := root.ExecuteContext(ctx)
	var hf *notify.HookFailed
	if cause := context.Cause(ctx); errors.As(cause, &hf) {
		return cause
	}
	return err
}

// stopFunc stops the command of ctx with a cause (nil without an exit
// list: a command run in-process without executeContext).
func stopFunc(ctx context.Context) func(error) {
	if e, ok := ctx.Value(exitsKey{}).(*exits); ok {
		return func(err error) { e.stop(err) }
	}
	return nil
}

// atExit runs fn when the command has returned; without an exit list (a
// command run in-process by a test) when its context ends.
func atExit(ctx context.Context, fn func()) {
	if e, ok := ctx.Value(exitsKey{}).(*exits); ok {
		e.mu.Lock()
		e.fns = append(e.fns, fn)
		e.mu.Unlock()
		return
	}
	context.AfterFunc(ctx, fn)
}
