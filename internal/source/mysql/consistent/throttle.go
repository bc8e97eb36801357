package consistent

import (
	"context"

	"golang.org/x/time/rate"
)

// Throttle bounds the bytes per second that every reader sharing it takes
// from the source (snapshot --max-rate), so a copy of a production server
// leaves it the I/O and network it needs. Readers wait in slices of
// throttleSlice bytes: one limiter call per slice, not per row.
type Throttle struct {
	lim *rate.Limiter
}

const throttleSlice = 64 << 10

// NewThrottle returns a throttle of bytesPerSecond, or nil (no limit) for 0.
func NewThrottle(bytesPerSecond int64) *Throttle {
	if bytesPerSecond <= 0 {
		return nil
	}
	// The burst must hold one slice; a tenth of a second's worth above that
	// smooths the waits without letting a reader run ahead by much.
	burst := max(throttleSlice, int(bytesPerSecond/10))
	return &Throttle{lim: rate.NewLimiter(rate.Limit(bytesPerSecond), burst)}
}

// Limit makes the read wait on t (nil: no limit). Call it before Next.
func (r *Rows) Limit(ctx context.Context, t *Throttle) {
	r.throttle, r.ctx = t, ctx
}

// account adds a row's bytes and waits for every full slice read.
func (r *Rows) account() error {
	if r.throttle == nil {
		return nil
	}
	for _, v := range r.vals {
		r.owed += len(v) + 1
	}
	for r.owed >= throttleSlice {
		if err := r.throttle.lim.WaitN(r.ctx, throttleSlice); err != nil {
			return err
		}
		r.owed -= throttleSlice
	}
	return nil
}

// settle waits for the bytes of the last, partial slice when the read ends,
// so that many small chunks cannot each slip a slice past the limit.
func (r *Rows) settle() {
	if r.throttle == nil || r.owed == 0 {
		return
	}
	if err := r.throttle.lim.WaitN(r.ctx, r.owed); err != nil && r.err == nil {
		r.err = err
	}
	r.owed = 0
}
