// Package metrics serves Prometheus metrics and /healthz for long-running
// commands, and Go's profiler when asked. Each command registers its
// collectors on its own registry.
package metrics

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/sluice-db/sluice/internal/board"
	"github.com/sluice-db/sluice/internal/statuspage"
)

// NewRegistry returns a registry with the Go runtime and process collectors.
func NewRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// Options of the server.
type Options struct {
	Addr string // --metrics-addr
	// Flag names the address's setting in errors (default --metrics-addr).
	Flag     string
	Registry *prometheus.Registry
	// Health returns nil while the command is healthy (nil: always).
	Health func() error
	// Profiles serves Go's profiler under /debug/pprof/ (--pprof). Off, those
	// paths are 404: the profiler has no authentication, and a remote
	// Prometheus's natural address (:9187) is every interface.
	Profiles bool
	// Cmdline is what /debug/pprof/cmdline shows: the command line with the
	// URLs' passwords redacted (Go's own handler shows os.Args as they are).
	Cmdline []string
	// Board, when set, is served as the status page (/ and /api/status).
	Board *board.Board
	// Token, when set, is required as a bearer token on every path but
	// /healthz and the page's static files (--status-token-file).
	Token string
	Log   *slog.Logger
}

// Serve listens on o.Addr and serves /metrics, /healthz, with o.Board the
// status page, and with o.Profiles /debug/pprof/ until ctx ends. It returns once listening, so a
// bad address is reported before the work starts.
func Serve(ctx context.Context, o Options) error {
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		if o.Flag == "" {
			o.Flag = "--metrics-addr"
		}
		return fmt.Errorf("%s %s: %w", o.Flag, o.Addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", statuspage.RequireToken(o.Token,
		promhttp.HandlerFor(o.Registry, promhttp.HandlerOpts{Registry: o.Registry})))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		if o.Health != nil {
			if err := o.Health(); err != nil {
				http.Error(w, err.Error(), http.StatusServiceUnavailable)
				return
			}
		}
		fmt.Fprintln(w, "ok")
	})
	paths := "/metrics /healthz"
	if o.Board != nil {
		statuspage.Register(mux, statuspage.Options{Token: o.Token,
			Status: func(*http.Request) (board.Status, error) { return o.Board.Status(), nil }})
		paths += " / /api/status"
	}
	if o.Profiles {
		handleProfiles(mux, o.Token, o.Cmdline)
		paths += " /debug/pprof/"
		if !IsLoopback(ln.Addr()) {
			o.Log.Warn("--pprof serves Go's profiler without authentication on a non-loopback address: "+
				"whoever reaches it can read profiles of this process and load it with long CPU profiles; "+
				"bind --metrics-addr to 127.0.0.1 (an SSH tunnel reaches it) or drop --pprof", "addr", ln.Addr().String())
		}
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			o.Log.Error("metrics server stopped", "addr", o.Addr, "err", err)
		}
	}()
	o.Log.Info("serving metrics", "addr", ln.Addr().String(), "paths", paths)
	return nil
}

// handleProfiles adds Go's profiles on the metrics port: a DBA reporting
// "sluice is slow" can send a CPU profile (go tool pprof
// http://ADDR/debug/pprof/profile).
func handleProfiles(mux *http.ServeMux, token string, cmdline []string) {
	handle := func(path string, h http.HandlerFunc) { mux.Handle(path, statuspage.RequireToken(token, h)) }
	handle("/debug/pprof/", pprof.Index)
	handle("/debug/pprof/profile", pprof.Profile)
	handle("/debug/pprof/trace", pprof.Trace)
	handle("/debug/pprof/symbol", pprof.Symbol)
	handle("/debug/pprof/cmdline", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, strings.Join(cmdline, "\x00"))
	})
}

// IsLoopback reports whether a listener's address is reachable from this
// machine only. An unspecified address (":9187", "0.0.0.0", "[::]") is
// every interface.
func IsLoopback(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}
