package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/schema"
)

const (
	// maxStmtBytes bounds one multi-row statement (half the target's
	// max_allowed_packet when that is smaller; a single larger row is sent
	// alone).
	maxStmtBytes = 4 << 20
	// maxStmtRows bounds the rows of one multi-row INSERT or DELETE.
	maxStmtRows = 1000
	// lockRetries is how often a group the server rolled back for a
	// deadlock or lock wait timeout is run again.
	lockRetries = 5
)

// session is one prepared connection of the sink (pipeline.Session).
type session struct {
	a     *Sink
	conn  *sql.Conn
	slot  int
	plans map[*schema.Table]*plan
	b     *batch // reused by each target transaction (batch.go)
	// stmts are the prepared INSERTs (prepared.go), args their scratch;
	// noPrepare: the server refused one, the session sends text.
	stmts     map[preparedKey]*sql.Stmt
	args      []any
	noPrepare bool
}

// Close closes the connection, which releases its slot lock.
func (s *session) Close() {
	s.closePrepared()
	_ = s.conn.Close()
	s.a.freeSlot(s.slot)
}

// Reset drops the plans and their prepared statements after a schema change.
func (s *session) Reset(context.Context) error {
	s.closePrepared()
	clear(s.plans)
	return nil
}

func (s *session) plan(t *schema.Table) (*plan, error) {
	if p, ok := s.plans[t]; ok {
		return p, nil
	}
	if t == nil {
		return nil, fmt.Errorf("row change without a table")
	}
	if t.Database != s.a.cfg.SourceDB {
		return nil, oneDatabase(t.TableID, s.a.cfg)
	}
	if s.a.cfg.Engine == "" && !transactional(t.Engine) {
		return nil, nonTransactional(t.TableID, t.Engine)
	}
	p, err := newPlan(t, s.a.cfg.TargetDB, s.a.mysqlJSON, s.a.rowAlias)
	if err != nil {
		return nil, err
	}
	if s.a.narrowTimestamp {
		narrowTimestamps(t, p.enc)
	}
	if !s.a.updatesMany(t) {
		p.updateMany, p.upsertMany = false, false
	}
	if s.a.cfg.UpdateChangedColumns || hasGeometry(t) {
		// Only the CASE UPDATE can leave a row's unchanged columns out
		// (update_case.go); the upsert and the joined UPDATE write them all.
		// A table with a geometry column too: rows that existed when a
		// NOT NULL geometry column without DEFAULT was added hold an empty
		// value, which no statement may write back (error 1416), so an
		// UPDATE leaves a column it did not change alone.
		p.changedOnly, p.upsertMany = true, false
		p.updateMany = p.updateMany && p.updateCase
	}
	s.plans[t] = p
	return p, nil
}

// ApplyGroup writes a group as one target transaction with its applied
// record. If the server refuses the data, the group is applied again one
// source transaction and one row at a time, which either pinpoints the
// failing change or (when grouping caused it) applies it.
func (s *session) ApplyGroup(ctx context.Context, g *pipeline.Group, runStart model.Position) (bool, error) {
	err := s.txn(ctx, g.Changes, g.Txns, runStart, false)
	if err == nil {
		return false, nil
	}
	if !isDataError(err) || ctx.Err() != nil || (len(g.Txns) == 1 && len(g.Changes) <= 1) {
		return false, s.describe(err)
	}
	s.a.cfg.Log.Debug("apply: group failed, re-applying one transaction at a time", "txns", len(g.Txns), "error", err)
	for i, t := range g.Txns {
		if err := s.txn(ctx, g.One(i), []*model.Txn{t}, runStart, true); err != nil {
			return false, s.describe(err)
		}
	}
	s.a.cfg.Log.Warn("apply: a grouped target transaction failed but its source transactions applied one by one",
		"txns", len(g.Txns), "error", s.describe(err))
	return true, nil
}

