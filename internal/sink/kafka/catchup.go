package kafka

import (
	"errors"
	"sync"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/pipeline"
)

// ErrCaughtUp ends the replay of a resumed snapshot (Config.CatchUp): the
// next source transaction lies beyond its consistent point, so it is not
// written now (it is streamed after the copy).
var ErrCaughtUp = errors.New("kafka: the snapshot's catch-up reached its consistent point")

// CatchUp bounds a run that replays the binlog of a resumed snapshot up to
// the new consistent point To (VReplication's catch-up): nothing beyond To
// is written, and Reached is closed once the committed state is at To (an
// idle source: its heartbeats move the checkpoint) or the next transaction
// lies beyond it.
type CatchUp struct {
	To      model.Position
	once    sync.Once
	reached chan struct{}
}

// NewCatchUp returns the bound of a replay up to to.
func NewCatchUp(to model.Position) *CatchUp {
	return &CatchUp{To: to, reached: make(chan struct{})}
}

// Reached is closed once the replay has written everything up to To.
func (c *CatchUp) Reached() <-chan struct{} { return c.reached }

func (c *CatchUp) reach() { c.once.Do(func() { close(c.reached) }) }

// beyond reports whether a transaction ending at p lies past the bound.
func (c *CatchUp) beyond(p model.Position) bool {
	return c != nil && p != nil && p.Compare(c.To) > 0
}

// note closes Reached when the committed position p is at or past To.
func (c *CatchUp) note(p model.Position) {
	if c != nil && p != nil && p.Compare(c.To) >= 0 {
		c.reach()
	}
}

// cut returns the part of g that ends at or before the bound, and whether
// a transaction was left out (the bound is reached). The checkpoint of a
// shortened group is the end of its last transaction kept.
func (c *CatchUp) cut(g *pipeline.Group) (*pipeline.Group, bool) {
	if c == nil {
		return g, false
	}
	n := 0
	for n < len(g.Txns) && !c.beyond(g.Txns[n].End) {
		n++
	}
	if n == len(g.Txns) {
		return g, false
	}
	if n == 0 {
		return nil, true
	}
	short := *g
	short.Txns = g.Txns[:n]
	short.Changes = nil // ApplyGroup writes each transaction's own changes (One)
	if g.Checkpoint != nil {
		cp := *g.Checkpoint
		last := g.Txns[n-1]
		cp.Position, cp.SourceTime = last.End, last.Timestamp
		short.Checkpoint = &cp
	}
	return &short, true
}
