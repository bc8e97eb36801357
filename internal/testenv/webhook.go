package testenv

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/notify"
)

// Webhook is a local HTTP server (127.0.0.1) receiving --notify-webhook
// POSTs, for tests of the events a command notifies.
type Webhook struct {
	URL    string
	mu     sync.Mutex
	events []notify.Event
}

// StartWebhook starts a webhook receiver, closed when the test ends.
func StartWebhook(t testing.TB) *Webhook {
	w := &Webhook{}
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		var ev notify.Event
		if err := json.NewDecoder(r.Body).Decode(&ev); err != nil || r.Method != http.MethodPost {
			t.Errorf("webhook: %s with a body that is not an event: %v", r.Method, err)
		}
		w.mu.Lock()
		w.events = append(w.events, ev)
		w.mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	w.URL = srv.URL
	return w
}

// Events are the events received so far, in order.
func (w *Webhook) Events() []notify.Event {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]notify.Event(nil), w.events...)
}

// Wait returns the first event named name, failing the test after d.
func (w *Webhook) Wait(t testing.TB, name string, d time.Duration) notify.Event {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		var got []string
		for _, ev := range w.Events() {
			if ev.Event == name {
				return ev
			}
			got = append(got, ev.Event)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s event in %s; got %v", name, d, got)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
