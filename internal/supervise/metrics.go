package supervise

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics is one command's metric set: sluice_<Subsystem>_<name> with the
// label stream, read when scraped (the hot path only updates atomics it has
// anyway). replicate's subsystem is "replicate", the way back's "reverse".
type Metrics struct {
	Subsystem, Stream string
}

// Gauge is the gauge sluice_<Subsystem>_<name>, read from f.
func (m Metrics) Gauge(name, help string, f func() float64) prometheus.Collector {
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "sluice", Subsystem: m.Subsystem,
		Name: name, Help: help, ConstLabels: prometheus.Labels{"stream": m.Stream}}, f)
}

// Counter is the counter sluice_<Subsystem>_<name>, read from f.
func (m Metrics) Counter(name, help string, f func() float64) prometheus.Collector {
	return prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: "sluice", Subsystem: m.Subsystem,
		Name: name, Help: help, ConstLabels: prometheus.Labels{"stream": m.Stream}}, f)
}

// Register registers every collector on reg, or none (nil reg: none), and
// returns what unregisters them.
func Register(reg prometheus.Registerer, cs ...prometheus.Collector) (func(), error) {
	if reg == nil {
		return func() {}, nil
	}
	for i, c := range cs {
		if err := reg.Register(c); err != nil {
			for _, d := range cs[:i] {
				reg.Unregister(d)
			}
			return nil, fmt.Errorf("metrics: %w", err)
		}
	}
	return func() {
		for _, c := range cs {
			reg.Unregister(c)
		}
	}, nil
}
