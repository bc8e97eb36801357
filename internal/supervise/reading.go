package supervise

import (
	"github.com/sluice-db/sluice/internal/board"
	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/source"
)

// Reading is one run's line on the status page, the same for every source:
// how far the source read, what apply committed, the lag (each command's
// own measure, in seconds), the changes applied and apply's queue.
func Reading(src source.Stream, a *pipeline.Applier, lag float64) board.Reading {
	return board.Reading{Read: src.ReadPosition(), Applied: a.Position().String(), Lag: lag,
		Changes: a.Stats().Changes, Queue: int64(a.QueueDepth())}
}

// Card is a command's card on the status board for the whole Run (its lag
// chart spans reconnects), with the endpoints as redacted: a standby's
// shows its wait for the stream first.
func Card(b *board.Board, stream, command, source, target string, standby bool) *board.Stream {
	c := b.Stream(stream, command)
	c.SetEndpoints(source, target)
	if standby {
		c.SetPhase(board.PhaseStandby)
	}
	return c
}

// Publish attaches one run's reading (and policy counts, nil: none) to c
// as replicating; the returned func detaches them, the last reading stays
// shown.
func Publish(c *board.Stream, reading func() board.Reading, policies func() []board.PolicyChange) func() {
	c.Attach(reading, policies)
	c.SetPhase(board.PhaseReplicating)
	return c.Detach
}
