package verify

import (
	"context"
	"fmt"

	"github.com/sluice-db/sluice/internal/verify/verifydb"
)

// diffScope finds the differing rows of a scope (re-checking them in
// online mode), records them and repairs them when asked.
func (e *engine) diffScope(ctx context.Context, r *tableRun, s verifydb.Scope) error {
	p := r.plan
	diffs, err := e.rowDiffs(ctx, p, s)
	if err != nil {
		return err
	}
	var rechecked, inFlight int64
	if e.online && len(diffs) > 0 {
		first := len(diffs)
		var moving map[string]bool
		for round := 0; round < e.o.Recheck && len(diffs) > 0; round++ {
			again, err := e.rowDiffs(ctx, p, s)
			if err != nil {
				return err
			}
			next := stillDiffering(diffs, again)
			moving = sourceMoved(diffs, next)
			diffs = next
		}
		rechecked = int64(first - len(diffs))
		if rechecked > 0 {
			e.o.Log.Debug("differences resolved on re-check (in flight)", "table", p.Name, "rows", rechecked)
		}
		// A row whose source side changed between the last two readings is
		// still being written: in flight, not a difference.
		diffs, inFlight = dropMoving(diffs, moving)
	}
	if inFlight > 0 {
		r.addInFlight(inFlight)
	}
	if len(diffs) == 0 {
		if rechecked > 0 {
			r.addDiffs(nil, rechecked, e.o.MaxDiffs)
		}
		return nil
	}
	sortDiffs(diffs)
	r.addDiffs(diffs, rechecked, e.o.MaxDiffs)
	if !e.o.Repair && e.o.RepairSQL == nil {
		return nil
	}
	if e.o.RepairSQL != nil {
		return e.repair(ctx, p, diffs)
	}
	return e.repairScope(ctx, r, s, diffs)
}

// repairScope writes the repair of a scope's differing rows, then reads the
// rows again: a repair counts only when they now match. Online, the
// replicator may apply a newer change of a row between the fresh source read
// and the write, leaving the write stale; the re-read finds that, and the
// row is repaired again. A repair that a foreign key refuses (a child row
// whose parent another table's repair has not written yet, a parent whose
// children are not deleted yet) is set aside and tried again once the other
// tables are repaired (retryDeferred).
func (e *engine) repairScope(ctx context.Context, r *tableRun, s verifydb.Scope, diffs []verifydb.RowDiff) error {
	p := r.plan
	attempts := 1
	if e.online {
		attempts = 1 + e.o.Recheck
	}
	todo := diffs
	for a := 0; a < attempts && len(todo) > 0; a++ {
		if err := e.repair(ctx, p, todo); err != nil {
			if e.tgt.IsForeignKeyViolation(err) {
				e.deferRepair(deferredRepair{r: r, s: s, diffs: diffs, err: err})
				return nil
			}
			r.mu.Lock()
			r.repairedAll = false
			r.mu.Unlock()
			return fmt.Errorf("repair: %w", err)
		}
		after, err := e.rowDiffs(ctx, p, s)
		if err != nil {
			return err
		}
		todo = stillDiffering(todo, after)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rep.Repaired += int64(len(diffs) - len(todo))
	if len(todo) > 0 {
		r.repairedAll = false
		e.o.Log.Warn("rows still differ after repair", "table", p.Name, "rows", len(todo))
	}
	return nil
}

// rowDiffs reads a scope on both sides and merges the rows. In online mode
// the target is read only after the replicator has applied everything the
// source read saw.
func (e *engine) rowDiffs(ctx context.Context, p *verifydb.Plan, s verifydb.Scope) ([]verifydb.RowDiff, error) {
	src, err := p.FetchSource(ctx, e.src, s)
	if err != nil {
		return nil, err
	}
	if e.online {
		pos, err := sourcePosition(ctx, e.src)
		if err != nil {
			return nil, err
		}
		if err := e.waitForPosition(ctx, p.Name, pos); err != nil {
			return nil, err
		}
	}
	return e.tgt.Diff(ctx, p, s, src)
}

// stillDiffering keeps the differences of before whose row also differs
// in after (a row that now matches was a change in flight).
func stillDiffering(before, after []verifydb.RowDiff) []verifydb.RowDiff {
	now := make(map[string]int, len(after))
	for i, d := range after {
		now[d.KeyText()] = i
	}
	var out []verifydb.RowDiff
	for _, d := range before {
		if i, ok := now[d.KeyText()]; ok {
			out = append(out, after[i]) // the latest reading of the row
		}
	}
	return out
}

// sourceMoved returns the keys of the rows in after whose source reading
// differs from the one in before (changed, inserted or deleted meanwhile).
func sourceMoved(before, after []verifydb.RowDiff) map[string]bool {
	was := make(map[string]*verifydb.FetchedRow, len(before))
	for _, d := range before {
		was[d.KeyText()] = d.Src
	}
	moved := map[string]bool{}
	for _, d := range after {
		if !sameRow(was[d.KeyText()], d.Src) {
			moved[d.KeyText()] = true
		}
	}
	return moved
}

// sameRow reports whether two readings of a source row (nil: absent) hold
// the same values.
func sameRow(a, b *verifydb.FetchedRow) bool {
	if a == nil || b == nil {
		return a == b
	}
	if len(a.Cells) != len(b.Cells) {
		return false
	}
	for i := range a.Cells {
		if a.Cells[i].Null != b.Cells[i].Null || a.Cells[i].Cmp != b.Cells[i].Cmp {
			return false
		}
	}
	return true
}

// dropMoving removes the diffs whose keys are in moving and counts them.
func dropMoving(diffs []verifydb.RowDiff, moving map[string]bool) ([]verifydb.RowDiff, int64) {
	if len(moving) == 0 {
		return diffs, 0
	}
	kept := diffs[:0]
	var n int64
	for _, d := range diffs {
		if moving[d.KeyText()] {
			n++
			continue
		}
		kept = append(kept, d)
	}
	return kept, n
}
