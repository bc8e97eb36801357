package replicate

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/sluice-db/sluice/internal/source/mysql/binlog"
)

// headroomRefresh is how often the source's retention and its newest binlog
// file are read again (both change rarely; SHOW BINARY LOGS is cheap).
const headroomRefresh = 30 * time.Second

// retentionHeadroom is how long the stream could stop before the source
// purges the binlog file its checkpoint needs, i.e. before a restart would
// fail with "purged" and need a new snapshot. The server purges a file once
// it was last written longer than the retention ago, never the file being
// written, and (MySQL, MariaDB) not while a replica reads it: so while the
// stream runs it is safe, and the headroom is what a stop may last.
//
// The checkpoint's file was last written at or after the applied
// transaction's source time T (heartbeats count, so T is about now when
// idle), so retention − (now − T) is a lower bound; when that file is the
// newest, the server has not even started the clock: the full retention.
type retentionHeadroom struct {
	mu        sync.Mutex
	readAt    time.Time     // when retention and newest were read; zero: never
	retention time.Duration // 0: never purged
	files     []string      // the source's binlog files, oldest first
	warnedAt  time.Time     // the last low-headroom warning (one a minute)
}

// refresh reads the retention and the binlog files again when the last
// reading is older than headroomRefresh. A failure keeps the old values
// (logged at debug: the status line shows the headroom as unknown if
// nothing was ever read).
func (r *runner) refreshHeadroom(ctx context.Context) {
	h := &r.room
	h.mu.Lock()
	fresh := !h.readAt.IsZero() && time.Since(h.readAt) < headroomRefresh
	h.mu.Unlock()
	if fresh || r.src == nil || r.srcDB == nil {
		return
	}
	retention, err := binlog.ReadRetention(ctx, r.srcDB)
	var files []string
	if err == nil {
		files, err = r.src.BinaryLogs(ctx)
	}
	if err != nil {
		r.log.Debug("binlog retention headroom: cannot read the source's retention or binlogs", "err", err)
		return
	}
	h.mu.Lock()
	h.readAt, h.retention, h.files = time.Now(), retention, files
	h.mu.Unlock()
}

// headroomSeconds is the metric's value: NaN before the first reading or
// the first applied transaction (or heartbeat), +Inf when the source never
// purges by age, negative when the checkpoint's file may already be gone.
func (r *runner) headroomSeconds() float64 {
	h := &r.room
	h.mu.Lock()
	readAt, retention, files := h.readAt, h.retention, h.files
	h.mu.Unlock()
	if readAt.IsZero() {
		return math.NaN()
	}
	if retention == 0 {
		return math.Inf(1)
	}
	d, ok := headroomOf(retention, files, appliedBinlog(r.applier.Position()).File, r.applier.SourceTime(), time.Now())
	if !ok {
		return math.NaN()
	}
	return d.Seconds()
}

// headroomOf is the computation retentionHeadroom explains for the
// checkpoint's binlog file and the applied source time at; false when
// nothing is applied yet.
func headroomOf(retention time.Duration, files []string, file string, at, now time.Time) (time.Duration, bool) {
	if at.IsZero() {
		return 0, false
	}
	if len(files) > 0 && file == files[len(files)-1] {
		return retention, true
	}
	return retention - now.Sub(at), true
}

// headroomField is the status line's retention_headroom: a duration,
// "unlimited" (never purged) or "unknown".
func (r *runner) headroomField() string {
	s := r.headroomSeconds()
	switch {
	case math.IsNaN(s):
		return "unknown"
	case math.IsInf(s, 1):
		return "unlimited"
	}
	return (time.Duration(s) * time.Second).Round(time.Second).String()
}

// warnHeadroom logs a warning when less than a quarter of the retention is
// left: the stream is far behind (or was stopped long), and a stop now of
// more than the headroom needs a new snapshot.
func (r *runner) warnHeadroom() {
	s := r.headroomSeconds()
	h := &r.room
	h.mu.Lock()
	retention, quiet := h.retention, time.Since(h.warnedAt) < time.Minute
	low := !math.IsNaN(s) && !math.IsInf(s, 0) && s < retention.Seconds()/4
	if low && !quiet {
		h.warnedAt = time.Now()
	}
	h.mu.Unlock()
	if !low || quiet {
		return
	}
	r.log.Warn("binlog retention headroom low: the source purges the binlog this stream's checkpoint needs in "+
		r.headroomField()+"; stopped (or this far behind) for longer, the stream cannot continue and needs a new snapshot",
		"retention", retention.String(), "fix", "let the stream catch up, or raise the source's binlog retention (docs/replication.md, \"Managed sources\")")
}
