package alter

import (
	"context"
	"time"
)

// progress logs rows, rate, ETA and the key set every ProgressEvery until
// stopped.
func (r *runner) progress(ctx context.Context, chunks int) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(r.o.ProgressEvery)
		defer t.Stop()
		start, startRows := time.Now(), r.copied.Load()
		startChunks := r.chunksDone.Load()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			rows, cd := r.copied.Load(), r.chunksDone.Load()
			el := time.Since(start).Seconds()
			rate := float64(rows-startRows) / el
			attrs := []any{"rows", rows, "rows_per_s", int64(rate), "chunks", cd, "of", chunks,
				"changed_keys_pending", r.keys.size(), "keys_applied", r.applied.Load(), "binlog_changes", r.tr.events.Load()}
			if cd > startChunks && cd < int64(chunks) {
				left := float64(int64(chunks)-cd) * el / float64(cd-startChunks)
				attrs = append(attrs, "eta", (time.Duration(left) * time.Second).Round(time.Second))
			}
			r.log.Info("alter progress", attrs...)
		}
	}()
	return func() { cancel(); <-done }
}
