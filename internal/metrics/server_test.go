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
	if err := Serve(ctx, addr, reg, func() error { return healthErr }, slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
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
	if err := Serve(context.Background(), "256.0.0.1:1", reg, nil, slog.Default()); err == nil {
		t.Fatal("a bad address must be an error")
	}
}
