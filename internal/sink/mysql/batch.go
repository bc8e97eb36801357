package mysql

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/sluice-db/sluice/internal/pipeline"
)

// maxBatchStmts bounds the statements of one multi-statement round trip
// (the bytes are bounded by the sink's stmtBytes).
const maxBatchStmts = 1000

// batch sends the statements of a target transaction several to a round
// trip, as one multi-statement query (go-sql-driver does not pipeline, and
// one UPDATE per round trip made catch-up slower than the target's own
// replication). The statements run in order, exactly as they would one by
// one: the server stops at the first failing statement, and the affected
// row count of every statement is still checked (found rows, see Open), so
// a row missing on the target is still a divergence naming that row.
type batch struct {
	s *session
	// single sends every statement alone (the one-by-one retry that
	// pinpoints a failing row).
	single bool
	// locate sends a multi-row UPDATE last in its round trip and, when it
	// finds fewer rows than it updates, looks up which one is missing (a
	// large transaction, which has no one-by-one retry).
	locate bool
	buf    []byte
	stmts  []batchStmt
	// stmt is the statement being built (add copies it into buf); vals,
	// off and listed are updateCase's scratch: the encoded values of its
	// rows, where each ends and whether it is written. Reused, like buf,
	// by every target transaction.
	stmt   []byte
	vals   []byte
	off    []int
	listed []bool
}

// batchStmt is one statement of a batch: buf[from:to], the rows it must
// affect, and the change it names in an error (the first of rows changes).
type batchStmt struct {
	from, to int
	want     int64
	ch       *pipeline.Change
	rows     int
	// p and run are a multi-row UPDATE's plan and changes (for locate).
	p   *plan
	run []pipeline.Change
}

// batch returns the session's batch, emptied: one buffer per session,
// reused by every target transaction it sends (a session sends one at a
// time).
func (s *session) batch(single bool) *batch {
	if s.b == nil {
		s.b = &batch{s: s, buf: make([]byte, 0, 64<<10)}
	}
	b := s.b
	b.single, b.locate = single, false
	clear(b.stmts) // drop the last transaction's changes
	b.buf, b.stmts = b.buf[:0], b.stmts[:0]
	return b
}

// add queues statement q (copied), sending the queued ones first when q
// would make the round trip larger than the sink's statement bound.
func (b *batch) add(ctx context.Context, q []byte, want int64, ch *pipeline.Change, rows int) error {
	return b.addStmt(ctx, q, batchStmt{want: want, ch: ch, rows: rows})
}

// addUpdateMany queues a multi-row UPDATE of run.
func (b *batch) addUpdateMany(ctx context.Context, q []byte, p *plan, run []pipeline.Change) error {
	err := b.addStmt(ctx, q, batchStmt{want: int64(len(run)), ch: &run[0], rows: len(run), p: p, run: run})
	if err == nil && b.locate {
		err = b.flush(ctx)
	}
	return err
}

func (b *batch) addStmt(ctx context.Context, q []byte, st batchStmt) error {
	if len(b.stmts) > 0 && (len(b.buf)+1+len(q) > b.s.a.stmtBytes || len(b.stmts) >= maxBatchStmts) {
		if err := b.flush(ctx); err != nil {
			return err
		}
	}
	if len(b.stmts) > 0 {
		b.buf = append(b.buf, ';')
	}
	st.from = len(b.buf)
	b.buf = append(b.buf, q...)
	st.to = len(b.buf)
	b.stmts = append(b.stmts, st)
	if b.single {
		return b.flush(ctx)
	}
	return nil
}

// flush sends the queued statements and checks each one's affected rows.
func (b *batch) flush(ctx context.Context) error {
	defer func() {
		b.buf = b.buf[:0]
		b.stmts = b.stmts[:0]
	}()
	switch len(b.stmts) {
	case 0:
		return nil
	case 1:
		st := b.stmts[0]
		return b.located(ctx, st, execCheck(ctx, b.s.conn, string(b.buf), st.want, st.ch, st.rows))
	}
	q := string(b.buf)
	got, err := b.s.execMulti(ctx, q)
	if err != nil {
		// The driver does not say which statement failed: the error names
		// the batch's first change (a group is then applied again one row
		// at a time, which names the failing one).
		var ch *pipeline.Change
		rows := 0
		for _, st := range b.stmts {
			if ch == nil {
				ch = st.ch
			}
			rows += st.rows
		}
		return &stmtError{sql: q, ch: ch, rows: rows, err: err}
	}
	if len(got) != len(b.stmts) {
		return &stmtError{sql: q, err: fmt.Errorf("the target answered %d statements of %d", len(got), len(b.stmts))}
	}
	for i, st := range b.stmts {
		if st.want >= 0 && got[i] != st.want {
			return b.located(ctx, st, &stmtError{sql: q[st.from:st.to], ch: st.ch, rows: st.rows,
				err: fmt.Errorf("%w: affected %d rows, expected %d", errTargetDiverged, got[i], st.want)})
		}
	}
	return nil
}

// located names the missing row of a multi-row UPDATE that found fewer
// rows than it updates, when the batch locates (it then ran last in its
// round trip: nothing after it changed the rows since). Its rows keep their
// keys (update_many.go), so the one the target does not hold by its key is
// the missing one.
func (b *batch) located(ctx context.Context, st batchStmt, err error) error {
	var se *stmtError
	if !b.locate || st.p == nil || !errors.As(err, &se) || !errors.Is(err, errTargetDiverged) {
		return err
	}
	buf := make([]byte, 0, 256)
	for i := range st.run {
		buf = append(buf[:0], "SELECT COUNT(*) FROM "...)
		buf = append(buf, st.p.qtable...)
		buf = append(buf, " WHERE "...)
		var lerr error
		if buf, lerr = st.p.appendWhere(buf, st.run[i].Before); lerr != nil {
			return err
		}
		var n int
		if lerr := b.s.conn.QueryRowContext(ctx, string(buf)).Scan(&n); lerr != nil {
			return err
		}
		if n == 0 {
			se.ch, se.rows = &st.run[i], 1
			return se
		}
	}
	return err
}

// execMulti runs a multi-statement query on the session's connection (in
// its open transaction) and returns the affected rows of each statement,
// which database/sql's Result does not expose.
func (s *session) execMulti(ctx context.Context, q string) ([]int64, error) {
	var got []int64
	err := s.conn.Raw(func(dc any) error {
		ex, ok := dc.(driver.ExecerContext)
		if !ok {
			return fmt.Errorf("the MySQL driver's connection %T cannot execute", dc)
		}
		res, err := ex.ExecContext(ctx, q, nil)
		if err != nil {
			return err
		}
		r, ok := res.(gomysql.Result)
		if !ok {
			return fmt.Errorf("the MySQL driver's result %T has no per-statement row counts", res)
		}
		got = r.AllRowsAffected()
		return nil
	})
	return got, err
}
