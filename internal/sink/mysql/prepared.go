package mysql

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/schema"
)

// Long runs of inserts into one table go as server-side prepared multi-row
// INSERTs (the binary protocol): the server parses each statement once per
// session instead of once per group, and reads the values without their
// text. Measured applying 200k sysbench rows into MariaDB 10.11 through the
// sink, groups of 2000 rows into one table: MariaDB's CPU per row 5.45–5.9
// µs against 6.55–7.0 for the text INSERTs, sluice's about the same. Each
// prepared statement is a round trip of its own (the text ones share one),
// and for shorter runs the round trips cost what parsing saves: runs of 250
// rows (sysbench's 8 tables in groups of 2000 rows) used more CPU in all
// than text. So only runs of at least minPrepared rows use them
// (docs/reverse.md "### oltp_insert").
//
// Only columns whose value means the same as a parameter as it does as a
// literal (literal.go) qualify: integers (a number either way) and
// character and byte strings (a binary string either way, the session's
// connection charset being binary: conn.go). A table with any other
// written column, a value of an unexpected Go type, or rows larger than the
// statement bound go as text, as do the one-by-one retries.

// preparedRows are the row counts of the prepared INSERTs, largest first:
// two statements per table and session at most. A run of minPrepared rows
// or more goes in as many of them as fit, the rest as text (2000 rows: 3 ×
// 512, 3 × 128 and 80).
var preparedRows = [...]int{512, 128}

// minPrepared is the shortest run sent prepared: a shorter one (sysbench's
// 8 tables in groups of 2000 rows make runs of about 250) is cheaper as text.
const minPrepared = 512

// param converts one value of a column to its parameter; ok is false when
// the value has no parameter that means what its literal does.
type param func(v any, unsignedBits int) (any, bool)

// paramsOf returns the parameter converters of a plan's written columns,
// or nil when a column has none.
func paramsOf(t *schema.Table, cols []int) []param {
	ps := make([]param, len(cols))
	for n, i := range cols {
		c := t.Columns[i]
		switch c.DataType {
		case "tinyint", "smallint", "mediumint", "int", "integer", "bigint":
			ps[n] = intParam
		case "char", "varchar", "tinytext", "text", "mediumtext", "longtext",
			"varbinary", "tinyblob", "blob", "mediumblob", "longblob":
			ps[n] = stringParam
		default:
			return nil
		}
	}
	return ps
}

// intParam passes integers as integers: a negative value of an UNSIGNED
// column as the unsigned value it is (appendInt).
func intParam(v any, unsignedBits int) (any, bool) {
	var n int64
	switch x := v.(type) {
	case nil:
		return nil, true
	case int8:
		n = int64(x)
	case int16:
		n = int64(x)
	case int32:
		n = int64(x)
	case int64:
		n = x
	case int:
		n = int64(x)
	case uint8:
		return uint64(x), true
	case uint16:
		return uint64(x), true
	case uint32:
		return uint64(x), true
	case uint64:
		return x, true
	default:
		return nil, false
	}
	if u, ok := asUnsigned(n, unsignedBits); ok {
		return u, true
	}
	return n, true
}

// stringParam passes strings and bytes as byte strings. An empty []byte
// that is nil is passed as an empty one: the driver sends a nil []byte as
// NULL, and Quote writes either as the empty string.
func stringParam(v any, _ int) (any, bool) {
	switch x := v.(type) {
	case nil:
		return nil, true
	case string:
		return x, true
	case []byte:
		if x == nil {
			return []byte{}, true
		}
		return x, true
	}
	return nil, false
}

// preparedKey names a prepared INSERT of a session: its plan and rows.
type preparedKey struct {
	p    *plan
	rows int
}

// insertPrepared sends the start of run as prepared INSERTs while it is at
// least minPrepared rows long, after the statements queued on b (which
// keeps their order), and returns the rest for the text INSERTs.
func (s *session) insertPrepared(ctx context.Context, b *batch, p *plan, run []pipeline.Change) ([]pipeline.Change, error) {
	if p.params == nil || s.noPrepare || len(run) < minPrepared {
		return run, nil
	}
	flushed := false
	for {
		k := 0
		for _, n := range preparedRows {
			if len(run) >= n {
				k = n
				break
			}
		}
		if k == 0 {
			return run, nil
		}
		args, ok := p.appendParams(s.args[:0], run[:k], s.a.stmtBytes)
		s.args = args
		if !ok {
			return run, nil
		}
		st := s.prepared(ctx, p, k)
		if st == nil {
			return run, nil
		}
		if !flushed {
			if err := b.flush(ctx); err != nil {
				return run, err
			}
			flushed = true
		}
		res, err := st.ExecContext(ctx, args...)
		clear(s.args) // drop the references to the rows' values
		q := p.insertHead + fmt.Sprintf("(… %d rows, prepared)", k)
		if err != nil {
			return run, &stmtError{sql: q, ch: &run[0], rows: k, err: err}
		}
		got, err := res.RowsAffected()
		if err != nil {
			return run, &stmtError{sql: q, ch: &run[0], rows: k, err: err}
		}
		if got != int64(k) {
			return run, &stmtError{sql: q, ch: &run[0], rows: k, err: fmt.Errorf("%w: affected %d rows, expected %d", errTargetDiverged, got, k)}
		}
		run = run[k:]
	}
}

// appendParams appends the parameters of rows, in the order of the
// INSERT's placeholders; ok is false when a value has no parameter or the
// values' bytes exceed limit.
func (p *plan) appendParams(args []any, rows []pipeline.Change, limit int) ([]any, bool) {
	size := 0
	for r := range rows {
		img := rows[r].After
		if len(img) < len(p.table.Columns) {
			return args, false // the text INSERT names the error
		}
		for n, i := range p.cols {
			v, ok := p.params[n](img[i], p.unsigned[n])
			if !ok {
				return args, false
			}
			switch x := v.(type) {
			case string:
				size += len(x)
			case []byte:
				size += len(x)
			default:
				size += 8
			}
			args = append(args, v)
		}
	}
	return args, size <= limit
}

// prepared returns the session's prepared INSERT of rows rows of p,
// preparing it the first time; nil when the server refuses to prepare it
// (max_prepared_stmt_count, for one), after which the session sends text.
func (s *session) prepared(ctx context.Context, p *plan, rows int) *sql.Stmt {
	key := preparedKey{p, rows}
	if st, ok := s.stmts[key]; ok {
		return st
	}
	q := make([]byte, 0, len(p.insertHead)+rows*(2*len(p.cols)+2))
	q = append(q, p.insertHead...)
	for r := 0; r < rows; r++ {
		if r > 0 {
			q = append(q, ',')
		}
		q = append(q, '(')
		for n := range p.cols {
			if n > 0 {
				q = append(q, ',')
			}
			q = append(q, '?')
		}
		q = append(q, ')')
	}
	st, err := s.conn.PrepareContext(ctx, string(q))
	if err != nil {
		// The text INSERTs that follow meet a lost connection themselves.
		s.noPrepare = true
		s.a.cfg.Log.Info("apply: the target did not prepare an INSERT; this session sends its rows as text", "table", p.table.TableID, "error", err)
		return nil
	}
	if s.stmts == nil {
		s.stmts = map[preparedKey]*sql.Stmt{}
	}
	s.stmts[key] = st
	return st
}

// closePrepared closes the session's prepared statements (their plans are
// being dropped).
func (s *session) closePrepared() {
	for k, st := range s.stmts {
		_ = st.Close()
		delete(s.stmts, k)
	}
}