// txn writes changes and the applied record of txns in one target
// transaction, again when the server rolled it back for a deadlock.
func (s *session) txn(ctx context.Context, cs []pipeline.Change, txns []*model.Txn, runStart model.Position, single bool) error {
	ends := make([]string, len(txns))
	for i, t := range txns {
		ends[i] = t.End.Key()
	}
	var start string
	if runStart != nil {
		start = runStart.Key()
	}
	applied, err := mysqlstate.InsertAppliedText(s.a.cfg.Stream, ends[len(ends)-1], ends, start,
		func(v string) string { return string(Quote(nil, v)) })
	if err != nil {
		return fmt.Errorf("apply: record applied transactions: %w", err)
	}
	for attempt := 0; ; attempt++ {
		err := s.runTxn(ctx, cs, applied, single)
		if err == nil || !isRetryable(err) || attempt >= lockRetries || ctx.Err() != nil {
			return err
		}
		s.a.cfg.Log.Debug("apply: target transaction rolled back by a lock conflict; running it again", "attempt", attempt+1, "error", err)
		time.Sleep(time.Duration(attempt+1) * 50 * time.Millisecond)
	}
}

// runTxn sends START TRANSACTION, the statements of cs and the applied
// record in as few round trips as the batch bound allows, checks every
// statement's rows, then commits: two round trips for a small group instead
// of one per statement plus begin, record and commit.
func (s *session) runTxn(ctx context.Context, cs []pipeline.Change, applied string, single bool) error {
	b := s.batch(single)
	err := b.add(ctx, []byte("START TRANSACTION"), 0, nil, 0)
	if err == nil && s.a.cfg.AppliedFirst {
		// First, so that its row event is the transaction's first in the
		// target's binlog: the loop marker of Config.AppliedFirst.
		err = b.add(ctx, []byte(applied), 1, nil, 0)
	}
	if err == nil {
		err = s.write(ctx, b, cs, single)
	}
	if err == nil && !s.a.cfg.AppliedFirst {
		err = b.add(ctx, []byte(applied), 1, nil, 0)
	}
	if err == nil {
		err = b.flush(ctx)
	}
	if err == nil {
		if _, err = s.conn.ExecContext(ctx, "COMMIT"); err == nil {
			return nil
		}
		err = fmt.Errorf("apply: commit: %w", err)
	}
	s.rollback(ctx)
	return err
}

// rollback ends the session's failed transaction. Should that fail, the
// connection is closed (the server rolls back): left open, the transaction
// would be committed by the next START TRANSACTION.
func (s *session) rollback(ctx context.Context) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if _, err := s.conn.ExecContext(rctx, "ROLLBACK"); err != nil {
		s.a.cfg.Log.Debug("apply: rollback failed; closing the session's connection", "error", err)
		_ = s.conn.Raw(func(any) error { return driver.ErrBadConn })
		_ = s.conn.Close()
	}
}

// write queues the statements of cs on b, in order, grouping consecutive
// changes of one op on one table version (inserts and deletes of a keyless
// table together: keyless.go); single makes a statement of every row, to
// pinpoint a failing one.
func (s *session) write(ctx context.Context, b *batch, cs []pipeline.Change, single bool) error {
	for i := 0; i < len(cs); {
		j := i + 1
		if !single && !s.a.cfg.Upsert.Has(cs[i].Table.TableID) && s.keylessRow(cs[i]) {
			for j < len(cs) && cs[j].Table == cs[i].Table && (cs[j].Op == model.Insert || cs[j].Op == model.Delete) {
				j++
			}
			if err := s.keylessSegment(ctx, b, cs[i:j]); err != nil {
				return err
			}
			i = j
			continue
		}
		for j < len(cs) && cs[j].Table == cs[i].Table && cs[j].Op == cs[i].Op {
			j++
		}
		if err := s.writeRun(ctx, b, cs[i:j], single); err != nil {
			return err
		}
		i = j
	}
	return nil
}

