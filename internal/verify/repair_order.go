package verify

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/sluice-db/sluice/internal/verify/verifydb"
)

// Tables are compared and repaired in parallel, in no particular order, but
// the target's foreign keys order their repairs: a child row can only be
// written once its parent is there, a parent deleted only once its children
// are gone. Applied repairs that a foreign key refuses are set aside and
// tried again until no more succeed (the tables they wait for are repaired
// meanwhile); --repair-sql collects the statements and writes them at the
// end, deletes children first, inserts and updates parents first.

// deferredRepair is a scope's repair that a foreign key refused.
type deferredRepair struct {
	r     *tableRun
	s     verifydb.Scope
	diffs []verifydb.RowDiff
	err   error
}

func (e *engine) deferRepair(d deferredRepair) {
	e.repairMu.Lock()
	defer e.repairMu.Unlock()
	e.deferred = append(e.deferred, d)
}

// retryDeferred repeats the set-aside repairs in rounds while some succeed;
// what is left is reported as an error of its table.
func (e *engine) retryDeferred(ctx context.Context) {
	for {
		e.repairMu.Lock()
		todo := e.deferred
		e.deferred = nil
		e.repairMu.Unlock()
		if len(todo) == 0 {
			return
		}
		for _, d := range todo {
			if err := e.repairScope(ctx, d.r, d.s, d.diffs); err != nil {
				d.r.fail(err)
			}
		}
		e.repairMu.Lock()
		stuck := len(e.deferred) == len(todo)
		left := e.deferred
		if stuck {
			e.deferred = nil
		}
		e.repairMu.Unlock()
		if stuck {
			for _, d := range left {
				d.r.fail(fmt.Errorf("repair: a foreign key refuses it even after the other tables were repaired "+
					"(a cycle of foreign keys, or a parent outside the compared tables): %w", d.err))
			}
			return
		}
	}
}

// sqlRepair is one table's collected --repair-sql statements.
type sqlRepair struct {
	p                *verifydb.Plan
	deletes, upserts []verifydb.Stmt
}

// collectSQL keeps a table's repair statements for writeRepairSQL.
func (e *engine) collectSQL(p *verifydb.Plan, stmts []verifydb.Stmt) {
	e.repairMu.Lock()
	defer e.repairMu.Unlock()
	if e.sqlRepairs == nil {
		e.sqlRepairs = map[string]*sqlRepair{}
	}
	sr := e.sqlRepairs[p.Target]
	if sr == nil {
		sr = &sqlRepair{p: p}
		e.sqlRepairs[p.Target] = sr
	}
	for _, s := range stmts {
		if s.Delete {
			sr.deletes = append(sr.deletes, s)
		} else {
			sr.upserts = append(sr.upserts, s)
		}
	}
}

// writeRepairSQL writes the collected statements: every table's deletes,
// children before parents, then its inserts and updates, parents before
// children, each in a transaction of its own.
func (e *engine) writeRepairSQL(ctx context.Context, w io.Writer) error {
	if len(e.sqlRepairs) == 0 {
		return nil
	}
	order, err := e.parentsFirst(ctx)
	if err != nil {
		return err
	}
	for i := len(order) - 1; i >= 0; i-- {
		sr := e.sqlRepairs[order[i]]
		if err := e.tgt.WriteSQL(ctx, sr.p, w, sr.deletes); err != nil {
			return err
		}
	}
	for _, t := range order {
		sr := e.sqlRepairs[t]
		if err := e.tgt.WriteSQL(ctx, sr.p, w, sr.upserts); err != nil {
			return err
		}
	}
	return nil
}

// parentsFirst orders the tables with collected repairs so that a table
// comes after every table its foreign keys reference (read from the
// target's catalog); a cycle is broken at an arbitrary table.
func (e *engine) parentsFirst(ctx context.Context) ([]string, error) {
	names := make([]string, 0, len(e.sqlRepairs))
	plans := make(map[string]*verifydb.Plan, len(e.sqlRepairs))
	for name, sr := range e.sqlRepairs {
		names = append(names, name)
		plans[name] = sr.p
	}
	slices.Sort(names)
	parents, err := e.tgt.Parents(ctx, plans)
	if err != nil {
		return nil, err
	}
	var order []string
	state := map[string]int{} // 1 visiting, 2 done
	var visit func(string)
	visit = func(t string) {
		if state[t] != 0 {
			return // done, or a cycle: break it here
		}
		state[t] = 1
		for _, p := range parents[t] {
			visit(p)
		}
		state[t] = 2
		order = append(order, t)
	}
	for _, t := range names {
		visit(t)
	}
	return order, nil
}
