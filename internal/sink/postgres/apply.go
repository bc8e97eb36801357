package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/schema"
)

// largeFlushRows bounds the rows of one pipelined batch inside a large
// transaction, so the encoded batch stays small whatever the fragment size.
const largeFlushRows = 2000

// session is one prepared PostgreSQL connection of the sink (pipeline.Session).
type session struct {
	a     *Sink
	conn  *pgxpool.Conn
	plans *planCache
	// marked remembers the table versions already marked for a sequence
	// sync since the last Reset, and their AUTO_INCREMENT column.
	marked map[*schema.Table]string
}

// newWriter starts a target transaction's writer on the session.
func (s *session) newWriter(copyRows, flushRows int) *writer {
	w := newWriter(s.conn.Conn(), s.plans, copyRows, flushRows)
	w.cascade = s.a.cascader(s.conn)
	w.upsert = s.a.cfg.Upsert
	return w
}

// Close returns the connection to the pool.
func (s *session) Close() { s.a.release(s.conn) }

// Reset drops plans and prepared statements after a schema change.
func (s *session) Reset(ctx context.Context) error {
	s.plans.reset()
	clear(s.marked)
	if err := s.conn.Conn().DeallocateAll(ctx); err != nil {
		return fmt.Errorf("drop prepared statements after a schema change: %w", err)
	}
	return nil
}

// ApplyGroup writes a group as one target transaction together with its
// sluice.applied record. If PostgreSQL refuses it, the group is re-applied
// one source transaction and one statement at a time, which either
// pinpoints the failing change or (if the failure came from grouping) applies it.
func (s *session) ApplyGroup(ctx context.Context, g *pipeline.Group, runStart model.Position) (bool, error) {
	s.markSequences(g.Changes)
	wr := s.newWriter(s.a.cfg.CopyRows, 0)
	err := s.writeTxn(ctx, wr, g.Changes, g.Txns, runStart)
	if err == nil {
		return false, nil
	}
	s.a.rollback(s.conn)
	if !isDataError(err) || ctx.Err() != nil {
		return false, describe(err, s.plans)
	}
	if len(g.Txns) == 1 && len(g.Changes) <= 1 {
		return false, describe(err, s.plans)
	}
	s.a.cfg.Log.Debug("apply: group failed, re-applying one transaction at a time", "txns", len(g.Txns), "error", err)
	for i, t := range g.Txns {
		wr := s.newWriter(0, 0)
		wr.single = true
		if err := s.writeTxn(ctx, wr, g.One(i), []*model.Txn{t}, runStart); err != nil {
			s.a.rollback(s.conn)
			return false, describe(err, s.plans)
		}
	}
	s.a.cfg.Log.Warn("apply: a grouped target transaction failed but its source transactions applied one by one",
		"txns", len(g.Txns), "error", describe(err, s.plans))
	return true, nil
}

// writeTxn writes changes of the given source transactions as one target
// transaction: BEGIN, the changes, the sluice.applied record, COMMIT, in as
// few round trips as the batching allows.
func (s *session) writeTxn(ctx context.Context, wr *writer, cs []pipeline.Change, txns []*model.Txn, runStart model.Position) error {
	wr.queue(stmt{sql: "BEGIN", expect: -1})
	if err := wr.write(ctx, cs); err != nil {
		return err
	}
	ends := make([]string, len(txns))
	for i, t := range txns {
		ends[i] = t.End.Key()
	}
	var start string
	if runStart != nil {
		start = runStart.Key()
	}
	wr.queue(stmt{sql: checkpoint.InsertAppliedSQL, expect: 1}, s.a.cfg.Stream, txns[len(txns)-1].End.Key(), ends, start)
	wr.queue(stmt{sql: "COMMIT", expect: -1, tag: "COMMIT"})
	return wr.flush(ctx)
}

// markSequences marks the tables whose AUTO_INCREMENT sequence must follow
// rows these changes insert or update.
func (s *session) markSequences(cs []pipeline.Change) {
	if s.marked == nil {
		s.marked = map[*schema.Table]string{}
	}
	var last *schema.Table
	for i := range cs {
		t := cs[i].Table
		if t == last || cs[i].Op == model.Delete {
			continue
		}
		last = t
		if _, seen := s.marked[t]; seen {
			continue
		}
		col := autoIncrementColumn(t)
		if col != "" {
			if s.a.cfg.Naming.Excluded(t.TableID, col) {
				col = "" // not on the target: no sequence there
			} else {
				col = s.a.cfg.Naming.Column(t.TableID, col)
			}
		}
		s.marked[t] = col
		if col != "" {
			s.a.seqs.mark(seqTable{id: t.TableID, qtable: s.a.cfg.Naming.QTable(t.TableID), column: col})
		}
	}
}

