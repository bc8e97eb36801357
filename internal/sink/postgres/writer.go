package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/pipeline"
)

// stmt remembers what a queued statement was for, so a failure can name the
// source transaction, table, key and SQL.
type stmt struct {
	sql    string
	expect int64            // rows it must affect; -1 = not checked
	ch     *pipeline.Change // first change it applies (nil for BEGIN/COMMIT/bookkeeping)
	rows   int              // changes it applies
	tag    string           // command tag it must return ("COMMIT": not rolled back)
}

// writer queues the statements of one target transaction on one connection
// and sends them as pipelined batches: one round trip per batch, with COPY
// in between for long insert runs. Statement order is change order.
type writer struct {
	conn     *pgx.Conn
	plans    *planCache
	copyRows int // insert runs at least this long use COPY; <=0 never
	// flushRows bounds the rows queued before a batch is sent, which bounds
	// the memory of the encoded batch for large transactions.
	flushRows int
	// single sends one row per statement, to find the exact failing row.
	single bool
	// cascade performs the target's foreign key actions (cascade.go); nil
	// when the source logs them.
	cascade *cascader
	// upsert: the tables applied as upserts (upsert.go).
	upsert *pipeline.UpsertTables

	batch  pgx.Batch
	stmts  []stmt
	queued int
}

func newWriter(conn *pgx.Conn, plans *planCache, copyRows, flushRows int) *writer {
	return &writer{conn: conn, plans: plans, copyRows: copyRows, flushRows: flushRows}
}

func (w *writer) queue(s stmt, args ...any) {
	w.batch.Queue(s.sql, args...)
	w.stmts = append(w.stmts, s)
	w.queued += s.rows
}

// flush sends the queued statements and checks every result.
func (w *writer) flush(ctx context.Context) error {
	if len(w.stmts) == 0 {
		return nil
	}
	br := w.conn.SendBatch(ctx, &w.batch)
	var err error
	for i := range w.stmts {
		ct, xerr := br.Exec()
		if xerr != nil {
			err = &stmtError{stmt: w.stmts[i], err: xerr}
			break
		}
		if s := w.stmts[i]; s.tag != "" && ct.String() != s.tag {
			err = &stmtError{stmt: s, err: fmt.Errorf("command returned %q, expected %q", ct.String(), s.tag)}
			break
		}
		if s := w.stmts[i]; s.expect >= 0 && ct.RowsAffected() != s.expect {
			err = &stmtError{stmt: s, err: fmt.Errorf("%w: affected %d rows, expected %d",
				errTargetDiverged, ct.RowsAffected(), s.expect)}
			break
		}
	}
	if cerr := br.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("apply: batch: %w", cerr)
	}
	w.batch = pgx.Batch{}
	clear(w.stmts) // drop references to the changes (large transactions)
	w.stmts = w.stmts[:0]
	w.queued = 0
	return err
}

// write queues (and, for COPY or a full batch, sends) the statements for cs.
func (w *writer) write(ctx context.Context, cs []pipeline.Change) error {
	for i := 0; i < len(cs); {
		j := i + 1
		for j < len(cs) && cs[j].Table == cs[i].Table && cs[j].Op == cs[i].Op {
			j++
		}
		if err := w.writeRun(ctx, cs[i:j]); err != nil {
			return err
		}
		if w.flushRows > 0 && w.queued >= w.flushRows {
			if err := w.flush(ctx); err != nil {
				return err
			}
		}
		i = j
	}
	return nil
}

// writeRun writes consecutive changes of one op to one table version.
func (w *writer) writeRun(ctx context.Context, run []pipeline.Change) error {
	plan, err := w.plans.get(run[0].Table)
	if err != nil {
		return &stmtError{stmt: stmt{ch: &run[0]}, err: err}
	}
	if w.upsert.Has(run[0].Table.TableID) {
		if err := w.queueUpserts(plan, run); err != nil || run[0].Op == model.Insert {
			return err
		}
		return w.cascadeRun(ctx, plan, run) // the source's FK actions, as below
	}
	switch run[0].Op {
	case model.Insert:
		if w.copyRows > 0 && len(run) >= w.copyRows && !w.single {
			if err := w.flush(ctx); err != nil {
				return err
			}
			return w.copyInserts(ctx, plan, run)
		}
		return w.queueInserts(plan, run)
	case model.Update:
		if err := w.queueUpdates(ctx, plan, run); err != nil {
			return err
		}
		return w.cascadeRun(ctx, plan, run)
	case model.Delete:
		if err := w.queueDeletes(plan, run); err != nil {
			return err
		}
		return w.cascadeRun(ctx, plan, run)
	}
	return &stmtError{stmt: stmt{ch: &run[0]}, err: fmt.Errorf("unknown row operation %v", run[0].Op)}
}

// queueInserts sends a run of inserts as multi-row INSERT statements.
func (w *writer) queueInserts(plan *ApplyPlan, run []pipeline.Change) error {
	for len(run) > 0 {
		sql, n := plan.InsertChunk(len(run))
		if w.single {
			sql, n = plan.InsertChunk(1)
		}
		args := make([]any, 0, n*len(plan.Cols))
		for i := 0; i < n; i++ {
			var err error
			if args, err = plan.AppendInsertArgs(args, run[i].After); err != nil {
				return &stmtError{stmt: stmt{ch: &run[i]}, err: err}
			}
		}
		w.queue(stmt{sql: sql, expect: int64(n), ch: &run[0], rows: n}, args...)
		run = run[n:]
	}
	return nil
}

