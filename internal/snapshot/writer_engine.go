package snapshot

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
	mysnap "github.com/sluice-db/sluice/internal/source/mysql/consistent"
	targets "github.com/sluice-db/sluice/internal/target"
	"github.com/sluice-db/sluice/internal/target/bulkrun"
)

// engineWriter is the runner's writer over an engine's exported bulk
// contract (target.Snapshotter): the run's state is the runner's own
// records (run, tables, chunks as JSON), which the engine stores opaquely,
// in the same target transaction as the rows where the contract says so.
type engineWriter struct {
	*runner
	w       targets.BulkWriter
	ev      targets.EventWriter // the writer's facet, when its target is a log of events (nil: not)
	mu      sync.Mutex
	state   targets.BulkState // the records as last committed
	planned map[string]any    // an EventWriter's planned chunks not saved yet (planChunk)
}

// engineTable is a job's plan on such an engine (targetTable).
type engineTable struct {
	targets.BulkTable
	warnings []string
}

func (t *engineTable) TargetName() string         { return t.Name }
func (t *engineTable) PlanWarnings() []string     { return t.warnings }
func (t *engineTable) DryRunDDL() []string        { return t.DDL }
func (t *engineTable) FillReport(tr *TableReport) {}

const runKey = "run"

func tableKey(id schema.TableID) string    { return "table/" + id.String() }
func chunkPrefix(id schema.TableID) string { return "chunk/" + id.String() + "/" }
func chunkKey(id schema.TableID, seq int) string {
	return fmt.Sprintf("%s%09d", chunkPrefix(id), seq)
}

func newEngineWriter(r *runner, s targets.Snapshotter) (*engineWriter, error) {
	w, err := s.BulkWriter(targets.BulkOptions{Stream: r.Opts.Stream, Log: r.Log})
	if err != nil {
		return nil, err
	}
	ev, _ := w.(targets.EventWriter)
	return &engineWriter{runner: r, w: w, ev: ev, state: targets.BulkState{}}, nil
}

func (e *engineWriter) RefuseOptions() error                             { return nil }
func (e *engineWriter) Connect(ctx context.Context) error                { return e.w.Connect(ctx) }
func (e *engineWriter) Close()                                           { e.w.Close() }
func (e *engineWriter) Fingerprint(*fingerprint)                         {}
func (e *engineWriter) EnsureState(context.Context) error                { return nil }
func (e *engineWriter) CheckResume(context.Context) error                { return nil }
func (e *engineWriter) BeforeRecopy(context.Context, *bulkrun.Job) error { return nil }
func (e *engineWriter) TargetProblems(context.Context) ([]string, error) {
	return nil, nil
}

func (e *engineWriter) Replicator(ctx context.Context) (string, error) { return e.w.Replicator(ctx) }

func (e *engineWriter) Plan(context.Context) ([]*bulkrun.Job, error) {
	if err := e.RefuseEmpty(); err != nil {
		return nil, err
	}
	jobs := make([]*bulkrun.Job, 0, len(e.Cat.Tables))
	for _, t := range e.Cat.Tables {
		bt, err := e.w.Plan(t)
		if err != nil {
			return nil, err
		}
		out := &engineTable{BulkTable: bt, warnings: bt.Warnings}
		j, warnings := bulkrun.NewJob(t, out, bt.Cols, bt.Selects)
		out.warnings = append(out.warnings, warnings...)
		if e.ev != nil && !e.ev.Chunked(bt) {
			j.Key, j.KeyPos = nil, nil // one chunk: the engine cannot split its changes at a copied key
		}
		j.RangeSafe = bt.RangeSafe && j.Key != nil
		jobs = append(jobs, j)
	}
	return jobs, nil
}

// LockStream takes the lock, then reads the state it guards.
func (e *engineWriter) LockStream(ctx context.Context) error {
	if err := e.w.Lock(ctx); err != nil {
		return err
	}
	st, err := e.w.State(ctx)
	if err != nil {
		return err
	}
	e.state = st
	return nil
}

func (e *engineWriter) Forget(ctx context.Context) (int, error) {
	n, err := e.w.Forget(ctx)
	if err == nil {
		e.mu.Lock()
		e.state = targets.BulkState{}
		e.mu.Unlock()
	}
	return n, err
}

// committed merges records the engine committed into the cache.
func (e *engineWriter) committed(s targets.BulkState) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for k, v := range s {
		if v == nil {
			delete(e.state, k)
		} else {
			e.state[k] = v
		}
	}
}

