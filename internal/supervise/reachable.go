package supervise

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// Reachable is sluice_<subsystem>_target_reachable: 1 while a run applies,
// 0 while the loop retries a lost target (--target-retry). It lives for the
// whole Loop, across the runs whose own metrics come and go, so an alert
// sees the target go away rather than the series vanish. A nil *Reachable
// does nothing.
type Reachable struct {
	up         atomic.Bool
	unregister func()
}

// Set records whether the target is reachable.
func (r *Reachable) Set(up bool) {
	if r != nil {
		r.up.Store(up)
	}
}

// Up reads the gauge's value.
func (r *Reachable) Up() bool { return r != nil && r.up.Load() }

// Unregister removes the gauge from its registry.
func (r *Reachable) Unregister() {
	if r != nil && r.unregister != nil {
		r.unregister()
	}
}

// RegisterReachable publishes the gauge sluice_<subsystem>_target_reachable
// for stream on reg (nil: the gauge is kept but not published); it starts at 1.
func RegisterReachable(reg prometheus.Registerer, subsystem, stream, help string) (*Reachable, error) {
	r := &Reachable{}
	r.up.Store(true)
	g := Metrics{Subsystem: subsystem, Stream: stream}.Gauge("target_reachable", help, func() float64 {
		if r.up.Load() {
			return 1
		}
		return 0
	})
	var err error
	if r.unregister, err = Register(reg, g); err != nil {
		return nil, err
	}
	return r, nil
}
