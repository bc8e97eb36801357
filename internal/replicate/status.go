package replicate

import (
	"context"
	"math"
	"time"
)

// statusLoop logs one line every StatusEvery with lag, throughput since the
// previous line, queue depth and positions, until ctx ends.
func (r *runner) statusLoop(ctx context.Context) {
	tick := time.NewTicker(r.o.StatusEvery)
	defer tick.Stop()
	prev, prevAt := r.applier.Stats(), time.Now()
	prevRead := r.stream.Stats().Bytes.Load()
	r.refreshHeadroom(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			cur := r.applier.Stats()
			read := r.stream.Stats().Bytes.Load()
			secs := now.Sub(prevAt).Seconds()
			r.log.Info("replicating",
				"lag_s", roundLag(r.lagSeconds()),
				"retention_headroom", r.headroomField(),
				"txns_per_s", rate(cur.Txns-prev.Txns, secs),
				"events_per_s", rate(cur.Changes-prev.Changes, secs),
				"target_txns_per_s", rate(cur.Groups-prev.Groups, secs),
				"bytes_per_s", int64(rate(cur.Bytes-prev.Bytes, secs)),
				"binlog_bytes_per_s", int64(rate(read-prevRead, secs)),
				"queue", cur.Queue,
				"read", r.stream.Position().String(),
				"applied", r.applier.Position().String(),
				"ddl", cur.DDL, "skipped", cur.Skipped, "large", cur.Large, "retried", cur.Retried)
			r.refreshHeadroom(ctx)
			r.warnHeadroom()
			r.checkPolicies(ctx)
			prev, prevAt, prevRead = cur, now, read
		}
	}
}

func rate(n int64, secs float64) float64 {
	if secs <= 0 {
		return 0
	}
	return math.Round(float64(n)/secs*10) / 10
}

// roundLag prints lag with 0.1 s resolution; -1 means nothing applied yet.
func roundLag(s float64) float64 {
	if math.IsNaN(s) {
		return -1
	}
	return math.Round(s*10) / 10
}

// roundAge is the age of a timestamp, rounded for logs.
func roundAge(t time.Time) time.Duration {
	if t.IsZero() {
		return 0
	}
	return time.Since(t).Round(time.Second)
}
