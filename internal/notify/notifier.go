package notify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Retry is how a webhook is retried.
type Retry struct {
	Attempts   int           // in all (default 5)
	Backoff    time.Duration // before the second (default 1 s), doubling
	MaxBackoff time.Duration // at most (default 30 s)
	Timeout    time.Duration // of one attempt (default 10 s)
}

// Options of a Notifier.
type Options struct {
	Hooks       []Hook
	Webhooks    []Webhook
	Command     string        // the event's "command"
	Host        string        // the event's "host"
	HookTimeout time.Duration // default 30 s
	Retry       Retry
	Queue       int                  // events waiting per sink before new ones are dropped (default 256)
	Registry    *prometheus.Registry // nil: no metrics
	Log         *slog.Logger
	// Required (--hook-required): a hook that fails, times out or misses
	// an event (its queue full) calls Stop, once, with a *HookFailed, so
	// the command stops instead of going on without it.
	Required bool
	Stop     func(error)
}

// HookFailed is why a --hook-required command stopped: the hook (its
// event and program, never its arguments) and what went wrong.
type HookFailed struct {
	Hook  string
	Event string
	Err   error
}

func (e *HookFailed) Error() string {
	return fmt.Sprintf("--hook-required: the hook %s failed on the %s event: %v (the command stopped; "+
		"fix the hook, or leave out --hook-required to log hook failures and go on)", e.Hook, e.Event, e.Err)
}

func (e *HookFailed) Unwrap() error { return e.Err }

// Notifier delivers events to the hooks and webhooks. A nil *Notifier
// takes every event and does nothing.
type Notifier struct {
	o       Options
	client  *http.Client
	ctx     context.Context
	cancel  context.CancelFunc
	mu      sync.Mutex
	closed  bool
	sinks   []*sink
	done    sync.WaitGroup
	metrics counters
	stopped sync.Once
}

// sink is one hook or webhook with its own queue and goroutine, so a slow
// one (a hook at its timeout, a webhook being retried) delays no other.
type sink struct {
	kind    string // hook or webhook: the metrics' label
	name    string // for logs (a webhook's URL redacted)
	matches func(event string) bool
	deliver func(Event)
	queue   chan Event
}

// New starts a notifier; nil when there is nothing to notify. Close it.
func New(o Options) (*Notifier, error) {
	if len(o.Hooks) == 0 && len(o.Webhooks) == 0 {
		return nil, nil
	}
	o = o.withDefaults()
	m, err := newCounters(o.Registry)
	if err != nil {
		return nil, err
	}
	n := &Notifier{o: o, client: &http.Client{Timeout: o.Retry.Timeout}, metrics: m}
	n.ctx, n.cancel = context.WithCancel(context.Background())
	for _, h := range o.Hooks {
		n.start(&sink{kind: "hook", name: h.name(), matches: h.matches, deliver: func(ev Event) { n.runHook(h, ev) }})
	}
	for _, w := range o.Webhooks {
		n.start(&sink{kind: "webhook", name: w.redacted, matches: func(string) bool { return true },
			deliver: func(ev Event) { n.post(w, ev) }})
	}
	return n, nil
}

func (o Options) withDefaults() Options {
	if o.HookTimeout <= 0 {
		o.HookTimeout = 30 * time.Second
	}
	r := &o.Retry
	if r.Attempts <= 0 {
		r.Attempts = 5
	}
	if r.Backoff <= 0 {
		r.Backoff = time.Second
	}
	if r.MaxBackoff <= 0 {
		r.MaxBackoff = 30 * time.Second
	}
	if r.Timeout <= 0 {
		r.Timeout = 10 * time.Second
	}
	if o.Queue <= 0 {
		o.Queue = 256
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return o
}

func (n *Notifier) start(s *sink) {
	s.queue = make(chan Event, n.o.Queue)
	n.sinks = append(n.sinks, s)
	n.done.Add(1)
	go func() {
		defer n.done.Done()
		for ev := range s.queue {
			s.deliver(ev)
		}
	}()
}

// Notify queues ev for every hook of its event and every webhook. It never
// blocks: with a hook's or webhook's queue full the event is dropped for
// it, counted (sluice_notify_dropped_total) and logged.
func (n *Notifier) Notify(ev Event) {
	if n == nil {
		return
	}
	if ev.Time.IsZero() {
		ev.Time = time.Now()
	}
	ev.Time = ev.Time.UTC()
	ev.Command, ev.Host = n.o.Command, n.o.Host
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return
	}
	n.metrics.events.WithLabelValues(ev.Event).Inc()
	n.o.Log.Info("notify: event", "event", ev.Event, "stream", ev.Stream, "table", ev.Table, "detail", ev.Detail)
	for _, s := range n.sinks {
		if !s.matches(ev.Event) {
			continue
		}
		select {
		case s.queue <- ev:
		default:
			n.metrics.dropped.WithLabelValues(s.kind).Inc()
			n.o.Log.Warn("notify: queue full, event dropped (this "+s.kind+" is slower than the events)",
				s.kind, s.name, "event", ev.Event, "stream", ev.Stream, "queue", cap(s.queue))
			if s.kind == "hook" {
				go n.required(s.name, ev.Event, errors.New("its queue was full: the event was dropped"))
			}
		}
	}
}

func (n *Notifier) runHook(h Hook, ev Event) {
	t0 := time.Now()
	if err := h.run(n.ctx, ev, n.o.HookTimeout); err != nil {
		n.metrics.failures.WithLabelValues("hook").Inc()
		n.o.Log.Warn("notify: hook failed", "event", ev.Event, "hook", h.name(), "err", err,
			"seconds", time.Since(t0).Seconds())
		n.required(h.name(), ev.Event, err)
		return
	}
	n.metrics.delivered.WithLabelValues("hook").Inc()
}

func (n *Notifier) post(w Webhook, ev Event) {
	failed := func(err error) {
		n.metrics.failures.WithLabelValues("webhook").Inc()
		n.o.Log.Warn("notify: webhook attempt failed", "event", ev.Event, "url", w.redacted, "err", err)
	}
	if err := w.post(n.ctx, n.client, ev, n.o.Retry, failed); err != nil {
		n.o.Log.Error("notify: webhook not delivered", "event", ev.Event, "url", w.redacted, "err", err)
		return
	}
	n.metrics.delivered.WithLabelValues("webhook").Inc()
}

// required stops the command for a failed hook under --hook-required.
func (n *Notifier) required(hook, event string, err error) {
	if !n.o.Required || n.o.Stop == nil {
		return
	}
	n.stopped.Do(func() { n.o.Stop(&HookFailed{Hook: hook, Event: event, Err: err}) })
}

// Close delivers what is queued, waiting at most grace, then kills running
// hooks and stops retries. Events after Close are ignored.
func (n *Notifier) Close(grace time.Duration) {
	if n == nil {
		return
	}
	n.mu.Lock()
	if !n.closed {
		n.closed = true
		for _, s := range n.sinks {
			close(s.queue)
		}
	}
	n.mu.Unlock()
	finished := make(chan struct{})
	go func() { n.done.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(grace):
		n.o.Log.Warn("notify: stopping with events undelivered", "grace", grace.String())
		n.cancel()
		<-finished
	}
	n.cancel()
}
