package stream

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sluice-db/sluice/internal/config"
	kafkasink "github.com/sluice-db/sluice/internal/sink/kafka"
	"github.com/sluice-db/sluice/internal/source/mysql/binlog"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
)

// A shard's watermark for the merged topic, without writing to the source
// and without trusting the local clock: a probe reads the source's own clock
// S (NOW(6)) and then its binlog end B (SHOW MASTER STATUS). Every
// transaction written to the binlog after B committed after S was read, so
// its binlog commit time is at least S - 1 s (the binlog's second
// resolution). Once the shard has committed everything up to B into Kafka,
// a watermark record S - 1 s in the shard's journal is therefore true for
// everything that follows it. An idle shard is covered the same way: the
// binlog heartbeat moves its committed position to the binlog end, and the
// next probe's watermark is released about a second later.
//
// The one exception is a COMMIT that started before S and was written after
// B (its binlog time can be earlier than S - 1 s when the commit itself
// took longer than the second of margin), and a session's SET TIMESTAMP;
// the merger then merges that transaction at the watermark's time instead
// (docs/kafka.md).

const watermarkEvery = 250 * time.Millisecond

type probe struct {
	at  time.Time // the source's clock
	end binlogpos.Position
}

type watermarker struct {
	db      *sql.DB
	src     *binlog.Source
	info    binlog.SourceInfo
	journal *kafkasink.Journal
	pr      *kgo.Client
	log     *slog.Logger
	last    time.Time
	warned  time.Time
}

// warn logs at most once per 30 s: a source or broker that does not answer
// is retried every probe.
func (w *watermarker) warn(msg string, args ...any) {
	if time.Since(w.warned) > 30*time.Second {
		w.warned = time.Now()
		w.log.Warn(msg, args...)
	}
}

func newWatermarker(ctx context.Context, src config.MySQL, j *kafkasink.Journal, pr *kgo.Client, log *slog.Logger) (*watermarker, error) {
	db, err := src.OpenDB()
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	s := binlog.SourceOnPool(db)
	info, err := s.Info(ctx)
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("watermark: %w", err)
	}
	return &watermarker{db: db, src: s, info: info, journal: j, pr: pr, log: log}, nil
}

func (w *watermarker) close() { _ = w.db.Close() }

// run publishes watermarks until ctx ends.
func (w *watermarker) run(ctx context.Context) {
	var p *probe
	for ctx.Err() == nil {
		if p == nil {
			var err error
			if p, err = w.probe(ctx); err != nil && ctx.Err() == nil {
				w.warn("merge: watermark probe failed; the merged topic waits for this shard", "error", err)
			}
		}
		if p != nil && w.publish(ctx, p) {
			p = nil
		}
		select {
		case <-ctx.Done():
		case <-time.After(watermarkEvery):
		}
	}
}

// final publishes one last watermark when the shard stopped with everything
// its source has committed into Kafka (--until-caught-up).
func (w *watermarker) final(ctx context.Context) {
	p, err := w.probe(ctx)
	if err != nil {
		w.log.Warn("merge: final watermark probe failed", "error", err)
		return
	}
	if !w.publish(ctx, p) {
		w.log.Info("merge: the source wrote more after the shard caught up; its last transactions wait in the journal for the next run")
	}
}

func (w *watermarker) probe(ctx context.Context) (*probe, error) {
	var now string
	if err := w.db.QueryRowContext(ctx, "SELECT UNIX_TIMESTAMP(NOW(6))").Scan(&now); err != nil {
		return nil, fmt.Errorf("source clock: %w", err)
	}
	at, err := parseUnix(now)
	if err != nil {
		return nil, err
	}
	end, err := w.src.MasterStatus(ctx, w.info)
	if err != nil {
		return nil, err
	}
	return &probe{at: at, end: end}, nil
}

// publish writes the probe's watermark once the shard's committed position
// has reached the probe's binlog end; it reports whether the probe is done.
func (w *watermarker) publish(ctx context.Context, p *probe) bool {
	c := w.journal.Committed()
	if c == nil || c.Compare(p.end) < 0 {
		return false
	}
	wm := p.at.Add(-time.Second)
	if !wm.After(w.last) {
		return true
	}
	if err := w.pr.ProduceSync(ctx, kafkasink.WatermarkRecord(w.journal.Topic, wm)).FirstErr(); err != nil {
		if ctx.Err() == nil {
			w.warn("merge: writing a watermark", "journal", w.journal.Topic, "error", err)
		}
		return false
	}
	w.last = wm
	return true
}

// parseUnix reads UNIX_TIMESTAMP(NOW(6)): seconds with a fraction.
func parseUnix(s string) (time.Time, error) {
	sec, frac, _ := strings.Cut(s, ".")
	n, err := strconv.ParseInt(sec, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("source clock %q: %w", s, err)
	}
	var us int64
	if frac != "" {
		frac = (frac + "000000")[:6]
		if us, err = strconv.ParseInt(frac, 10, 64); err != nil {
			return time.Time{}, fmt.Errorf("source clock %q: %w", s, err)
		}
	}
	return time.Unix(n, us*1000), nil
}
