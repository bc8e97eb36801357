package verify

import "github.com/sluice-db/sluice/internal/board"

// BoardProgress tells the status page's board what Inner is told: each
// table's result as counts (never a differing row's key or values).
type BoardProgress struct {
	Inner Progress
	Card  *board.Verify
}

func (p BoardProgress) Start(tables int, bytes int64) {
	p.Card.Start(tables, bytes)
	p.Inner.Start(tables, bytes)
}

func (p BoardProgress) Advance(bytes int64) {
	p.Card.Advance(bytes)
	p.Inner.Advance(bytes)
}

func (p BoardProgress) TableDone(t TableReport) {
	var policy int64
	for _, c := range t.PolicyChanges {
		policy += c.Count
	}
	p.Card.TableDone(board.VerifyTable{Table: t.Table, Result: t.Result, Rows: t.Rows, OnlyInSource: t.OnlyInSource,
		OnlyInTarget: t.OnlyInTarget, Differing: t.Differing, Rechecked: t.Rechecked, Repaired: t.Repaired,
		PolicyRows: policy, Seconds: t.Seconds, Error: t.Error})
	p.Inner.TableDone(t)
}

func (p BoardProgress) Stop() { p.Inner.Stop() }
