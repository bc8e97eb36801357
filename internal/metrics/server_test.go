package metrics

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

func TestServeMetricsAndHealth(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()

	reg := NewRegistry()
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: "sluice_test_events_total", Help: "test"})
	reg.MustRegister(c)
	c.Add(3)
	var healthErr error
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := Options{Addr: addr, Registry: reg, Health: func() error { return healthErr }, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if err := Serve(ctx, o); err != nil {
		t.Fatal(err)
	}
	get := func(path string) (int, string) {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/metrics"); code != 200 || !strings.Contains(body, "sluice_test_events_total 3") {
		t.Fatalf("/metrics: %d %s", code, body)
	}
	if code, body := get("/healthz"); code != 200 || strings.TrimSpace(body) != "ok" {
		t.Fatalf("/healthz: %d %q", code, body)
	}
	healthErr = errors.New("apply stopped")
	if code, body := get("/healthz"); code != 503 || !strings.Contains(body, "apply stopped") {
		t.Fatalf("/healthz unhealthy: %d %q", code, body)
	}
	cancel()
	time.Sleep(100 * time.Millisecond)
	if _, err := http.Get("http://" + addr + "/healthz"); err == nil {
		t.Fatal("server still answers after the context ended")
	}
	if err := Serve(context.Background(), Options{Addr: "256.0.0.1:1", Registry: reg, Log: slog.Default()}); err == nil {
		t.Fatal("a bad address must be an error")
	}
}

// TestProfilesOnlyWhenAsked: /debug/pprof/ is 404 without Profiles (the
// profiler has no authentication and /debug/pprof/cmdline showed the
// command line, passwords included); with it the profiles are served and
// cmdline is the redacted command line given, not os.Args.
func TestProfilesOnlyWhenAsked(t *testing.T) {
	for _, profiles := range []bool{false, true} {
		var logs strings.Builder
		ctx, cancel := context.WithCancel(context.Background())
		o := Options{Addr: "127.0.0.1:0", Registry: NewRegistry(), Profiles: profiles,
			Cmdline: []string{"sluice", "replicate", "--source", "mysql://u:xxxxx@h/db"},
			Log:     slog.New(slog.NewTextHandler(&logs, nil))}
		if err := Serve(ctx, o); err != nil {
			t.Fatal(err)
		}
		addr := servedAddr(t, logs.String())
		want := http.StatusNotFound
		if profiles {
			want = http.StatusOK
		}
		for _, path := range []string{"/debug/pprof/", "/debug/pprof/cmdline", "/debug/pprof/heap", "/debug/pprof/symbol"} {
			code, body := httpGet(t, "http://"+addr+path)
			if code != want {
				t.Errorf("profiles %v: GET %s: %d, want %d", profiles, path, code, want)
			}
			if path == "/debug/pprof/cmdline" && profiles && body != "sluice\x00replicate\x00--source\x00mysql://u:xxxxx@h/db" {
				t.Errorf("cmdline: %q", body)
			}
		}
		if code, _ := httpGet(t, "http://"+addr+"/metrics"); code != http.StatusOK {
			t.Errorf("profiles %v: /metrics %d", profiles, code)
		}
		if strings.Contains(logs.String(), "non-loopback") {
			t.Errorf("a warning on 127.0.0.1: %s", logs.String())
		}
		cancel()
	}
}

func TestIsLoopback(t *testing.T) {
	for _, c := range []struct {
		ip   string
		want bool
	}{
		{"127.0.0.1", true}, {"127.3.2.1", true}, {"::1", true},
		{"0.0.0.0", false}, {"::", false}, {"10.0.0.5", false}, {"192.168.1.20", false}, {"2001:db8::1", false},
	} {
		if got := IsLoopback(&net.TCPAddr{IP: net.ParseIP(c.ip), Port: 9187}); got != c.want {
			t.Errorf("IsLoopback(%s) = %v, want %v", c.ip, got, c.want)
		}
	}
	if IsLoopback(&net.UnixAddr{Name: "/tmp/x", Net: "unix"}) {
		t.Error("a unix socket is not a TCP loopback address")
	}
}

// servedAddr is the address the "serving metrics" log line names.
func servedAddr(t *testing.T, logs string) string {
	t.Helper()
	_, rest, ok := strings.Cut(logs, "addr=")
	if !ok {
		t.Fatalf("no addr in the log: %s", logs)
	}
	addr, _, _ := strings.Cut(rest, " ")
	return addr
}

func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
