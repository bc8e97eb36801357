package fileengine

import (
	"context"
	"maps"
	"strings"
	"time"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/target"
)

// BulkWriter is the engine's side of a snapshot (target.Snapshotter): it
// takes the directory's lock, like a replicate run, and writes each call
// as one log record.
func (e engine) BulkWriter(target.BulkOptions) (target.BulkWriter, error) {
	return &bulk{dir: e.dir}, nil
}

type bulk struct {
	dir  string
	s    *store
	lock interface{ Close() error }
}

func (b *bulk) Connect(context.Context) error { return nil }

func (b *bulk) Lock(ctx context.Context) error {
	lock, err := takeLock(ctx, b.dir)
	if err != nil {
		return err
	}
	s, err := load(b.dir, true)
	if err != nil {
		lock.Close()
		return err
	}
	b.s, b.lock = s, lock
	return nil
}

func (b *bulk) Close() {
	if b.s != nil {
		b.s.close()
		b.lock.Close()
	}
}

// Replicator: none can run while the snapshot holds the directory's lock.
func (b *bulk) Replicator(context.Context) (string, error) { return "", nil }

// Plan copies every column as the source has it, under its own name.
func (b *bulk) Plan(t *schema.Table) (target.BulkTable, error) {
	bt := target.BulkTable{Source: t, Name: t.TableID.String()}
	for i, c := range t.Columns {
		bt.Cols = append(bt.Cols, i)
		bt.Selects = append(bt.Selects, schema.QuoteMySQL(c.Name))
	}
	return bt, nil
}

func (b *bulk) HasTable(_ context.Context, t target.BulkTable) (bool, error) {
	b.s.mu.Lock()
	defer b.s.mu.Unlock()
	_, ok := b.s.d.rows[t.Name]
	return ok, nil
}

func (b *bulk) HasRows(_ context.Context, t target.BulkTable) (bool, error) {
	b.s.mu.Lock()
	defer b.s.mu.Unlock()
	return len(b.s.d.rows[t.Name]) > 0, nil
}

func (b *bulk) State(context.Context) (target.BulkState, error) {
	b.s.mu.Lock()
	defer b.s.mu.Unlock()
	return maps.Clone(b.s.d.bulk), nil
}

func (b *bulk) Save(_ context.Context, s target.BulkState) error {
	return b.s.commit(&record{Kind: "bulk", Bulk: s})
}

func (b *bulk) Create(_ context.Context, _, clear []target.BulkTable, s target.BulkState) error {
	return b.s.commit(&record{Kind: "bulk", Clear: names(clear), Bulk: s})
}

// Copy writes the chunk's rows and its done record as one record.
func (b *bulk) Copy(_ context.Context, t target.BulkTable, rows *target.ChunkRows, clear bool, done func() target.BulkState) error {
	key := keyPositions(t)
	var ops []rowOp
	for rows.Next() {
		raw := rows.Values()
		row := make([]*string, len(raw))
		parts := make([]string, len(key))
		for i, v := range raw {
			if v != nil {
				s := string(v)
				row[i] = &s
			}
		}
		for i, p := range key {
			if row[p] != nil {
				parts[i] = *row[p]
			}
		}
		ops = append(ops, rowOp{Table: t.Name, Key: strings.Join(parts, "\x00"), Row: row})
	}
	if err := rows.Err(); err != nil {
		return err
	}
	r := &record{Kind: "bulk", Rows: ops, Bulk: done()}
	if clear {
		r.Clear = []string{t.Name}
	}
	return b.s.commit(r)
}

// keyPositions are the key columns' places among the copied ones (as
// rowKey reads them from a change's row).
func keyPositions(t target.BulkTable) []int {
	var out []int
	for _, name := range t.Source.KeyColumns() {
		ci := t.Source.ColumnIndex(name)
		for p, c := range t.Cols {
			if c == ci {
				out = append(out, p)
			}
		}
	}
	return out
}

func (b *bulk) Reset(_ context.Context, t target.BulkTable, s target.BulkState) error {
	return b.s.commit(&record{Kind: "bulk", Clear: []string{t.Name}, Bulk: s})
}

// Finish writes schema version 1 and the checkpoint with the run's end.
func (b *bulk) Finish(_ context.Context, pos model.Position, tables []*schema.Table, s target.BulkState) error {
	r := &record{Kind: "bulk", Bulk: s}
	if pos != nil {
		r.Kind, r.Version, r.Tables = "start", 1, tables
		r.State = &stateRec{Position: pos.Encode(), SchemaVersion: 1, UpdatedAt: time.Now().UTC()}
	}
	return b.s.commit(r)
}

// Forget empties the snapshot's tables and drops its state.
func (b *bulk) Forget(context.Context) (int, error) {
	b.s.mu.Lock()
	r := &record{Kind: "bulk", Bulk: target.BulkState{}}
	n := 0
	for k := range b.s.d.bulk {
		r.Bulk[k] = nil
		if name, ok := strings.CutPrefix(k, "table/"); ok {
			r.Clear = append(r.Clear, name)
			n++
		}
	}
	b.s.mu.Unlock()
	return n, b.s.commit(r)
}

func names(ts []target.BulkTable) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}
