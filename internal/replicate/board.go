package replicate

import (
	"github.com/sluice-db/sluice/internal/board"
	"github.com/sluice-db/sluice/internal/supervise"
)

// BoardCard is the stream's card on the status board, for the whole Run
// (its lag chart spans reconnects): a standby's waits for the stream first.
func (o Options) BoardCard() *board.Stream {
	return supervise.Card(o.Board, o.Stream, "replicate", o.Source.Redacted(), o.targetRedacted(), o.Standby)
}

// publish attaches this run's counters to the card; the returned func
// detaches them (the run ends, the last reading stays shown).
func (r *runner) publish() func() {
	return supervise.Publish(r.o.BoardCard(), r.boardReading, r.boardPolicies)
}

func (r *runner) boardReading() board.Reading {
	return supervise.Reading(r.stream, r.applier, r.lagSeconds())
}

// boardPolicies are the stream's cumulative policy counts: which column, how
// many rows, never a value.
func (r *runner) boardPolicies() []board.PolicyChange {
	if r.policies == nil {
		return nil
	}
	var out []board.PolicyChange
	for _, c := range r.policies.totals() {
		out = append(out, board.PolicyChange{Table: c.Table, Column: c.Column, Policy: c.Policy, Rows: c.Count})
	}
	return out
}
