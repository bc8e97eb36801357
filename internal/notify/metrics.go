package notify

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

type counters struct {
	events, delivered, failures, dropped *prometheus.CounterVec
}

func newCounters(reg *prometheus.Registry) (counters, error) {
	c := counters{
		events: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sluice_notify_events_total",
			Help: "Events notified to --hook and --notify-webhook, by event."}, []string{"event"}),
		delivered: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sluice_notify_delivered_total",
			Help: "Hooks run successfully and webhooks delivered (sink: hook or webhook)."}, []string{"sink"}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sluice_notify_failures_total",
			Help: "Hooks that failed or hit --hook-timeout, and webhook attempts refused, failed or timed out."}, []string{"sink"}),
		dropped: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sluice_notify_dropped_total",
			Help: "Events dropped because a sink's queue was full (its hooks or webhooks are slower than the events)."}, []string{"sink"}),
	}
	if reg == nil {
		return c, nil
	}
	for _, m := range []prometheus.Collector{c.events, c.delivered, c.failures, c.dropped} {
		if err := reg.Register(m); err != nil {
			var are prometheus.AlreadyRegisteredError
			if !errors.As(err, &are) {
				return counters{}, err
			}
		}
	}
	return c, nil
}