// queueUpdates sends a run of updates: consecutive updates that leave every
// unique-key column unchanged and touch distinct rows go several to a
// statement (UPDATE ... FROM (VALUES ...)); they cannot collide on a unique
// index in any order. The others go one row per statement.
func (w *writer) queueUpdates(ctx context.Context, plan *ApplyPlan, run []pipeline.Change) error {
	many := plan.UpdateManyAllowed() && !w.single && len(run) >= 2
	var rowsSeen map[uint64]bool
	if many {
		rowsSeen = make(map[uint64]bool, min(len(run), maxUpdateChunk))
	}
	for i := 0; i < len(run); {
		j := i
		if many {
			clear(rowsSeen)
			for j < len(run) && j-i < maxUpdateChunk && run[j].HasIdent && !rowsSeen[run[j].Ident] &&
				pipeline.UniqueUnchanged(plan.UniqueColumns(), &run[j].RowChange) {
				rowsSeen[run[j].Ident] = true
				j++
			}
		}
		n := 1
		if j-i >= 2 {
			n = plan.UpdateManyChunk(j - i)
		}
		if n < 2 {
			args, err := plan.UpdateArgs(run[i].Before, run[i].After)
			if err != nil {
				return &stmtError{stmt: stmt{ch: &run[i]}, err: err}
			}
			w.queue(stmt{sql: plan.UpdateSQL(), expect: 1, ch: &run[i], rows: 1}, args...)
			i++
			continue
		}
		sql, err := w.plans.updateManySQL(ctx, w.conn, plan, n)
		if err != nil {
			return &stmtError{stmt: stmt{ch: &run[i]}, err: err}
		}
		args := make([]any, 0, n*(len(plan.Key)+len(plan.Cols)))
		for k := i; k < i+n; k++ {
			if args, err = plan.AppendUpdateManyArgs(args, run[k].Before, run[k].After); err != nil {
				return &stmtError{stmt: stmt{ch: &run[k]}, err: err}
			}
		}
		w.queue(stmt{sql: sql, expect: int64(n), ch: &run[i], rows: n}, args...)
		i += n
	}
	return nil
}

// maxUpdateChunk bounds the rows of one multi-row UPDATE.
const maxUpdateChunk = 256

// queueDeletes sends a run of deletes as multi-row DELETE statements by key
// (one row per statement for keyless tables, and in single mode).
func (w *writer) queueDeletes(plan *ApplyPlan, run []pipeline.Change) error {
	for len(run) > 0 {
		sql, n := plan.DeleteChunk(len(run))
		if w.single {
			sql, n = plan.DeleteChunk(1)
		}
		var args []any
		for i := 0; i < n; i++ {
			var err error
			if args, err = plan.AppendDeleteArgs(args, run[i].Before); err != nil {
				return &stmtError{stmt: stmt{ch: &run[i]}, err: err}
			}
		}
		w.queue(stmt{sql: sql, expect: int64(n), ch: &run[0], rows: n}, args...)
		run = run[n:]
	}
	return nil
}

// copyInserts sends a run of inserts with COPY (binary), which beats
// multi-row INSERT for long runs; no ON CONFLICT is needed because exactly
// once never replays an applied insert.
func (w *writer) copyInserts(ctx context.Context, plan *ApplyPlan, run []pipeline.Change) error {
	src := &copySource{plan: plan, run: run, i: -1}
	n, err := w.conn.CopyFrom(ctx, plan.Ident, plan.ColumnNames(), src)
	s := stmt{sql: "COPY " + plan.QTable + " FROM STDIN (binary)", expect: int64(len(run)), ch: &run[0], rows: len(run)}
	if err != nil {
		return &stmtError{stmt: s, err: err}
	}
	if n != int64(len(run)) {
		return &stmtError{stmt: s, err: fmt.Errorf("%w: copied %d rows, expected %d", errTargetDiverged, n, len(run))}
	}
	return nil
}

type copySource struct {
	plan *ApplyPlan
	run  []pipeline.Change
	i    int
	vals []any
	err  error
}

func (s *copySource) Next() bool {
	s.i++
	return s.i < len(s.run) && s.err == nil
}

func (s *copySource) Values() ([]any, error) {
	s.vals, s.err = s.plan.AppendInsertArgs(s.vals[:0], s.run[s.i].After)
	return s.vals, s.err
}

func (s *copySource) Err() error { return s.err }

// errTargetDiverged marks a statement that found the target different from
// the source (a row to update or delete is missing): never retried.
var errTargetDiverged = errors.New("the target does not hold the row the source changed (target diverged from source)")

// stmtError is a failed statement before it is described for the user.
type stmtError struct {
	stmt stmt
	err  error
}

func (e *stmtError) Error() string { return e.stmt.sql + ": " + e.err.Error() }
func (e *stmtError) Unwrap() error { return e.err }
