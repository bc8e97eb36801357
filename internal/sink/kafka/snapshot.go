package kafka

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/source/mysql/consistent"
	"github.com/sluice-db/sluice/internal/typemap"
)

// RecordStart writes schema version 1 (tables) and the state at pos in one
// Kafka transaction: the start of a stream without a snapshot.
func (s *Store) RecordStart(ctx context.Context, pos model.Position, tables []*schema.Table) error {
	sr, err := s.schemaRec(schemaRecord{Version: 1, Position: pos.Encode(), Tables: tables})
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	next := s.next(func(r *stateRecord) {
		r.Position, r.SchemaVersion, r.Applied = pos.Encode(), 1, nil
	})
	rec, err := s.stateRec(next)
	if err != nil {
		return err
	}
	if _, err := s.transact(ctx, func() ([]*kgo.Record, error) { return []*kgo.Record{sr, rec}, nil }); err != nil {
		return err
	}
	s.state = next
	s.schemas = append(s.schemas, schemaRecord{Stream: s.cfg.Stream, Version: 1, Tables: tables})
	return nil
}

// Snapshot writes every row of tables, read on conn (a session inside the
// consistent snapshot at pos), as op "r" events, then schema version 1 and
// the state at pos, all in ONE Kafka transaction: a run killed during the
// snapshot leaves nothing a read_committed consumer sees, and the next run
// snapshots again. The producer's buffer bounds memory; the transaction
// must finish within its timeout (10 minutes; docs/kafka.md).
func (s *Sink) Snapshot(ctx context.Context, conn *sql.Conn, tables []*schema.Table, pos binlogpos.Position, at time.Time) (rows int64, err error) {
	st := s.store
	sr, err := st.schemaRec(schemaRecord{Version: 1, Position: pos.Encode(), Tables: tables})
	if err != nil {
		return 0, err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := st.cl.BeginTransaction(); err != nil {
		return 0, fmt.Errorf("kafka: begin transaction: %w", err)
	}
	committed := false
	defer func() {
		if !committed {
			actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			defer cancel()
			_ = st.cl.AbortBufferedRecords(actx)
			_ = st.cl.EndTransaction(actx, kgo.TryAbort)
		}
	}()
	var (
		pmu     sync.Mutex
		prodErr error
	)
	produce := func(r *kgo.Record) {
		st.cl.Produce(ctx, r, func(_ *kgo.Record, err error) {
			if err != nil {
				pmu.Lock()
				if prodErr == nil {
					prodErr = err
				}
				pmu.Unlock()
			}
		})
	}
	// Each row is written when the next one is read, so that the very last
	// one can say source.snapshot "last", as Debezium's does.
	var held *model.RowChange
	emit := func(rc *model.RowChange, snap string) error {
		recs, err := s.rowRecords(rc, origin{pos: pos, commit: at, snapshot: snap}, 0, true)
		if err != nil {
			return fmt.Errorf("snapshot %s: %w", rc.Table.TableID, err)
		}
		if err := s.checkRecords(ctx, recs); err != nil {
			return err
		}
		for _, r := range recs {
			produce(r)
		}
		return nil
	}
	next := func(rc *model.RowChange) error {
		if held != nil {
			if err := emit(held, "true"); err != nil {
				return err
			}
		}
		held = rc
		return nil
	}
	for _, t := range tables {
		if t.LeftOut != "" {
			continue
		}
		n, err := s.snapshotTable(ctx, conn, t, next)
		if err != nil {
			return rows, err
		}
		rows += n
	}
	if held != nil {
		if err := emit(held, "last"); err != nil {
			return rows, err
		}
	}
	state := st.next(func(r *stateRecord) {
		r.Position, r.SchemaVersion, r.Applied, r.Snapshot = pos.Encode(), 1, nil, "done"
		r.SourceTime = at
	})
	rec, err := st.stateRec(state)
	if err != nil {
		return rows, err
	}
	if err := st.cl.ProduceSync(ctx, sr, rec).FirstErr(); err != nil {
		return rows, err
	}
	if err := st.cl.Flush(ctx); err != nil {
		return rows, err
	}
	pmu.Lock()
	perr := prodErr
	pmu.Unlock()
	if perr != nil {
		return rows, fmt.Errorf("kafka: snapshot: %w", perr)
	}
	if err := st.cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
		return rows, fmt.Errorf("kafka: commit the snapshot transaction: %w", err)
	}
	committed = true
	st.state = state
	st.schemas = append(st.schemas, schemaRecord{Stream: s.cfg.Stream, Version: 1, Tables: tables})
	return rows, nil
}

func (s *Sink) snapshotTable(ctx context.Context, conn *sql.Conn, t *schema.Table, next func(*model.RowChange) error) (int64, error) {
	exprs := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		exprs[i] = typemap.SelectExpr(c, consistent.QuoteMy(c.Name))
	}
	q := "SELECT " + strings.Join(exprs, ", ") + " FROM " + consistent.QuoteTable(t.TableID)
	rs, err := conn.QueryContext(ctx, q)
	if err != nil {
		return 0, fmt.Errorf("snapshot %s: %w", t.TableID, err)
	}
	defer rs.Close()
	raw := make([]sql.RawBytes, len(t.Columns))
	ptrs := make([]any, len(raw))
	for i := range raw {
		ptrs[i] = &raw[i]
	}
	var n int64
	for rs.Next() {
		if err := rs.Scan(ptrs...); err != nil {
			return n, fmt.Errorf("snapshot %s: %w", t.TableID, err)
		}
		vals := make([]any, len(raw))
		for i, b := range raw {
			if b != nil { // a copy (non-nil when empty): RawBytes is reused by the next Scan
				c := make([]byte, len(b))
				copy(c, b)
				vals[i] = c
			}
		}
		if err := next(&model.RowChange{Op: model.Insert, Table: t, After: vals}); err != nil {
			return n, err
		}
		n++
	}
	if err := rs.Err(); err != nil {
		return n, fmt.Errorf("snapshot %s: %w", t.TableID, err)
	}
	return n, nil
}
