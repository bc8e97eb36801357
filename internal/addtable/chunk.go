package addtable

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/go-sql-driver/mysql"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlog"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/source/mysql/consistent"
	"github.com/sluice-db/sluice/internal/window"
)

// LockWaitSeconds is the chunk session's innodb_lock_wait_timeout: a
// source transaction that holds a chunk's rows longer makes the window
// retry (IsLockWait) instead of queueing the source's writers behind the
// chunk's share locks.
const LockWaitSeconds = 2

// Chunker reads a table being added one window's chunk at a time, with
// nothing but SELECT and the position statements (REPLICATION CLIENT):
// the low watermark, one locking read of the next rows in key order, the
// high watermark (docs/design/issue23-plan.md, step 2).
type Chunker struct {
	src   *binlog.Source
	info  binlog.SourceInfo
	conn  *sql.Conn
	table *schema.Table
	key   *consistent.Key
	keyAt []int // the key columns' places in the row
	sel   []string
	n     int
}

// Chunk is one window's read.
type Chunk struct {
	Low, High binlogpos.Position
	// Rows are the row images in the select list's order, text protocol
	// bytes (nil: NULL), owned by the caller.
	Rows [][]any
	// Last is the key of the last row (nil: no row), the next read's bound.
	Last consistent.Bound
	// Done: fewer rows than asked for, the table's range is exhausted.
	Done bool
}

// NewChunker prepares the reads of t on conn, a session of its own
// (autocommit), n rows per chunk. sel is one select expression per column
// of t (the engine's snapshot encoding); the key columns must be read as
// they are, so that a row's key is its bound and window.Key's identity.
func NewChunker(ctx context.Context, src *binlog.Source, info binlog.SourceInfo, conn *sql.Conn, t *schema.Table, sel []string, n int) (*Chunker, error) {
	if len(sel) != len(t.Columns) {
		return nil, fmt.Errorf("%s: %d select expressions for %d columns", t.TableID, len(sel), len(t.Columns))
	}
	kc, err := window.KeyColumnsOf(t)
	if err != nil {
		return nil, err
	}
	key, err := consistent.NewKey(t)
	if err != nil {
		return nil, err
	}
	c := &Chunker{src: src, info: info, conn: conn, table: t, key: key, sel: sel, n: n}
	for _, k := range kc {
		if name := schema.QuoteMySQL(t.Columns[k.Index].Name); sel[k.Index] != name {
			return nil, fmt.Errorf("%s: key column %s is read as %s; the online copy reads key columns as they are", t.TableID, name, sel[k.Index])
		}
		c.keyAt = append(c.keyAt, k.Index)
	}
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("SET SESSION innodb_lock_wait_timeout = %d", LockWaitSeconds)); err != nil {
		return nil, fmt.Errorf("source: set the chunk session's lock wait: %w", err)
	}
	return c, nil
}

// Read is the next chunk after the bound (nil: from the start).
func (c *Chunker) Read(ctx context.Context, after consistent.Bound) (*Chunk, error) {
	q, err := consistent.WindowQuery(c.key, c.table.TableID, c.sel, "", after, c.n)
	if err != nil {
		return nil, err
	}
	ch := &Chunk{}
	if ch.Low, err = c.src.MasterStatus(ctx, c.info); err != nil {
		return nil, err
	}
	if ch.Rows, err = c.rows(ctx, q); err != nil {
		return nil, fmt.Errorf("source: read a chunk of %s after %q: %w", c.table.TableID, after, err)
	}
	if ch.High, err = c.src.MasterStatus(ctx, c.info); err != nil {
		return nil, err
	}
	ch.Done = len(ch.Rows) < c.n
	if len(ch.Rows) > 0 {
		last := ch.Rows[len(ch.Rows)-1]
		for _, i := range c.keyAt {
			b, ok := last[i].([]byte)
			if !ok {
				return nil, fmt.Errorf("source: %s: a NULL in key column %s", c.table.TableID, c.table.Columns[i].Name)
			}
			ch.Last = append(ch.Last, b)
		}
	}
	return ch, nil
}

// rows runs the locking read and copies its rows out of the driver's
// buffers.
func (c *Chunker) rows(ctx context.Context, q consistent.Query) ([][]any, error) {
	rs, err := consistent.Read(ctx, c.conn, q)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out [][]any
	for rs.Next() {
		vals := rs.Values()
		row := make([]any, len(vals))
		for i, v := range vals {
			if v != nil {
				row[i] = append([]byte{}, v...)
			}
		}
		out = append(out, row)
	}
	return out, rs.Err()
}

// IsLockWait reports a chunk read that gave up on a source transaction's
// locks (ER_LOCK_WAIT_TIMEOUT), or that InnoDB chose as a deadlock's
// victim (ER_LOCK_DEADLOCK: a writer of the chunk's rows waits for the
// read's share lock of one row while holding another): read the window
// again later.
func IsLockWait(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && (me.Number == 1205 || me.Number == 1213)
}