// ApplyDDL runs the translated statements, records the new table versions
// and saves st in one PostgreSQL transaction (PostgreSQL DDL is
// transactional). Everything before is committed: the sequences are moved
// past it first, while the tables still have the names they were marked
// with, and the marks are forgotten.
func (s *session) ApplyDDL(ctx context.Context, t *model.Txn, st checkpoint.State) error {
	if err := s.a.syncSequences(ctx, s.conn, true); err != nil {
		return err
	}
	s.a.seqs.reset()
	ddl := t.DDL
	return pgx.BeginFunc(ctx, s.conn, func(tx pgx.Tx) error {
		for _, q := range ddl.PG {
			if _, err := tx.Exec(ctx, q); err != nil {
				return &pipeline.Error{Position: t.End, GTID: t.GTID, DDL: ddl.Statement, SQL: q, Err: err,
					Detail: pgDetail(err)}
			}
		}
		tables, err := withTargetOrder(ctx, tx, s.a.cfg.Naming, ddl.Tables)
		if err != nil {
			return err
		}
		if err := checkpoint.SaveSchema(ctx, tx, s.a.cfg.Stream, ddl.Version, t.End, ddl.Statement,
			tables, ddl.Dropped); err != nil {
			return err
		}
		if err := checkpoint.Save(ctx, tx, s.a.cfg.Stream, st); err != nil {
			return err
		}
		// Everything before the barrier is committed: all applied rows are covered.
		return checkpoint.DeleteApplied(ctx, tx, s.a.cfg.Stream)
	})
}

// BeginLarge opens the transaction of a fragmented source transaction.
func (s *session) BeginLarge(context.Context) (pipeline.LargeTxn, error) {
	wr := s.newWriter(s.a.cfg.CopyRows, largeFlushRows)
	wr.queue(stmt{sql: "BEGIN", expect: -1})
	return &largeTxn{s: s, wr: wr}, nil
}

type largeTxn struct {
	s  *session
	wr *writer
}

func (l *largeTxn) Write(ctx context.Context, cs []pipeline.Change) error {
	l.s.markSequences(cs)
	if err := l.wr.write(ctx, cs); err != nil {
		return describe(err, l.s.plans)
	}
	return nil
}

func (l *largeTxn) Commit(ctx context.Context, st checkpoint.State) error {
	conn := l.s.conn
	if err := l.wr.flush(ctx); err != nil {
		return describe(err, l.s.plans)
	}
	if err := checkpoint.Save(ctx, conn, l.s.a.cfg.Stream, st); err != nil {
		return err
	}
	if err := checkpoint.DeleteApplied(ctx, conn, l.s.a.cfg.Stream); err != nil {
		return err
	}
	_, err := conn.Exec(ctx, "COMMIT")
	return err
}

func (l *largeTxn) Rollback() { l.s.a.rollback(l.s.conn) }

// describe turns a failed statement into a pipeline.Error naming the source
// transaction, table, row key and SQL.
func describe(err error, plans *planCache) error {
	var se *stmtError
	if !errors.As(err, &se) {
		return err
	}
	if se.stmt.ch == nil {
		// BEGIN, COMMIT or the applied record: no row to name; typically
		// the connection went away (a target restart).
		return fmt.Errorf("apply: target statement %s: %w", pipeline.Shorten(se.stmt.sql, 80), se.err)
	}
	e := &pipeline.Error{SQL: se.stmt.sql, Err: se.err, Detail: pgDetail(se.err)}
	if ch := se.stmt.ch; ch != nil {
		e.Table = ch.Table.TableID
		e.Op = ch.Op
		if ch.Txn != nil {
			e.Position, e.GTID = ch.Txn.End, ch.Txn.GTID
		}
		img := ch.Before
		if img == nil {
			img = ch.After
		}
		if p, perr := plans.get(ch.Table); perr == nil {
			e.Key = p.KeyString(img)
			if se.stmt.rows > 1 {
				e.Key = fmt.Sprintf("one of %d rows from %s", se.stmt.rows, e.Key)
			}
		}
	}
	return e
}

// pgDetail is PostgreSQL's DETAIL line of err ("" when none), which
// pipeline.Error prints after the message; the pipeline knows no driver.
func pgDetail(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Detail
	}
	return ""
}

// isDataError reports whether err is PostgreSQL refusing the data (worth
// re-applying statement by statement to find the exact row) as opposed to
// a lost connection or a cancelled context.
func isDataError(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return true
	}
	return errors.Is(err, errTargetDiverged)
}
