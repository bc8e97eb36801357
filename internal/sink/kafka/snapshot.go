package kafka

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/source/mysql/consistent"
	"github.com/sluice-db/sluice/internal/target"
)

// RecordStart writes schema version 1 (tables) and the state at pos in one
// Kafka transaction: the start of a stream without a snapshot.
func (s *Store) RecordStart(ctx context.Context, pos model.Position, tables []*schema.Table) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.recordStart(ctx, pos, tables, nil, func(*stateRecord) {})
}

// recordStart commits schema version 1, the state at pos changed by f, and
// extra records; the caller holds s.mu.
func (s *Store) recordStart(ctx context.Context, pos model.Position, tables []*schema.Table, extra []*kgo.Record, f func(*stateRecord)) error {
	sr, err := s.schemaRec(schemaRecord{Version: 1, Position: pos.Encode(), Tables: tables})
	if err != nil {
		return err
	}
	next := s.next(func(r *stateRecord) {
		r.Position, r.SchemaVersion, r.Applied = pos.Encode(), 1, nil
		f(r)
	})
	rec, err := s.stateRec(next)
	if err != nil {
		return err
	}
	recs := append(append([]*kgo.Record{sr}, extra...), rec)
	if _, err := s.transact(ctx, func() ([]*kgo.Record, error) { return recs, nil }); err != nil {
		return err
	}
	s.state = next
	s.schemas = append(s.schemas, schemaRecord{Stream: s.cfg.Stream, Version: 1, Tables: tables})
	return nil
}

// BeginPass starts a pass of the snapshot at the consistent point pos
// (target.EventWriter). The first records the snapshot's start: schema
// version 1 and the state at pos with every table still to copy. A later
// one (a resumed run) first replays the binlog from the committed position
// up to pos (SnapshotOptions.CatchUp), which writes the changes of the
// rows already copied only (keep): those rows are then as of pos, like the
// ones this pass copies. s, the runner's records, is committed last.
func (b *bulk) BeginPass(ctx context.Context, pos model.Position, tables []*schema.Table, s target.BulkState) error {
	bp, err := binlogpos.From(pos)
	if err != nil {
		return fmt.Errorf("kafka: snapshot position: %w", err)
	}
	st, _, err := b.store.State()
	if err != nil {
		return err
	}
	if st != nil && st.Position.Compare(pos) < 0 {
		if err := b.catchUp(ctx, st.Position, pos); err != nil {
			return err
		}
	}
	if st == nil {
		err = b.recordSnapshotStart(ctx, pos, tables, s)
	} else {
		_, err = b.saveBulk(ctx, s)
	}
	if err != nil {
		return err
	}
	// Every table's topic in one request now, not one by one from within
	// the chunks' transactions (topics.go).
	topics := make([]string, len(tables))
	for i, t := range tables {
		topics[i] = b.cfg.TableTopic(t.TableID)
	}
	if err := b.store.ensureDataTopics(ctx, topics); err != nil {
		return err
	}
	b.pos, b.at = bp, time.Now()
	if b.o.Began != nil {
		b.o.Began(pos, len(tables), st != nil)
	}
	return nil
}

// recordSnapshotStart commits schema version 1, the state at pos with
// every table to copy, and the runner's records s, in one transaction.
func (b *bulk) recordSnapshotStart(ctx context.Context, pos model.Position, tables []*schema.Table, s target.BulkState) error {
	prog := &copyProgress{Tables: map[string]*copyTable{}}
	for _, t := range tables {
		prog.Tables[copyKey(t.TableID)] = &copyTable{}
	}
	st := b.store
	st.mu.Lock()
	defer st.mu.Unlock()
	err := st.recordStart(ctx, pos, tables, st.bulkRecords(s), func(r *stateRecord) {
		r.Snapshot, r.Copy, r.SnapshotFrom = "copying", prog, b.from
	})
	if err != nil {
		return fmt.Errorf("kafka: record the snapshot's start: %w", err)
	}
	b.noteLive(s)
	return nil
}

// catchUp has the binlog from from to to replayed with this run's producer
// closed, then connects again (reading the state the replay left).
func (b *bulk) catchUp(ctx context.Context, from, to model.Position) error {
	if b.o.CatchUp == nil {
		return fmt.Errorf("kafka: resume the snapshot of stream %q: no catch-up to replay the binlog with", b.cfg.Stream)
	}
	b.Close()
	if err := b.o.CatchUp(ctx, from, to); err != nil {
		return err
	}
	return b.Connect(ctx)
}

