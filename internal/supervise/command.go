package supervise

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sluice-db/sluice/internal/board"
	"github.com/sluice-db/sluice/internal/gctune"
)

// MemoryOverhead is the soft memory limit above --max-txn-memory: the
// connections and plans. The garbage collector works harder as the heap
// approaches the sum.
const MemoryOverhead = 128 << 20

// Command is what a replication command (replicate, the way back) brings
// to the one loop: the rest — the collector's settings, the reachable
// gauge, the status card's reconnecting and stopped states — is the same
// for every source.
type Command struct {
	// Subsystem and Stream name the metrics (sluice_<Subsystem>_…{stream}).
	Subsystem, Stream string
	// ReachableHelp is the help text of sluice_<Subsystem>_target_reachable.
	ReachableHelp string
	Registry      prometheus.Registerer // nil: no metrics
	// Card is the command's status card for the whole run (Card).
	Card *board.Stream
	// TxnMemory is --max-txn-memory: decoded changes held in memory are
	// bounded by it (half in apply's queue, fragments of 1/16).
	TxnMemory int64
	// Policy is the command's side of the loop, given the reachable gauge.
	Policy func(*Reachable) Policy
}

// Loop runs attempt under the command's policy until it stops (Loop), and
// tells the card why it stopped.
func (c Command) Loop(ctx context.Context, attempt Attempt) (err error) {
	defer func() { c.Card.Stopped(err) }()
	// The decoders and apply allocate per value while the live heap stays
	// small: collect at sluice's settings (internal/gctune).
	defer gctune.Apply(c.TxnMemory + MemoryOverhead)()
	reach, err := RegisterReachable(c.Registry, c.Subsystem, c.Stream, c.ReachableHelp)
	if err != nil {
		return err
	}
	defer reach.Unregister()
	policy := c.Policy(reach)
	policy.Lost = c.Card.Reconnecting // the status page shows the loss while it is retried
	return Loop(ctx, policy, attempt)
}
