package alter

import (
	"context"
	"fmt"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/sluice-db/sluice/internal/board"
)

// progress shows the copy until stopped: on the status board, and a bar
// over the chunks on a terminal, else a log line every ProgressEvery, with
// rows, rate, ETA and the key set.
func (r *runner) progress(ctx context.Context, chunks int) (stop func()) {
	card := r.o.Board.Alter(r.id.String())
	card.Attach(func() board.AlterReading { return r.boardReading(chunks) })
	r.setPhase(phaseCopy)
	display := r.progressDisplay(ctx, chunks)
	status := r.statusWriter(ctx, chunks)
	return func() { display(); status(); card.Detach() }
}

// boardReading is the status page's view of the copy.
func (r *runner) boardReading(chunks int) board.AlterReading {
	rd := board.AlterReading{Chunks: int64(chunks), ChunksDone: r.chunksDone.Load(), Rows: r.copied.Load(),
		KeysPending: int64(r.keys.size()), Applied: r.applied.Load(), Paused: r.ctl.pausedWhy(), Throttle: r.pacer.note()}
	if r.ctl.lag != nil {
		rd.Replicas = r.ctl.lag.lastStatus()
	}
	return rd
}

func (r *runner) progressDisplay(ctx context.Context, chunks int) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	start, startRows, startChunks := time.Now(), r.copied.Load(), r.chunksDone.Load()
	line := func() string {
		rows, cd := r.copied.Load(), r.chunksDone.Load()
		el := time.Since(start).Seconds()
		s := fmt.Sprintf("%d rows, %.0f rows/s, %d changed keys pending, %d applied", rows, float64(rows-startRows)/el, r.keys.size(), r.applied.Load())
		if n := r.seen.Load(); n > 0 {
			s += fmt.Sprintf(", %d read by the copy", n)
		}
		if cd > startChunks && cd < int64(chunks) {
			left := time.Duration(float64(int64(chunks)-cd) * el / float64(cd-startChunks) * float64(time.Second))
			s += ", ETA " + left.Round(time.Second).String()
		}
		if why := r.ctl.pausedWhy(); why != "" {
			s += ", paused (" + why + ")"
		}
		if note := r.pacer.note(); note != "" {
			s += ", " + note
		}
		return s
	}
	if r.o.Progress != nil && r.o.Terminal {
		pb := mpb.NewWithContext(ctx, mpb.WithOutput(r.o.Progress), mpb.WithWidth(30), mpb.WithRefreshRate(250*time.Millisecond))
		bar := pb.New(int64(max(chunks, 1)), mpb.BarStyle(),
			mpb.PrependDecorators(decor.Any(func(decor.Statistics) string {
				return fmt.Sprintf("chunks %d/%d", r.chunksDone.Load(), chunks)
			})),
			mpb.AppendDecorators(decor.Any(func(decor.Statistics) string { return line() })))
		go func() {
			defer close(done)
			t := time.NewTicker(250 * time.Millisecond)
			defer t.Stop()
			for {
				bar.SetCurrent(r.chunksDone.Load())
				select {
				case <-ctx.Done():
					bar.Abort(false)
					pb.Wait()
					return
				case <-t.C:
				}
			}
		}()
		return func() { cancel(); <-done }
	}
	go func() {
		defer close(done)
		t := time.NewTicker(r.o.ProgressEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			r.log.Info("alter progress", "chunks", r.chunksDone.Load(), "of", chunks, "status", line(),
				"binlog_changes", r.tr.events.Load())
		}
	}()
	return func() { cancel(); <-done }
}
