package fileengine

import (
	"context"
	"fmt"
	"strings"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
)

// sink writes a run's changes as log records (pipeline.Sink): a group, a
// schema change or a large transaction is one record with its applied
// record or checkpoint, so it commits whole or not at all.
type sink struct{ s *store }

func (k *sink) Open(context.Context) (*pipeline.State, []pipeline.AppliedRow, error) {
	k.s.mu.Lock()
	defer k.s.mu.Unlock()
	st, err := decodeState(k.s.d.state)
	if err != nil {
		return nil, nil, err
	}
	var applied []pipeline.AppliedRow
	for _, a := range k.s.d.applied {
		row, err := decodeApplied(a)
		if err != nil {
			return nil, nil, err
		}
		applied = append(applied, row)
	}
	return st, applied, nil
}

func decodeApplied(a appliedRec) (pipeline.AppliedRow, error) {
	var row pipeline.AppliedRow
	var err error
	if row.Last, err = binlogpos.Decode(a.Last); err != nil {
		return row, fmt.Errorf("target: applied record: %w", err)
	}
	if row.Start, err = binlogpos.Decode(a.Start); err != nil {
		return row, fmt.Errorf("target: applied record: %w", err)
	}
	for _, e := range a.Ends {
		p, err := binlogpos.Decode(e)
		if err != nil {
			return row, fmt.Errorf("target: applied record: %w", err)
		}
		row.Ends = append(row.Ends, p)
	}
	return row, nil
}

func (k *sink) Session(context.Context) (pipeline.Session, error) { return &session{s: k.s}, nil }

func (k *sink) SaveCheckpoint(_ context.Context, st pipeline.State, covered []model.Position, _ bool) error {
	return k.s.commit(&record{Kind: "ckpt", State: encodeState(st), Covered: encodeAll(covered)})
}

func (k *sink) DeleteApplied(_ context.Context, lasts []model.Position) error {
	return k.s.commit(&record{Kind: "forget", Covered: encodeAll(lasts)})
}

func (k *sink) Sync(context.Context, bool) error                     { return nil }
func (k *sink) Cascades(context.Context) (*pipeline.Cascades, error) { return nil, nil }
func (k *sink) TargetName(id schema.TableID) string                  { return id.String() }
func (k *sink) Close()                                               {}

type session struct{ s *store }

func (s *session) Reset(context.Context) error { return nil }
func (s *session) Close()                      {}

func (s *session) ApplyGroup(_ context.Context, g *pipeline.Group, runStart model.Position) (bool, error) {
	r := &record{Kind: "apply", Rows: rowOps(g.Changes)}
	if g.Checkpoint != nil {
		r.State = encodeState(*g.Checkpoint)
	} else {
		a := &appliedRec{Start: encodePos(runStart)}
		for _, t := range g.Txns {
			a.Ends = append(a.Ends, encodePos(t.End))
		}
		a.Last = a.Ends[len(a.Ends)-1]
		r.Applied = a
	}
	return false, s.s.commit(r)
}

func (s *session) ApplyDDL(_ context.Context, t *model.Txn, st pipeline.State) error {
	return s.s.commit(&record{Kind: "ddl", Version: t.DDL.Version, Tables: t.DDL.Tables, Dropped: t.DDL.Dropped,
		State: encodeState(st)})
}

func (s *session) BeginLarge(context.Context) (pipeline.LargeTxn, error) { return &large{s: s.s}, nil }

// large gathers a large transaction's rows for its one record.
type large struct {
	s    *store
	rows []rowOp
}

func (l *large) Rollback() { l.rows = nil }

func (l *large) Write(_ context.Context, changes []pipeline.Change) error {
	l.rows = append(l.rows, rowOps(changes)...)
	return nil
}

func (l *large) Commit(_ context.Context, st pipeline.State) error {
	return l.s.commit(&record{Kind: "apply", Rows: l.rows, State: encodeState(st)})
}

// rowOps are the changes as row sets and deletes by key.
func rowOps(changes []pipeline.Change) []rowOp {
	var ops []rowOp
	for _, c := range changes {
		id := c.Table.TableID.String()
		if c.Op != model.Insert {
			ops = append(ops, rowOp{Table: id, Key: rowKey(c.Table, c.Before)})
		}
		if c.Op != model.Delete {
			ops = append(ops, rowOp{Table: id, Key: rowKey(c.Table, c.After), Row: texts(c.After)})
		}
	}
	return ops
}

// rowKey is the row's key columns as text.
func rowKey(t *schema.Table, row []any) string {
	var parts []string
	for _, name := range t.KeyColumns() {
		parts = append(parts, Text(row[t.ColumnIndex(name)]))
	}
	return strings.Join(parts, "\x00")
}

func texts(row []any) []*string {
	out := make([]*string, len(row))
	for i, v := range row {
		if v != nil {
			s := Text(v)
			out[i] = &s
		}
	}
	return out
}

// Text is a value as the engine stores it: bytes as they are, anything
// else in fmt's %v.
func Text(v any) string {
	if b, ok := v.([]byte); ok {
		return string(b)
	}
	return fmt.Sprint(v)
}

func encodeAll(ps []model.Position) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = encodePos(p)
	}
	return out
}
