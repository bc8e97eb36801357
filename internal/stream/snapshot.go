package stream

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"github.com/sluice-db/sluice/internal/rowpolicy"
	"log/slog"
	"strconv"
	"time"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/replicate"
	"github.com/sluice-db/sluice/internal/schema"
	kafkasink "github.com/sluice-db/sluice/internal/sink/kafka"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/source/mysql/consistent"
	"github.com/sluice-db/sluice/internal/typemap"
)

// DefaultChunkRows is the rows per snapshot chunk (one Kafka transaction).
const DefaultChunkRows = 20000

// copier copies the tables of one shard's snapshot at one consistent point,
// chunk by chunk, each chunk in one Kafka transaction with its progress.
type copier struct {
	sink  *kafkasink.Sink
	store *kafkasink.Store
	conn  *sql.Conn
	pos   binlogpos.Position
	at    time.Time
	rows  int64 // per chunk
	log   *slog.Logger
	// policy is --where (in each chunk's SELECT) and --mask (on each row read).
	policy *rowpolicy.Policy
}

// copyAll copies what the store's progress says is still to copy of
// tables, then marks the snapshot done.
func (c *copier) copyAll(ctx context.Context, tables []*schema.Table) (int64, error) {
	var todo []*schema.Table
	for _, t := range tables {
		if in, done, _ := c.store.CopyState(t.TableID); in && !done {
			todo = append(todo, t)
		}
	}
	var rows int64
	final := false
	for i, t := range todo {
		n, fin, err := c.copyTable(ctx, t, todo[i+1:])
		rows += n
		if err != nil {
			return rows, err
		}
		final = final || fin
	}
	if !final {
		return rows, c.sink.FinishSnapshot(ctx, c.at)
	}
	return rows, nil
}

// copyTable copies table t from its last copied key on. Its chunks are key
// ranges when its key orders in Go as in MySQL (a resume can then split its
// changes at the copied key); any other table is one chunk (table
// granularity). It returns whether its last chunk ended the snapshot.
func (c *copier) copyTable(ctx context.Context, t *schema.Table, rest []*schema.Table) (int64, bool, error) {
	var key *consistent.Key
	if c.sink.GoOrdered(t) {
		k, err := consistent.NewKey(t)
		if err == nil {
			key = k
		}
	}
	_, _, lo := c.store.CopyState(t.TableID)
	if key == nil && lo != nil {
		return 0, false, fmt.Errorf("snapshot %s: copied up to a key that no longer orders as before (its key changed during the snapshot); "+
			"fix: drop the stream (sluice drop) and start it anew", t.TableID)
	}
	selects := make([]string, len(t.Columns))
	cols, plain := make([]int, len(t.Columns)), make([]bool, len(t.Columns))
	for i, col := range t.Columns {
		selects[i] = typemap.SelectExpr(col, consistent.QuoteMy(col.Name))
		cols[i], plain[i] = i, selects[i] == consistent.QuoteMy(col.Name)
	}
	policy, err := c.policy.ForRead(t, cols, plain)
	if err != nil {
		return 0, false, err
	}
	var rows int64
	for {
		hi, err := c.nextBound(ctx, key, t.TableID, lo)
		if err != nil {
			return rows, false, err
		}
		final := false
		if hi == nil {
			if final, err = c.allEmpty(ctx, rest); err != nil {
				return rows, false, err
			}
		}
		q, err := consistent.ChunkQuery(key, t.TableID, selects, policy.Where, lo, hi)
		if err != nil {
			return rows, false, fmt.Errorf("snapshot %s: %w", t.TableID, err)
		}
		rs, err := consistent.Read(ctx, c.conn, q)
		if err != nil {
			return rows, false, fmt.Errorf("snapshot %s: %w", t.TableID, err)
		}
		rs.SetMask(policy.Mask)
		n, err := c.sink.CopyChunk(ctx, kafkasink.Chunk{T: t, Rows: rs, Hi: hi, Pos: c.pos, At: c.at, Final: final})
		rows += n
		if err != nil || hi == nil {
			return rows, final, err
		}
		lo = hi
	}
}

// nextBound is the upper key of the chunk after lo, nil when it is the
// table's last (also when no row follows it: the last row then is marked).
func (c *copier) nextBound(ctx context.Context, key *consistent.Key, id schema.TableID, lo consistent.Bound) (consistent.Bound, error) {
	if key == nil {
		return nil, nil
	}
	hi, err := key.NextBound(ctx, c.conn, id, lo, c.rows)
	if err != nil || hi == nil {
		return nil, err
	}
	more, err := key.NextBound(ctx, c.conn, id, hi, 1)
	if err != nil || more == nil {
		return nil, err
	}
	return hi, nil
}

// allEmpty reports whether none of tables has a row (in the snapshot).
func (c *copier) allEmpty(ctx context.Context, tables []*schema.Table) (bool, error) {
	for _, t := range tables {
		var one int
		err := c.conn.QueryRowContext(ctx, "SELECT 1 FROM "+consistent.QuoteTable(t.TableID)+" LIMIT 1").Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return false, fmt.Errorf("snapshot %s: %w", t.TableID, err)
		}
		return false, nil
	}
	return true, nil
}

// catchUp replays the binlog of a resumed snapshot from the committed
// position to pos, the new consistent point (VReplication's catch-up):
// through replicate's pipeline into the Kafka sink, which writes only the
// changes of rows already copied (their later rows are read at pos) and
// nothing beyond pos. The store must be closed: the replay's producer
// takes the stream's transactional.id.
func catchUp(ctx context.Context, o Options, src config.MySQL, cfg kafkasink.Config, pos binlogpos.Position, log *slog.Logger) error {
	c := kafkasink.NewCatchUp(pos)
	cfg.CatchUp = c
	rctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		select {
		case <-c.Reached():
			stop()
		case <-rctx.Done():
		}
	}()
	began := time.Now()
	err := replicate.Run(rctx, replicate.Options{
		Source: src, Target: kafkasink.NewEngine(cfg), Stream: cfg.Stream, Include: o.Include, Exclude: o.Exclude,
		Workers: 1, MaxTxnMemory: o.MaxTxnMemory, Log: log, StatusEvery: o.StatusEvery, RowPolicy: o.RowPolicy,
	})
	select {
	case <-c.Reached():
	default:
		if err == nil {
			err = ctx.Err()
		}
		if err == nil {
			err = errors.New("the replay stopped before the consistent point")
		}
		return fmt.Errorf("stream: resume the snapshot: catch up to %s: %w", pos, err)
	}
	if err != nil && !errors.Is(err, kafkasink.ErrCaughtUp) && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("stream: resume the snapshot: catch up to %s: %w", pos, err)
	}
	log.Info("stream: snapshot catch-up done", "position", pos.String(),
		"seconds", strconv.FormatFloat(time.Since(began).Seconds(), 'f', 1, 64))
	return nil
}