func (s *session) writeRun(ctx context.Context, b *batch, run []pipeline.Change, single bool) error {
	p, err := s.plan(run[0].Table)
	if err != nil {
		return &stmtError{ch: &run[0], err: err}
	}
	if s.a.cfg.Upsert.Has(run[0].Table.TableID) {
		return s.upserts(ctx, b, p, run)
	}
	switch run[0].Op {
	case model.Insert:
		return s.inserts(ctx, b, p, run, single)
	case model.Update:
		return s.updates(ctx, b, p, run, single)
	case model.Delete:
		return s.deletes(ctx, b, p, run, single)
	}
	return &stmtError{ch: &run[0], err: fmt.Errorf("unknown row operation %v", run[0].Op)}
}

// inserts queues a run of inserts as multi-row INSERT statements (a long
// run first as prepared ones: prepared.go).
func (s *session) inserts(ctx context.Context, b *batch, p *plan, run []pipeline.Change, single bool) error {
	if !single && len(run) >= minPrepared {
		var err error
		if run, err = s.insertPrepared(ctx, b, p, run); err != nil || len(run) == 0 {
			return err
		}
	}
	buf := b.stmt[:0]
	defer func() { b.stmt = buf }()
	for len(run) > 0 {
		buf = append(buf[:0], p.insertHead...)
		n := 0
		for n < len(run) && (n == 0 || !single && n < maxStmtRows && len(buf) < s.a.stmtBytes) {
			if n > 0 {
				buf = append(buf, ',')
			}
			var err error
			if buf, err = p.appendRow(buf, run[n].After); err != nil {
				return &stmtError{ch: &run[n], err: err}
			}
			n++
		}
		if err := b.add(ctx, buf, int64(n), &run[0], n); err != nil {
			return err
		}
		run = run[n:]
	}
	return nil
}

// deletes queues a run of deletes: by primary key several to a statement,
// one row per statement (LIMIT 1) for a keyless table (which write hands
// to keylessSegment unless single).
func (s *session) deletes(ctx context.Context, b *batch, p *plan, run []pipeline.Change, single bool) error {
	head := "DELETE FROM " + p.qtable + " WHERE "
	buf := b.stmt[:0]
	defer func() { b.stmt = buf }()
	for len(run) > 0 {
		buf = append(buf[:0], head...)
		n := 0
		for n < len(run) && (n == 0 || p.key != nil && !single && n < maxStmtRows && len(buf) < s.a.stmtBytes) {
			if n > 0 {
				buf = append(buf, " OR "...)
			}
			buf = append(buf, '(')
			var err error
			if buf, err = p.appendWhere(buf, run[n].Before); err != nil {
				return &stmtError{ch: &run[n], err: err}
			}
			buf = append(buf, ')')
			n++
		}
		if p.key == nil {
			buf = append(buf, " LIMIT 1"...)
		}
		if err := b.add(ctx, buf, int64(n), &run[0], n); err != nil {
			return err
		}
		run = run[n:]
	}
	return nil
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// execCheck runs one statement and checks the rows it affected (found rows,
// see Open): fewer means the target does not hold a row the source changed.
func execCheck(ctx context.Context, tx execer, q string, want int64, ch *pipeline.Change, rows int) error {
	res, err := tx.ExecContext(ctx, q)
	if err != nil {
		return &stmtError{sql: q, ch: ch, rows: rows, err: err}
	}
	got, err := res.RowsAffected()
	if err != nil {
		return &stmtError{sql: q, ch: ch, rows: rows, err: err}
	}
	if want >= 0 && got != want { // -1: not checked (upsert.go)
		return &stmtError{sql: q, ch: ch, rows: rows, err: fmt.Errorf("%w: affected %d rows, expected %d", errTargetDiverged, got, want)}
	}
	return nil
}

// BeginLarge opens the transaction of a fragmented source transaction.
func (s *session) BeginLarge(ctx context.Context) (pipeline.LargeTxn, error) {
	tx, err := s.conn.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("apply: begin: %w", err)
	}
	if s.a.cfg.AppliedFirst {
		// The loop marker (Config.AppliedFirst) before the first fragment's
		// rows; Commit deletes it with every applied record of the stream.
		q, err := mysqlstate.InsertAppliedText(s.a.cfg.Stream, largeMarker, []string{}, "",
			func(v string) string { return string(Quote(nil, v)) })
		if err == nil {
			_, err = tx.ExecContext(ctx, q)
		}
		if err != nil {
			_ = tx.Rollback()
			return nil, fmt.Errorf("apply: record a large transaction: %w", err)
		}
	}
	return &largeTxn{s: s, tx: tx}, nil
}

