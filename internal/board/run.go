package board

import (
	"context"
	"time"
)

// Run samples the board every Options.Every, and with a notifier checks
// the lag events every second, until ctx ends.
func (b *Board) Run(ctx context.Context) {
	if b == nil {
		return
	}
	t := time.NewTicker(b.every)
	defer t.Stop()
	var watch <-chan time.Time
	if b.notify != nil {
		w := time.NewTicker(watchEvery)
		defer w.Stop()
		watch = w.C
	}
	b.Sample()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			b.Sample()
		case <-watch:
			b.mu.Lock()
			b.watch()
			b.mu.Unlock()
		}
	}
}
