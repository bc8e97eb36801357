package reverse

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/source/postgres/lsnpos"
	"github.com/sluice-db/sluice/internal/source/postgres/pgoutput"
	"github.com/sluice-db/sluice/internal/supervise"
)

// registerMetrics publishes the reverse stream's metrics (subsystem
// "reverse", label stream) and returns what unregisters them.
func registerMetrics(reg prometheus.Registerer, stream string, applier *pipeline.Applier, src *pgoutput.Stream) (func(), error) {
	if reg == nil {
		return func() {}, nil
	}
	m := supervise.Metrics{Subsystem: "reverse", Stream: stream}
	gauge, counter := m.Gauge, m.Counter
	applied := func() float64 {
		lsn, _ := lsnpos.From(applier.Position())
		return float64(lsn)
	}
	cs := []prometheus.Collector{
		gauge("lag_seconds", "Seconds since PostgreSQL committed the oldest transaction not yet applied in MySQL (0 when nothing is pending).",
			func() float64 { return lagSeconds(applier) }),
		gauge("behind_bytes", "WAL bytes between the server's position (as last reported) and the applied position.", func() float64 {
			r, a := float64(src.Received()), applied()
			if r < a || a == 0 {
				return 0
			}
			return r - a
		}),
		gauge("applied_lsn", "The applied position (LSN as a number).", applied),
		gauge("queue_depth", "PostgreSQL transactions received and not yet committed in MySQL.",
			func() float64 { return float64(applier.QueueDepth()) }),
		counter("applied_transactions_total", "PostgreSQL transactions committed in MySQL.",
			func() float64 { return float64(applier.Stats().Txns) }),
		counter("applied_changes_total", "Row changes committed in MySQL.",
			func() float64 { return float64(applier.Stats().Changes) }),
		counter("skipped_origin_transactions_total", "PostgreSQL transactions of a sluice replication origin passed over.",
			func() float64 { return float64(src.Skipped()) }),
		counter("rows_left_out_total", "Rows left out by --on-error skip-and-log.",
			func() float64 { return float64(src.BadRows()) }),
	}
	return supervise.Register(reg, cs...)
}