func (e *engineWriter) record(key string, into any) (bool, error) {
	e.mu.Lock()
	b, ok := e.state[key]
	e.mu.Unlock()
	if !ok {
		return false, nil
	}
	if err := json.Unmarshal(b, into); err != nil {
		return false, fmt.Errorf("snapshot state: decode %s: %w", key, err)
	}
	return true, nil
}

func (e *engineWriter) save(ctx context.Context, recs map[string]any) error {
	e.takePlan(recs)
	s, err := encodeRecords(recs)
	if err != nil {
		return err
	}
	if err := e.w.Save(ctx, s); err != nil {
		return err
	}
	e.committed(s)
	return nil
}

func encodeRecords(recs map[string]any) (targets.BulkState, error) {
	s := targets.BulkState{}
	for k, v := range recs {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("snapshot state: encode %s: %w", k, err)
		}
		s[k] = b
	}
	return s, nil
}

func (e *engineWriter) LoadRun(context.Context) (*runState, error) {
	var run runState
	ok, err := e.record(runKey, &run)
	if !ok || err != nil {
		return nil, err
	}
	return &run, nil
}

func (e *engineWriter) TableStates(context.Context) (map[schema.TableID]*tableState, error) {
	out := map[schema.TableID]*tableState{}
	for _, j := range e.Jobs {
		var ts tableState
		ok, err := e.record(tableKey(j.Source.TableID), &ts)
		if err != nil {
			return nil, err
		}
		if ok {
			out[ts.ID] = &ts
		}
	}
	return out, nil
}

func (e *engineWriter) Existing(ctx context.Context, j *bulkrun.Job) (bool, *mismatch, error) {
	ok, err := e.w.HasTable(ctx, j.Out.(*engineTable).BulkTable)
	return ok, nil, err
}

func (e *engineWriter) HasRows(ctx context.Context, j *bulkrun.Job) (bool, error) {
	return e.w.HasRows(ctx, j.Out.(*engineTable).BulkTable)
}

// CreateTables creates the tables and records the run and its tables.
func (e *engineWriter) CreateTables(ctx context.Context, acts map[schema.TableID]action) error {
	tables, clear := e.tablesFor(acts)
	recs := map[string]any{runKey: runState{Status: "copying", Fingerprint: e.RunFingerprint(),
		Tables: append([]*schema.Table(nil), e.Cat.Tables...), StartedAt: time.Now().UTC()}}
	for _, j := range e.Jobs {
		j.State = newTableState(j, acts, "")
		recs[tableKey(j.Source.TableID)] = j.State
	}
	s, err := encodeRecords(recs)
	if err != nil {
		return err
	}
	if err := e.w.Create(ctx, tables, clear, s); err != nil {
		return err
	}
	e.committed(s)
	return nil
}

func (e *engineWriter) tablesFor(acts map[schema.TableID]action) (tables, clear []targets.BulkTable) {
	for _, j := range e.Jobs {
		bt := j.Out.(*engineTable).BulkTable
		tables = append(tables, bt)
		if a := acts[j.Source.TableID]; a == actReplace || a == actTruncate {
			clear = append(clear, bt)
		}
	}
	return tables, clear
}

func (e *engineWriter) SchemaOnly(ctx context.Context, acts map[schema.TableID]action) error {
	tables, clear := e.tablesFor(acts)
	return e.w.Create(ctx, tables, clear, nil)
}

func (e *engineWriter) StartPass(ctx context.Context, p *mysnap.Point) error {
	run, err := e.LoadRun(ctx)
	if err != nil || run == nil {
		return fmt.Errorf("snapshot state: no run to start pass %d of (%v)", e.Pass, err)
	}
	run.Pass, run.Position, run.Method, run.LockHeldMS = e.Pass, e.Pos, string(p.Method), p.LockHeld.Milliseconds()
	if e.ev != nil {
		return e.beginEventPass(ctx, run)
	}
	return e.save(ctx, map[string]any{runKey: run})
}