// largeMarker is the last_key of the applied record that opens a large
// transaction with AppliedFirst; it never outlives that transaction.
const largeMarker = "(large transaction)"

type largeTxn struct {
	s  *session
	tx *sql.Tx
}

// Write runs cs in the open transaction (the batch runs on the session's
// connection, which the transaction is on).
func (l *largeTxn) Write(ctx context.Context, cs []pipeline.Change) error {
	b := l.s.batch(false)
	b.locate = true
	err := l.s.write(ctx, b, cs, false)
	if err == nil {
		err = b.flush(ctx)
	}
	if err != nil {
		return l.s.describe(err)
	}
	return nil
}

// Commit saves st (which covers every applied record: a large transaction
// is a barrier) with the rows and commits.
func (l *largeTxn) Commit(ctx context.Context, st checkpoint.State) error {
	if err := mysqlstate.Save(ctx, l.tx, l.s.a.cfg.Stream, st); err != nil {
		return err
	}
	if err := mysqlstate.DeleteAllApplied(ctx, l.tx, l.s.a.cfg.Stream); err != nil {
		return err
	}
	if err := l.tx.Commit(); err != nil {
		return fmt.Errorf("apply: commit a large transaction: %w", err)
	}
	return nil
}

func (l *largeTxn) Rollback() { _ = l.tx.Rollback() }

// errTargetDiverged marks a statement that found the target different from
// the source (a row to update or delete is missing): never retried.
var errTargetDiverged = errors.New("the target does not hold the row the source changed (target diverged from source)")

// stmtError is a failed statement before it is described for the user.
type stmtError struct {
	sql  string
	ch   *pipeline.Change
	rows int
	err  error
}

func (e *stmtError) Error() string { return pipeline.Shorten(e.sql, 200) + ": " + e.err.Error() }
func (e *stmtError) Unwrap() error { return e.err }

// describe turns a failed statement into a pipeline.Error naming the source
// transaction, table, row key and SQL.
func (s *session) describe(err error) error {
	var se *stmtError
	if !errors.As(err, &se) || se.ch == nil {
		return err
	}
	ch := se.ch
	e := &pipeline.Error{SQL: se.sql, Err: se.err, Op: ch.Op}
	if ch.Table != nil {
		e.Table = ch.Table.TableID
	}
	if ch.Txn != nil {
		e.Position, e.GTID = ch.Txn.End, ch.Txn.GTID
	}
	img := ch.Before
	if img == nil {
		img = ch.After
	}
	if p, perr := s.plan(ch.Table); perr == nil {
		e.Key = p.keyString(img)
		if se.rows > 1 {
			e.Key = fmt.Sprintf("one of %d rows from %s", se.rows, e.Key)
		}
	}
	return e
}

// transactional reports whether a storage engine has transactions (an
// unknown engine is assumed to).
func transactional(engine string) bool {
	switch strings.ToLower(engine) {
	case "myisam", "aria", "memory", "heap", "csv", "archive", "merge", "mrg_myisam", "blackhole", "federated", "connect", "sequence":
		return false
	}
	return true
}

func nonTransactional(id schema.TableID, engine string) error {
	return fmt.Errorf("table %s uses the storage engine %s, which has no transactions: sluice commits rows together with "+
		"their applied record and cannot apply exactly once into it; run with --target-engine InnoDB (or ROCKSDB)", id, engine)
}

func oneDatabase(id schema.TableID, cfg Config) error {
	return fmt.Errorf("table %s: a MySQL target database receives the tables of one source database (%s into %s); "+
		"replicate each source database into its own target database with its own --stream", id, cfg.SourceDB, cfg.TargetDB)
}

// hasGeometry says whether t has a column of a spatial type.
func hasGeometry(t *schema.Table) bool {
	return slices.ContainsFunc(t.Columns, schema.Column.IsSpatial)
}
