package replicate

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/supervise"
)

// lagSeconds is how far the applied state is behind the source: now minus
// the source time of the last applied transaction. Heartbeats of an idle
// source carry the time they arrived, so an idle, caught-up stream reads
// about 0 instead of a growing number. NaN before anything was applied.
func (r *runner) lagSeconds() float64 {
	ts := r.applier.SourceTime()
	if ts.IsZero() {
		return math.NaN()
	}
	return max(0, time.Since(ts).Seconds())
}

// registerMetrics exposes the stream and apply counters on the registry
// the CLI serves, and on the status board. Values are read when scraped, so the hot path only
// updates atomics it has anyway.
func (r *runner) registerMetrics() error {
	detach := r.publish()
	r.unregister = detach
	reg := r.o.Registry
	if reg == nil {
		return nil
	}
	m := supervise.Metrics{Subsystem: "replicate", Stream: r.o.Stream}
	gauge, counter := m.Gauge, m.Counter
	ss := r.stream.Stats()
	cs := []prometheus.Collector{
		gauge("lag_seconds", "Seconds the applied state is behind the source (0 when caught up and idle).", r.lagSeconds),
		gauge("binlog_retention_headroom_seconds", "Seconds until the source purges the binlog file the checkpoint needs, if the stream stopped now (retention minus the age of the applied transaction; the full retention while that file is the newest; +Inf when the source never purges). Below 0 a restart needs a new snapshot.",
			r.headroomSeconds),
		gauge("queue_depth", "Source transactions received by apply and not yet committed.",
			func() float64 { return float64(r.applier.QueueDepth()) }),
		counter("applied_transactions_total", "Source transactions committed in the target.",
			func() float64 { return float64(r.applier.Stats().Txns) }),
		counter("applied_changes_total", "Row changes committed in the target (applied events).",
			func() float64 { return float64(r.applier.Stats().Changes) }),
		counter("applied_bytes_total", "Decoded size of the row changes committed in the target.",
			func() float64 { return float64(r.applier.Stats().Bytes) }),
		counter("applied_ddl_total", "Schema changes applied.",
			func() float64 { return float64(r.applier.Stats().DDL) }),
		counter("retried_groups_total", "Grouped target transactions PostgreSQL refused that then applied one source transaction at a time (a constraint or trigger only the target has).",
			func() float64 { return float64(r.applier.Stats().Retried) }),
		counter("binlog_events_total", "Binlog events read from the source.",
			func() float64 { return float64(ss.Events.Load()) }),
		counter("binlog_bytes_total", "Binlog bytes read from the source.",
			func() float64 { return float64(ss.Bytes.Load()) }),
		counter("reconnects_total", "Reconnects of the binlog stream after a connection loss.",
			func() float64 { return float64(ss.Reconnect.Load()) }),
		counter("loopback_skipped_total", "Source transactions not replicated because their first row event is on database sluice: the reverse stream's own writes.",
			func() float64 { return float64(ss.Loopback.Load()) }),
		gauge("read_binlog_file", "Sequence number of the binlog file read up to.",
			func() float64 { return float64(fileNumber(r.stream.Position())) }),
		gauge("read_binlog_position", "Offset in the binlog file read up to.",
			func() float64 { return float64(r.stream.Position().Pos) }),
		gauge("applied_binlog_file", "Sequence number of the binlog file applied up to.",
			func() float64 { return float64(fileNumber(appliedBinlog(r.applier.Position()))) }),
		gauge("applied_binlog_position", "Offset in the binlog file applied up to.",
			func() float64 { return float64(appliedBinlog(r.applier.Position()).Pos) }),
	}
	if r.policies != nil {
		cs = append(cs, newPolicyCollector(r.policies, r.o.Stream))
	}
	unregister, err := supervise.Register(reg, cs...)
	if err != nil {
		return err
	}
	r.unregister = func() { detach(); unregister() }
	return nil
}

// appliedBinlog is the applier's watermark as a binlog position (zero before any).
func appliedBinlog(p model.Position) binlogpos.Position {
	b, _ := binlogpos.From(p)
	return b
}

// fileNumber is the numeric suffix of a binlog file name (mysql-bin.000042 → 42).
func fileNumber(p binlogpos.Position) uint64 {
	n, _ := strconv.ParseUint(p.File[strings.LastIndexByte(p.File, '.')+1:], 10, 64)
	return n
}
