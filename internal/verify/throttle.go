package verify

import (
	"context"
	"sync"
	"time"
)

// throttle limits the source bytes compared per second over all workers
// (--max-rate): each finished chunk books its bytes, and the worker sleeps
// until the booked total is within the rate.
type throttle struct {
	rate float64 // bytes per second; 0 = unlimited
	mu   sync.Mutex
	next time.Time // when the bytes booked so far are paid for
}

func newThrottle(bytesPerSecond float64) *throttle { return &throttle{rate: bytesPerSecond} }

func (t *throttle) wait(ctx context.Context, bytes int64) error {
	if t.rate <= 0 || bytes <= 0 {
		return nil
	}
	t.mu.Lock()
	now := time.Now()
	if t.next.Before(now) {
		t.next = now
	}
	t.next = t.next.Add(time.Duration(float64(bytes) / t.rate * float64(time.Second)))
	d := t.next.Sub(now)
	t.mu.Unlock()
	select {
	case <-time.After(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
