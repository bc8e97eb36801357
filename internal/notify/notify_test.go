package notify

import (
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

func lag(v float64) *float64 { return &v }

func testEvent() Event {
	return Event{Event: LagOver, Time: time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC), Stream: "shop", Position: "mysql-bin.000003:4711", LagSeconds: lag(42.5),
		Table: "shop.orders", Detail: "lag 42.5 s", Error: "target: connection refused"}
}

func mustHook(t *testing.T, spec string) Hook {
	t.Helper()
	h, err := ParseHook(spec)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestHookGetsTheEventInItsEnvironment runs a real hook that writes its
// environment to a file: every SLUICE_* variable carries the event, and
// none of sluice's own settings (a password) reaches it.
func TestHookGetsTheEventInItsEnvironment(t *testing.T) {
	t.Setenv("SLUICE_TARGET_PASSWORD", "s3cret")
	t.Setenv("PGPASSWORD", "s3cret")
	out := filepath.Join(t.TempDir(), "env")
	reg := prometheus.NewRegistry()
	n, err := New(Options{Hooks: []Hook{mustHook(t, "lag_over=/bin/sh -c 'env > "+out+"'"), mustHook(t, "failed=false")},
		Command: "replicate", Host: "db1", Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	n.Notify(testEvent())
	n.Close(10 * time.Second)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			got[k] = v
		}
	}
	want := map[string]string{"SLUICE_EVENT": "lag_over", "SLUICE_STREAM": "shop", "SLUICE_TIME": "2026-12-07T10:00:00Z",
		"SLUICE_POSITION": "mysql-bin.000003:4711", "SLUICE_LAG_SECONDS": "42.5", "SLUICE_TABLE": "shop.orders",
		"SLUICE_STEP": "", "SLUICE_DETAIL": "lag 42.5 s", "SLUICE_ERROR": "target: connection refused",
		"SLUICE_COMMAND": "replicate", "SLUICE_HOST": "db1"}
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("%s = %q (set %v), want %q", k, g, ok, v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok && (strings.HasPrefix(k, "SLUICE_") || k == "PGPASSWORD") {
			t.Errorf("the hook got %s", k)
		}
	}
	if strings.Contains(string(b), "s3cret") {
		t.Error("the hook's environment holds the password")
	}
	if d := count(t, n.metrics.delivered, "hook"); d != 1 {
		t.Errorf("delivered hooks = %v, want 1 (the failed hook is for another event)", d)
	}
}

// TestHangingHookIsKilledAtItsTimeout: a hook that hangs (and its child)
// is killed at the timeout, counted as failed, and Notify never waits for
// it.
func TestHangingHookIsKilledAtItsTimeout(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	n, err := New(Options{Hooks: []Hook{mustHook(t, "all=/bin/sh -c 'sleep 1000 & echo $! > "+pidFile+"; wait'")},
		HookTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	notifyAtOnce(t, n, 5)
	n.Close(30 * time.Second)
	if d := time.Since(t0); d > 10*time.Second {
		t.Errorf("five hooks with a 300 ms timeout took %s", d)
	}
	if f := count(t, n.metrics.failures, "hook"); f != 5 {
		t.Errorf("failed hooks = %v, want 5", f)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("the hook's child %d outlived the timeout", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestWebhookRetriedUntilDelivered: a webhook answering 503 twice gets
// the event on the third attempt, as the documented JSON.
func TestWebhookRetriedUntilDelivered(t *testing.T) {
	var mu sync.Mutex
	var bodies []map[string]any
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if calls <= 2 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		var m map[string]any
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil || r.Header.Get("Content-Type") != "application/json" || r.Method != http.MethodPost {
			t.Errorf("body %v, content type %q, method %s", err, r.Header.Get("Content-Type"), r.Method)
		}
		bodies = append(bodies, m)
	}))
	defer srv.Close()
	w, err := ParseWebhook(srv.URL + "/hook")
	if err != nil {
		t.Fatal(err)
	}
	n, err := New(Options{Webhooks: []Webhook{w}, Command: "migrate", Host: "db1",
		Retry: Retry{Attempts: 4, Backoff: 10 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	n.Notify(testEvent())
	n.Close(10 * time.Second)
	want := []map[string]any{{"event": "lag_over", "stream": "shop", "time": "2026-12-07T10:00:00Z",
		"position": "mysql-bin.000003:4711", "lag_seconds": 42.5, "table": "shop.orders", "step": "",
		"detail": "lag 42.5 s", "error": "target: connection refused", "command": "migrate", "host": "db1"}}
	if !reflect.DeepEqual(bodies, want) {
		t.Errorf("webhook got %v, want %v", bodies, want)
	}
	if f := count(t, n.metrics.failures, "webhook"); f != 2 {
		t.Errorf("failed attempts = %v, want 2", f)
	}
	if d := count(t, n.metrics.delivered, "webhook"); d != 1 {
		t.Errorf("delivered = %v, want 1", d)
	}
}

// TestRefusingWebhookNeverBlocks: with a webhook whose port refuses,
// Notify returns at once; past the queue's bound events are dropped and
// counted.
func TestRefusingWebhookNeverBlocks(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens: connections are refused
	w, err := ParseWebhook("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	n, err := New(Options{Webhooks: []Webhook{w}, Queue: 2, Retry: Retry{Attempts: 3, Backoff: 200 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	notifyAtOnce(t, n, 10)
	n.Close(200 * time.Millisecond)
	dropped := count(t, n.metrics.dropped, "webhook")
	if dropped < 7 || dropped > 8 {
		t.Errorf("dropped = %v, want 7 or 8 (a queue of 2, one event in delivery)", dropped)
	}
	if f := count(t, n.metrics.failures, "webhook"); f < 1 {
		t.Errorf("failed attempts = %v, want at least 1", f)
	}
	if d := count(t, n.metrics.delivered, "webhook"); d != 0 {
		t.Errorf("delivered = %v to a closed port", d)
	}
}

func TestParseRefusesBadInput(t *testing.T) {
	for _, c := range []struct{ spec, says string }{
		{"finished=true", `unknown event "finished"; the events are started, snapshot_done, caught_up`},
		{"failed=/no/such/hook", `the command "/no/such/hook" is not an executable file`},
		{"failed=no-such-hook-anywhere", `"no-such-hook-anywhere" is not an executable file or in $PATH`},
		{"failed", "give EVENT=COMMAND"},
		{"failed=", "give EVENT=COMMAND"},
		{"failed='true", "unterminated ' quote"},
	} {
		if _, err := ParseHook(c.spec); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("ParseHook(%q) = %v, want it to say %q", c.spec, err, c.says)
		}
	}
	for _, c := range []struct{ url, says string }{
		{"ftp://hooks.example.com/x", `the scheme is "ftp"`},
		{"hooks.example.com/x", `the scheme is ""`},
		{"http://", "the URL has no host"},
		{"http://a b.example.com/%zz", "not a URL"},
		{"https://user:tok3n@:/%zz", "not a URL"},
		{"ftp://user:tok3n@hooks.example.com/services/tok3n?k=tok3n", `ftp://hooks.example.com/…: the scheme is "ftp"`},
	} {
		_, err := ParseWebhook(c.url)
		if err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("ParseWebhook(%q) = %v, want it to say %q", c.url, err, c.says)
		}
		if err != nil && strings.Contains(err.Error(), "tok3n") {
			t.Errorf("ParseWebhook's error shows the URL's password: %v", err)
		}
	}
}

// TestWebhookLoggedWithoutItsToken: logs name a webhook by its scheme
// and host, never the path or query a service keeps its token in.
func TestWebhookLoggedWithoutItsToken(t *testing.T) {
	for raw, want := range map[string]string{
		"https://hooks.slack.com/services/T0/B0/tok3n": "https://hooks.slack.com/…",
		"http://u:tok3n@127.0.0.1:8080/?key=tok3n":     "http://127.0.0.1:8080/…",
		"https://hooks.example.com":                    "https://hooks.example.com",
	} {
		w, err := ParseWebhook(raw)
		if err != nil || w.redacted != want {
			t.Errorf("ParseWebhook(%q) shown as %q (%v), want %q", raw, w.redacted, err, want)
		}
	}
}

func TestSplitWords(t *testing.T) {
	for in, want := range map[string][]string{
		`/bin/page -t db`:            {"/bin/page", "-t", "db"},
		`/bin/sh -c 'echo "$X" > f'`: {"/bin/sh", "-c", `echo "$X" > f`},
		`a "b \"c\" \\d" e\ f`:       {"a", `b "c" \d`, "e f"},
		`  a  ''  `:                  {"a", ""},
		`x"y"'z'`:                    {"xyz"},
	} {
		got, err := splitWords(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("splitWords(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// notifyAtOnce notifies events test events, which must take no time
// whatever the hooks and webhooks do.
func notifyAtOnce(t *testing.T, n *Notifier, events int) {
	t.Helper()
	t0 := time.Now()
	for range events {
		n.Notify(testEvent())
	}
	if d := time.Since(t0); d > 50*time.Millisecond {
		t.Errorf("%d events took %s to queue", events, d)
	}
}

func count(t *testing.T, c *prometheus.CounterVec, label string) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.WithLabelValues(label).Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}

// TestRequiredHookStopsOnce: under Required, failing hooks call Stop once,
// with the hook and event named; without it, never.
func TestRequiredHookStopsOnce(t *testing.T) {
	for _, required := range []bool{false, true} {
		var stops []error
		var mu sync.Mutex
		n, err := New(Options{Hooks: []Hook{mustHook(t, "lag_over=false --some-arg"), mustHook(t, "all=false")}, Required: required,
			Stop: func(err error) { mu.Lock(); stops = append(stops, err); mu.Unlock() }})
		if err != nil {
			t.Fatal(err)
		}
		n.Notify(testEvent())
		n.Notify(testEvent())
		n.Close(10 * time.Second)
		var hf *HookFailed
		switch {
		case !required && len(stops) != 0:
			t.Errorf("not required: Stop called %v", stops)
		case required && (len(stops) != 1 || !errors.As(stops[0], &hf) || hf.Event != LagOver ||
			!strings.HasSuffix(hf.Hook, "false") || strings.Contains(stops[0].Error(), "--some-arg")):
			t.Errorf("required: Stop called with %v", stops)
		}
	}
}
