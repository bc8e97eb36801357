package reverse

import (
	"time"

	"github.com/sluice-db/sluice/internal/board"
	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/source/postgres/pgoutput"
	"github.com/sluice-db/sluice/internal/supervise"
)

// card is the way back's card on the status board, for the whole Run.
func (o Options) card() *board.Stream {
	return supervise.Card(o.Board, o.Stream, "reverse", o.Source.Redacted(), o.Target.Redacted(), o.Standby)
}

// publish attaches one run's counters to the card; the returned func
// detaches them.
func publish(o Options, applier *pipeline.Applier, src *pgoutput.Stream) func() {
	return supervise.Publish(o.card(), func() board.Reading {
		return supervise.Reading(src, applier, lagSeconds(applier))
	}, nil)
}

// lagSeconds is the age of the oldest PostgreSQL transaction not yet in
// MySQL, 0 when nothing is pending (sluice_reverse_lag_seconds, the status
// page).
func lagSeconds(applier *pipeline.Applier) float64 {
	if ts := applier.OldestPending(); !ts.IsZero() {
		return max(0, time.Since(ts).Seconds())
	}
	return 0
}