// CopyEvents writes the rows of one chunk as op "r" events, the runner's
// done records and the state with the table's copy progress (its last
// key, or done) in one Kafka transaction (target.EventWriter): a run killed
// anywhere leaves whole chunks, each with the progress that covers it. The
// producer's buffer bounds memory.
func (b *bulk) CopyEvents(ctx context.Context, t target.BulkTable, rows *target.ChunkRows, c target.EventChunk,
	done func() target.BulkState) error {
	st := b.store
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := b.checkOrder(t.Source.TableID, c); err != nil {
		return err
	}
	var next *stateRecord
	var recs target.BulkState
	err := st.transactStream(ctx, func(send func(...*kgo.Record)) error {
		if err := b.sink.chunkRecords(ctx, t.Source, rows, origin{pos: b.pos, commit: b.at}, c.Last, send); err != nil {
			return err
		}
		recs = done()
		send(st.bulkRecords(recs)...)
		var err error
		next, err = st.sendState(send, func(r *stateRecord) { finishChunk(r, t.Source.TableID, c.Hi) })
		return err
	})
	if err != nil {
		return err
	}
	st.state = next
	b.noteLive(recs)
	return nil
}

// checkOrder refuses a chunk that does not continue its table's copied
// range: the copy progress is one key per table (copystate.go), so chunks
// are copied in key order, one at a time.
func (b *bulk) checkOrder(id schema.TableID, c target.EventChunk) error {
	var ct *copyTable
	if p := b.store.state; p != nil && p.Copy != nil {
		ct = p.Copy.Tables[copyKey(id)]
	}
	switch {
	case ct == nil:
		return fmt.Errorf("kafka: internal error: table %s is not in the snapshot's copy progress", id)
	case ct.Done:
		return fmt.Errorf("kafka: internal error: table %s is copied already", id)
	case !slices.EqualFunc(ct.Last, c.Lo, bytes.Equal):
		return fmt.Errorf("kafka: internal error: a chunk of %s from key %q where its copy got to %q (chunks are copied in key order)", id, c.Lo, ct.Last)
	}
	return nil
}

// finishChunk moves the state past the chunk of table id up to key hi
// (nil: the table's end).
func finishChunk(r *stateRecord, id schema.TableID, hi consistent.Bound) {
	if r.Copy == nil {
		r.Copy = &copyProgress{Tables: map[string]*copyTable{}}
	}
	tables := make(map[string]*copyTable, len(r.Copy.Tables))
	for k, v := range r.Copy.Tables {
		tables[k] = v
	}
	tables[copyKey(id)] = &copyTable{Done: hi == nil, Last: hi}
	r.Copy = &copyProgress{Tables: tables}
}

// Finish marks the snapshot done at pos, where replication continues, and
// deletes the runner's records, in one Kafka transaction: the stream is
// started and never runs its snapshot again.
func (b *bulk) Finish(ctx context.Context, pos model.Position, _ []*schema.Table, _ target.BulkState) error {
	gone := target.BulkState{}
	for k := range b.live {
		gone[k] = nil
	}
	st := b.store
	st.mu.Lock()
	defer st.mu.Unlock()
	err := b.sink.commitLocked(ctx, nil, st.bulkRecords(gone), func(r *stateRecord) {
		r.Snapshot, r.Copy, r.Applied, r.SourceTime, r.SnapshotFrom = "done", nil, nil, b.at, 0
		if pos != nil && st.newer(r, checkpoint.State{Position: pos, SchemaVersion: r.SchemaVersion}) {
			r.Position = pos.Encode()
		}
	})
	if err != nil {
		return err
	}
	b.noteLive(gone)
	return nil
}

// chunkRecords sends the "r" events of a chunk's rows (origin o). Each row
// is sent when the next one is read, so that the very last one of the
// snapshot (last: the chunk holds it) can say source.snapshot "last", as
// Debezium's does.
func (s *Sink) chunkRecords(ctx context.Context, t *schema.Table, rows *target.ChunkRows, o origin, last bool,
	send func(...*kgo.Record)) error {
	var held *model.RowChange
	emit := func(rc *model.RowChange, snap string) error {
		o.snapshot = snap
		recs, err := s.rowRecords(rc, o, 0, true)
		if err != nil {
			return err
		}
		if err := s.checkRecords(ctx, recs); err != nil {
			return err
		}
		send(recs...)
		return nil
	}
	for rows.Next() {
		if held != nil {
			if err := emit(held, "true"); err != nil {
				return err
			}
		}
		vals := make([]any, len(rows.Values()))
		for i, b := range rows.Values() {
			if b != nil { // a copy (non-nil when empty): the values are reused by the next row
				vals[i] = append(make([]byte, 0, len(b)), b...)
			}
		}
		held = &model.RowChange{Op: model.Insert, Table: t, After: vals}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if held == nil {
		return nil
	}
	snap := "true"
	if last {
		snap = "last"
	}
	return emit(held, snap)
}
