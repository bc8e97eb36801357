package cli

import (
	"errors"
	"os"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/cobra"

	"github.com/sluice-db/sluice/internal/board"
	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/metrics"
	"github.com/sluice-db/sluice/internal/notify"
	"github.com/sluice-db/sluice/internal/replicate"
)

// monitor is what a long-running command publishes to on --metrics-addr:
// the Prometheus registry and the status page's board (both nil without
// the flag, or the notify flags; a nil board takes every update and keeps
// nothing). The board's events go to the --hook and --notify-webhook
// notifier.
type monitor struct {
	Registry *prometheus.Registry
	Board    *board.Board
}

func addStatusTokenFlag(cmd *cobra.Command) {
	cmd.Flags().String("status-token-file", "", "require the token in this file (mode 0600) as a bearer token on --metrics-addr's "+
		"/api/status, /metrics and /debug/pprof/; the page reads it from its address: http://127.0.0.1:9187/#token=TOKEN, "+
		"e.g. --status-token-file /etc/sluice/status.token")
}

// serveMetrics starts the Prometheus endpoint and the status page when
// --metrics-addr is set and points the options at them.
func serveMetrics(cmd *cobra.Command, s *Settings, opts *replicate.Options) error {
	mon, err := serveRuntimeMetrics(cmd, s)
	if mon.Registry != nil {
		opts.Registry = mon.Registry
	}
	opts.Board = mon.Board
	return err
}

// serveRuntimeMetrics serves /metrics (the Go runtime and the process for
// every long-running command; replicate adds its own), /healthz, the status
// page (/ and /api/status) and, with --pprof, /debug/pprof/ when
// --metrics-addr is set; the zero monitor without it.
func serveRuntimeMetrics(cmd *cobra.Command, s *Settings) (monitor, error) {
	addr := s.K.String("metrics-addr")
	if addr == "" && (len(config.List(s.K, "hook")) > 0 || len(config.List(s.K, "notify-webhook")) > 0) {
		return watchBoard(cmd, s, metrics.NewRegistry()) // the board without a page: for its events
	}
	if addr == "" {
		switch {
		case s.K.Bool("pprof"):
			return monitor{}, exitcode.ConfigError(errors.New("--pprof serves the profiler on --metrics-addr: give one, e.g. --metrics-addr 127.0.0.1:9187"))
		case s.K.String("status-token-file") != "":
			return monitor{}, exitcode.ConfigError(errors.New("--status-token-file guards the status page on --metrics-addr: give one, e.g. --metrics-addr 127.0.0.1:9187"))
		}
		return monitor{}, nil
	}
	return servePage(cmd, s, "--metrics-addr", addr)
}

// servePage serves the metrics and the status page of a new board on addr
// (flag names it in errors), with --status-token-file's token, sampling
// the board until the command ends.
func servePage(cmd *cobra.Command, s *Settings, flag, addr string) (monitor, error) {
	var token string
	if f := s.K.String("status-token-file"); f != "" {
		var err error
		if token, err = config.ReadPasswordFile(f, "--status-token-file"); err != nil {
			return monitor{}, exitcode.ConfigError(err)
		}
	}
	mon, err := watchBoard(cmd, s, metrics.NewRegistry())
	if err != nil {
		return monitor{}, err
	}
	o := metrics.Options{Addr: addr, Flag: flag, Registry: mon.Registry, Board: mon.Board, Token: token,
		Profiles: s.K.Bool("pprof"), Cmdline: config.RedactArgs(os.Args), Log: s.Log}
	if err := metrics.Serve(cmd.Context(), o); err != nil {
		return monitor{}, exitcode.ConfigError(err)
	}
	return mon, nil
}

// watchBoard starts a board sampled (and watched for events) until the
// command ends, with the notify flags' notifier, and tells it the command
// started.
func watchBoard(cmd *cobra.Command, s *Settings, reg *prometheus.Registry) (monitor, error) {
	n, err := newNotifier(cmd, s, reg)
	if err != nil {
		return monitor{}, err
	}
	o := board.Options{Command: cmd.Name(), LagThreshold: s.K.Duration("notify-lag")}
	if n != nil {
		o.Notify = n
	}
	mon := monitor{Registry: reg, Board: board.New(o)}
	go mon.Board.Run(cmd.Context())
	n.Notify(notify.Event{Event: notify.Started, Stream: s.K.String("stream"), Detail: cmd.Name() + " started"})
	return mon, nil
}
