package kafka

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/source/mysql/consistent"
)

// RecordStart writes schema version 1 (tables) and the state at pos in one
// Kafka transaction: the start of a stream without a snapshot.
func (s *Store) RecordStart(ctx context.Context, pos model.Position, tables []*schema.Table) error {
	return s.recordStart(ctx, pos, tables, func(*stateRecord) {})
}

// BeginSnapshot starts a chunked snapshot at pos: schema version 1 (tables)
// and the state at pos with every table in scope still to copy, in one
// Kafka transaction. CopyChunk then writes the rows chunk by chunk.
func (s *Store) BeginSnapshot(ctx context.Context, pos model.Position, tables []*schema.Table) error {
	prog := &copyProgress{Tables: map[string]*copyTable{}}
	for _, t := range tables {
		if t.LeftOut == "" {
			prog.Tables[copyKey(t.TableID)] = &copyTable{}
		}
	}
	return s.recordStart(ctx, pos, tables, func(r *stateRecord) { r.Snapshot, r.Copy = "copying", prog })
}

// recordStart commits schema version 1 and the state at pos, changed by f.
func (s *Store) recordStart(ctx context.Context, pos model.Position, tables []*schema.Table, f func(*stateRecord)) error {
	sr, err := s.schemaRec(schemaRecord{Version: 1, Position: pos.Encode(), Tables: tables})
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	next := s.next(func(r *stateRecord) {
		r.Position, r.SchemaVersion, r.Applied = pos.Encode(), 1, nil
		f(r)
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

// CopyState says what of table id the snapshot being copied holds: in
// the snapshot at all, copied whole, and the key of its last copied row.
func (s *Store) CopyState(id schema.TableID) (inCopy, done bool, last consistent.Bound) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == nil || s.state.Copy == nil {
		return false, false, nil
	}
	ct, ok := s.state.Copy.Tables[copyKey(id)]
	if !ok {
		return false, false, nil
	}
	return true, ct.Done, ct.Last
}

// Chunk is one chunk of a snapshot for CopyChunk: the rows of table T read
// at the consistent point Pos (whose reading started at At), up to the key
// Hi (nil: the rest of the table). Final says no row of the snapshot
// follows: its last row is marked "last" and the snapshot is done.
type Chunk struct {
	T     *schema.Table
	Rows  *consistent.Rows
	Hi    consistent.Bound
	Pos   binlogpos.Position
	At    time.Time
	Final bool
}

// CopyChunk writes the rows of one chunk as op "r" events and the state
// with the table's progress (its last key, or done) in one Kafka
// transaction: a run killed anywhere leaves whole chunks, each with the
// progress that covers it. The producer's buffer bounds memory.
func (s *Sink) CopyChunk(ctx context.Context, c Chunk) (rows int64, err error) {
	st := s.store
	st.mu.Lock()
	defer st.mu.Unlock()
	var next *stateRecord
	err = st.transactStream(ctx, func(send func(...*kgo.Record)) error {
		n, err := s.chunkRecords(ctx, c, send)
		rows = n
		if err != nil {
			return err
		}
		next, err = st.sendState(send, func(r *stateRecord) { finishChunk(r, c) })
		return err
	})
	if err != nil {
		return rows, fmt.Errorf("snapshot %s: %w", c.T.TableID, err)
	}
	st.state = next
	return rows, nil
}

// finishChunk moves the state past chunk c.
func finishChunk(r *stateRecord, c Chunk) {
	if r.Copy == nil {
		r.Copy = &copyProgress{Tables: map[string]*copyTable{}}
	}
	tables := make(map[string]*copyTable, len(r.Copy.Tables))
	for k, v := range r.Copy.Tables {
		tables[k] = v
	}
	tables[copyKey(c.T.TableID)] = &copyTable{Done: c.Hi == nil, Last: c.Hi}
	r.Copy = &copyProgress{Tables: tables}
	if c.Final {
		r.Snapshot, r.Copy, r.Applied = "done", nil, nil
		r.SourceTime = c.At
	}
}

// FinishSnapshot marks the snapshot done when no chunk was Final (every
// table was copied before, or the last ones are empty).
func (s *Sink) FinishSnapshot(ctx context.Context, at time.Time) error {
	return s.commit(ctx, nil, func(r *stateRecord) {
		r.Snapshot, r.Copy, r.Applied, r.SourceTime = "done", nil, nil, at
	})
}

// chunkRecords sends the "r" events of a chunk's rows. Each row is sent
// when the next one is read, so that the very last one of the snapshot can
// say source.snapshot "last", as Debezium's does.
func (s *Sink) chunkRecords(ctx context.Context, c Chunk, send func(...*kgo.Record)) (int64, error) {
	defer c.Rows.Close()
	var held *model.RowChange
	emit := func(rc *model.RowChange, snap string) error {
		recs, err := s.rowRecords(rc, origin{pos: c.Pos, commit: c.At, snapshot: snap}, 0, true)
		if err != nil {
			return err
		}
		if err := s.checkRecords(ctx, recs); err != nil {
			return err
		}
		send(recs...)
		return nil
	}
	var n int64
	for c.Rows.Next() {
		if held != nil {
			if err := emit(held, "true"); err != nil {
				return n, err
			}
		}
		vals := make([]any, len(c.Rows.Values()))
		for i, b := range c.Rows.Values() {
			if b != nil { // a copy (non-nil when empty): the values are reused by the next row
				vals[i] = append(make([]byte, 0, len(b)), b...)
			}
		}
		held = &model.RowChange{Op: model.Insert, Table: c.T, After: vals}
		n++
	}
	if err := c.Rows.Err(); err != nil {
		return n, err
	}
	if held == nil {
		return n, nil
	}
	snap := "true"
	if c.Final {
		snap = "last"
	}
	return n, emit(held, snap)
}
