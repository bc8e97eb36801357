package pipeline

import (
	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
)

// coalesce reorders the changes of a group so that the changes of one table
// and operation stand together: a backlog of small transactions spread over
// many tables then goes as a few multi-row INSERTs (or COPY) instead of one
// statement per row, which is most of PostgreSQL's cost per change.
//
// The changes form runs, each of one table version and one operation, kept
// in the order they were opened. A change joins the newest run of its table
// and operation only when no later run touched any of its conflict keys
// (unique keys, row identity and the parent keys of its foreign keys, see
// keys.go): then everything it moves ahead of shares no row, no unique
// value and no parent row with it, so it commutes with all of it, exactly
// as the dispatcher lets such transactions run on different workers.
// Within a run, changes keep their source order. A change without keys
// (none were computed for it) starts a run that nothing crosses.
//
// Only PostgreSQL objects sluice does not know about could tell the
// difference (a trigger, or a foreign key added on the target only); if such
// a constraint rejects the reordered group, the group is applied again one
// source transaction at a time, in source order (worker.applyGroup).
func coalesce(cs []Change) []Change {
	if len(cs) < 3 {
		return cs
	}
	type runKey struct {
		table *schema.Table
		op    model.Op
	}
	var runs [][]int32
	open := make(map[runKey]int, 8)
	lastRun := make(map[uint64]int, len(cs)*2)
	for j := range cs {
		c := &cs[j]
		rk := runKey{c.Table, c.Op}
		r, ok := open[rk]
		if len(c.keys) == 0 {
			clear(open) // a barrier: nothing moves across it
			ok = false
		}
		for _, ks := range [2][]uint64{c.keys, c.cascade} {
			for _, k := range ks {
				if last, seen := lastRun[k]; ok && seen && last > r {
					ok = false
				}
			}
		}
		if !ok {
			r = len(runs)
			runs = append(runs, nil)
			if len(c.keys) > 0 {
				open[rk] = r
			}
		}
		runs[r] = append(runs[r], int32(j))
		for _, ks := range [2][]uint64{c.keys, c.cascade} {
			for _, k := range ks {
				lastRun[k] = r // never lowers it: a join requires last <= r
			}
		}
	}
	if len(runs) == len(cs) {
		return cs // nothing joined: keep the order as it is
	}
	out := make([]Change, 0, len(cs))
	for _, run := range runs {
		for _, j := range run {
			out = append(out, cs[j])
		}
	}
	return out
}
