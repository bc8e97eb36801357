package snapshot

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/sluice-db/sluice/internal/board"
)

// progress counts what this run copied and shows it: a bar on a terminal,
// else a log line every few seconds. ETA uses the server's row estimates.
type progress struct {
	rows, bytes atomic.Int64
	tables      atomic.Int64
	totalTables int
	estRows     int64
	start       time.Time
	cancel      context.CancelFunc
	wg          sync.WaitGroup
	pb          *mpb.Progress
	bar         *mpb.Bar
}

func (r *runner) newProgress(ctx context.Context) *progress {
	p := &progress{totalTables: len(r.jobs), start: time.Now()}
	for _, j := range r.jobs {
		p.estRows += j.size.Rows
	}
	r.o.Board.Snapshot(r.o.Stream).Attach(boardTables(r.jobs))
	ctx, p.cancel = context.WithCancel(ctx)
	switch {
	case r.o.Progress != nil && r.o.Terminal:
		p.pb = mpb.NewWithContext(ctx, mpb.WithOutput(r.o.Progress), mpb.WithWidth(30),
			mpb.WithRefreshRate(250*time.Millisecond))
		p.bar = p.pb.New(max(p.estRows, 1), mpb.BarStyle(),
			mpb.PrependDecorators(decor.Any(func(decor.Statistics) string {
				return fmt.Sprintf("tables %d/%d", p.tables.Load(), p.totalTables)
			})),
			mpb.AppendDecorators(decor.Any(func(decor.Statistics) string { return p.line() })))
		p.wg.Add(1)
		go p.loop(ctx, 250*time.Millisecond, func() {
			rows := p.rows.Load()
			if rows >= p.estRows {
				p.estRows = rows + 1
				p.bar.SetTotal(p.estRows, false)
			}
			p.bar.SetCurrent(rows)
		})
	default:
		p.wg.Add(1)
		go p.loop(ctx, r.o.ProgressEvery, func() {
			r.Log.Info("snapshot progress", "tables_done", p.tables.Load(), "tables", p.totalTables,
				"rows", p.rows.Load(), "mb", float64(p.bytes.Load())/1e6, "mb_per_s", p.rate(), "eta", p.eta().String())
		})
	}
	return p
}

func (p *progress) loop(ctx context.Context, every time.Duration, tick func()) {
	defer p.wg.Done()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			tick()
		}
	}
}

// line is the bar's text: rows, MB, MB/s and ETA.
func (p *progress) line() string {
	return fmt.Sprintf("%d rows  %.1f MB  %.1f MB/s  ETA %s", p.rows.Load(), float64(p.bytes.Load())/1e6, p.rate(), p.eta())
}

func (p *progress) rate() float64 {
	s := time.Since(p.start).Seconds()
	if s <= 0 {
		return 0
	}
	return float64(p.bytes.Load()) / 1e6 / s
}

// eta extrapolates the row rate to the estimated total.
func (p *progress) eta() time.Duration {
	rows := p.rows.Load()
	el := time.Since(p.start)
	if rows == 0 || rows >= p.estRows {
		return 0
	}
	return (time.Duration(float64(el) * float64(p.estRows-rows) / float64(rows))).Round(time.Second)
}

func (p *progress) add(j *tableJob, rows, bytes int64) {
	p.rows.Add(rows)
	p.bytes.Add(bytes)
	j.copied.Add(rows)
}

func (p *progress) tableDone(j *tableJob) {
	p.tables.Add(1)
	j.copiedAll.Store(true)
}

// boardTables is the status page's probe: each table's rows copied in this
// run against the server's estimate.
func boardTables(jobs []*tableJob) func() []board.TableReading {
	return func() []board.TableReading {
		out := make([]board.TableReading, len(jobs))
		for i, j := range jobs {
			out[i] = board.TableReading{Name: j.Source.TableID.String(), Rows: j.copied.Load(),
				EstimatedRows: j.size.Rows, Done: j.copiedAll.Load()}
		}
		return out
	}
}

func (p *progress) totals() (int64, int64) { return p.rows.Load(), p.bytes.Load() }

// stop ends the display.
func (p *progress) stop() {
	if p.bar != nil {
		p.bar.SetTotal(p.rows.Load(), true)
	}
	p.cancel()
	p.wg.Wait()
	if p.pb != nil {
		p.pb.Wait()
	}
}
