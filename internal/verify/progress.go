package verify

import (
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// Progress is told how far a run is; the CLI picks a bar on a terminal and
// log lines otherwise.
type Progress interface {
	Start(tables int, bytes int64)
	Advance(bytes int64)
	TableDone(t TableReport)
	Stop()
}

type noProgress struct{}

func (noProgress) Start(int, int64)      {}
func (noProgress) Advance(int64)         {}
func (noProgress) TableDone(TableReport) {}
func (noProgress) Stop()                 {}

// BarProgress draws one bar of source bytes with rate and ETA, and a
// counter of tables done.
type BarProgress struct {
	Out    io.Writer
	p      *mpb.Progress
	bar    *mpb.Bar
	mu     sync.Mutex
	last   time.Time
	tables int
	done   int
}

func (b *BarProgress) Start(tables int, bytes int64) {
	b.p = mpb.New(mpb.WithOutput(b.Out), mpb.WithWidth(40), mpb.WithRefreshRate(200*time.Millisecond))
	b.tables = tables
	b.last = time.Now()
	b.bar = b.p.AddBar(max(bytes, 1),
		mpb.PrependDecorators(
			decor.Name("verify "),
			decor.Any(func(decor.Statistics) string {
				b.mu.Lock()
				defer b.mu.Unlock()
				return strconv.Itoa(b.done) + "/" + strconv.Itoa(b.tables) + " tables "
			}),
			decor.Counters(decor.SizeB1000(0), "% .1f / % .1f"),
		),
		mpb.AppendDecorators(
			decor.EwmaSpeed(decor.SizeB1000(0), " % .1f", 30),
			decor.Name("  ETA "),
			decor.EwmaETA(decor.ET_STYLE_GO, 30),
		),
	)
}

func (b *BarProgress) Advance(n int64) {
	b.mu.Lock()
	d := time.Since(b.last)
	b.last = time.Now()
	b.mu.Unlock()
	b.bar.EwmaIncrInt64(n, d)
}

func (b *BarProgress) TableDone(TableReport) {
	b.mu.Lock()
	b.done++
	b.mu.Unlock()
}

func (b *BarProgress) Stop() {
	b.bar.SetTotal(-1, true)
	b.p.Wait()
}

// LogProgress logs a line every Every (default 10 s).
type LogProgress struct {
	Log   *slog.Logger
	Every time.Duration

	mu       sync.Mutex
	tables   int
	done     int
	total    int64
	bytes    int64
	start    time.Time
	lastLine time.Time
}

func (l *LogProgress) Start(tables int, bytes int64) {
	if l.Every <= 0 {
		l.Every = 10 * time.Second
	}
	l.tables, l.total, l.start, l.lastLine = tables, bytes, time.Now(), time.Now()
}

func (l *LogProgress) Advance(n int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.bytes += n
	if time.Since(l.lastLine) < l.Every {
		return
	}
	l.lastLine = time.Now()
	secs := time.Since(l.start).Seconds()
	l.Log.Info("verify progress", "tables_done", l.done, "tables", l.tables,
		"mb", float64(l.bytes)/1e6, "total_mb", float64(l.total)/1e6, "mb_per_s", mbps(l.bytes, secs))
}

func (l *LogProgress) TableDone(t TableReport) {
	l.mu.Lock()
	l.done++
	done := l.done
	l.mu.Unlock()
	l.Log.Info("table verified", "table", t.Table, "rows", t.Rows, "chunks", t.Chunks,
		"seconds", fmt.Sprintf("%.1f", t.Seconds), "result", t.Result, "differences", t.Differences(),
		"tables_done", done, "tables", l.tables)
}

func (l *LogProgress) Stop() {}