func (e *engineWriter) LoadChunks(_ context.Context, id schema.TableID) ([]chunkState, error) {
	e.mu.Lock()
	var keys []string
	for k := range e.state {
		if strings.HasPrefix(k, chunkPrefix(id)) {
			keys = append(keys, k)
		}
	}
	e.mu.Unlock()
	sort.Strings(keys)
	out := make([]chunkState, 0, len(keys))
	for _, k := range keys {
		var c chunkState
		if _, err := e.record(k, &c); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func (e *engineWriter) InsertChunk(ctx context.Context, c mysnap.Chunk) error {
	if e.ev != nil {
		return e.planChunk(ctx, c)
	}
	return e.save(ctx, map[string]any{chunkKey(c.Table, c.Seq): chunkState{Seq: c.Seq, Lo: c.Lo, Hi: c.Hi}})
}

func (e *engineWriter) SetPlanned(ctx context.Context, id schema.TableID) error {
	return e.updateTable(ctx, id, func(ts *tableState) { ts.Planned = true })
}

func (e *engineWriter) FinishTable(ctx context.Context, j *bulkrun.Job) error {
	return e.updateTable(ctx, j.Source.TableID, func(ts *tableState) { ts.Indexed = true })
}

func (e *engineWriter) updateTable(ctx context.Context, id schema.TableID, f func(*tableState)) error {
	var ts tableState
	if _, err := e.record(tableKey(id), &ts); err != nil {
		return err
	}
	f(&ts)
	return e.save(ctx, map[string]any{tableKey(id): ts})
}

func (e *engineWriter) KeepChunk(ctx context.Context, id schema.TableID, seq int) error {
	var c chunkState
	if _, err := e.record(chunkKey(id, seq), &c); err != nil {
		return err
	}
	c.Pass, c.Position = e.Pass, e.Pos
	return e.save(ctx, map[string]any{chunkKey(id, seq): c})
}

func (e *engineWriter) ResetTable(ctx context.Context, j *bulkrun.Job) error {
	chunks, err := e.LoadChunks(ctx, j.Source.TableID)
	if err != nil {
		return err
	}
	recs := map[string]any{}
	for _, c := range chunks {
		recs[chunkKey(j.Source.TableID, c.Seq)] = chunkState{Seq: c.Seq, Lo: c.Lo, Hi: c.Hi}
	}
	s, err := encodeRecords(recs)
	if err != nil {
		return err
	}
	if err := e.w.Reset(ctx, j.Out.(*engineTable).BulkTable, s); err != nil {
		return err
	}
	e.committed(s)
	return nil
}

// CopyChunk reads the chunk and has the engine write its rows and its
// done record in one target transaction.
func (e *engineWriter) CopyChunk(ctx context.Context, t bulkrun.Task, read bulkrun.ReadFunc) error {
	j, c := t.Job, *t.Chunk
	rows, err := read(ctx)
	if err != nil {
		return fmt.Errorf("snapshot %s: %w", c, err)
	}
	defer rows.Close()
	var done targets.BulkState
	err = e.w.Copy(ctx, j.Out.(*engineTable).BulkTable, rows, t.Recopy, e.doneRecord(rows, c, &done))
	if err != nil {
		return fmt.Errorf("snapshot %s: %w", c, err)
	}
	e.committed(done)
	return nil
}

// doneRecord is the done function of a chunk's copy: the chunk's record
// with what was read (kept in *out for the cache once committed).
func (e *engineWriter) doneRecord(rows *targets.ChunkRows, c mysnap.Chunk, out *targets.BulkState) func() targets.BulkState {
	return func() targets.BulkState {
		rows.Flush()
		st := chunkState{Seq: c.Seq, Lo: c.Lo, Hi: c.Hi, Done: true, Rows: rows.Rows(), Bytes: rows.Bytes(),
			Hash: rows.Sum(), Pass: e.Pass, Position: e.Pos}
		*out, _ = encodeRecords(map[string]any{chunkKey(c.Table, c.Seq): st})
		return *out
	}
}

// Finish records the run complete with the position replication starts
// from.
func (e *engineWriter) Finish(ctx context.Context) error {
	run, err := e.LoadRun(ctx)
	if err != nil || run == nil {
		return fmt.Errorf("snapshot state: no run to finish (%v)", err)
	}
	run.Status = "complete"
	s, err := encodeRecords(map[string]any{runKey: run})
	if err != nil {
		return err
	}
	var pos model.Position
	if !e.Pos.IsZero() {
		pos = e.Pos
	}
	if err := e.w.Finish(ctx, pos, e.Cat.Tables, s); err != nil {
		return fmt.Errorf("target: record the snapshot position: %w", err)
	}
	e.committed(s)
	return nil
}
