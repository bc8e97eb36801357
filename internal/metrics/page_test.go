package metrics

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/board"
)

// TestStatusPageAndToken: with a board the page and /api/status are served
// beside /metrics; a token guards the data (/api/status, /metrics, the
// profiles) and leaves /healthz (a liveness probe) and the page's static
// files open.
func TestStatusPageAndToken(t *testing.T) {
	var logs strings.Builder
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b := board.New(board.Options{Command: "replicate"})
	b.Stream("shop", "replicate")
	o := Options{Addr: "127.0.0.1:0", Registry: NewRegistry(), Board: b, Token: "tok-123", Profiles: true,
		Log: slog.New(slog.NewTextHandler(&logs, nil))}
	if err := Serve(ctx, o); err != nil {
		t.Fatal(err)
	}
	base := "http://" + servedAddr(t, logs.String())
	do := func(path, auth string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, base+path, nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	for path, want := range map[string]int{"/": 200, "/app.js": 200, "/healthz": 200,
		"/api/status": 401, "/metrics": 401, "/debug/pprof/cmdline": 401} {
		if code, _ := do(path, ""); code != want {
			t.Errorf("GET %s without the token: %d, want %d", path, code, want)
		}
	}
	if code, body := do("/api/status", "Bearer tok-123"); code != 200 || !strings.Contains(body, `"name": "shop"`) {
		t.Errorf("/api/status with the token: %d %s", code, body)
	}
	if code, body := do("/metrics", "Bearer tok-123"); code != 200 || !strings.Contains(body, "go_goroutines") {
		t.Errorf("/metrics with the token: %d", code)
	}
	if !strings.Contains(logs.String(), "/api/status") {
		t.Errorf("the log line does not list the page: %s", logs.String())
	}
}

// TestAddressInUse: an address another process holds is refused naming it.
func TestAddressInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	err = Serve(context.Background(), Options{Addr: addr, Registry: NewRegistry(), Board: board.New(board.Options{}), Log: slog.Default()})
	if err == nil || !strings.Contains(err.Error(), "--metrics-addr "+addr) || !strings.Contains(err.Error(), "address already in use") {
		t.Fatalf("Serve on a used address: %v", err)
	}
}
