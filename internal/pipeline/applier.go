package pipeline

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
)

// Applier applies a stream of source transactions to a Sink: in parallel
// where they touch disjoint rows, in source order where they conflict,
// grouped, and exactly once across crashes. Create it with New, then call
// Run once; the accessors may be called concurrently with Run (metrics,
// status line).
type Applier struct {
	cfg  Config
	sink Sink
	// foldReinsert is the sink's ReinsertFolder, or nil.
	foldReinsert func(*schema.Table) bool
	// limiter is the sink's GroupLimiter, or nil.
	limiter GroupLimiter
	seed    maphash.Seed

	tr      *tracker
	caus    *causality
	workers []*worker
	stats   counters

	// gen counts schema changes; workers reset their sessions (plans,
	// prepared statements) when it moves.
	gen atomic.Uint64

	// ckMu serialises every write of the checkpoint row (the periodic
	// checkpointer, DDL and large transactions), so a slower writer can
	// never store an older position over a newer one.
	ckMu  sync.Mutex
	saved mark // last checkpoint written (under ckMu)
	// savedPos is saved.pos for readers outside ckMu (SavedPosition): a
	// PostgreSQL source reports it to its slot from its receive loop, which
	// must not wait out a checkpoint write or a large commit holding ckMu
	// (meanwhile the walsender's socket fills and it stops sending).
	savedPos atomic.Pointer[model.Position]

	// rowsMu guards applied: keys of sluice.applied rows not yet covered
	// by a saved checkpoint.
	rowsMu  sync.Mutex
	applied []model.Position

	// skip holds end positions of source transactions that a previous run
	// committed above its checkpoint (dispatcher only).
	skip map[string]struct{}

	opened bool
	state  *State
	// runStart is the checkpoint position this run started from, recorded
	// with every applied row (see checkpoint.InsertAppliedSQL).
	runStart model.Position

	started atomic.Bool
}

// New returns an applier writing to sink, which must allow
// PoolConns(cfg.Workers) sessions at once.
func New(cfg Config, sink Sink) (*Applier, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	a := &Applier{cfg: cfg, sink: sink, seed: maphash.MakeSeed(),
		caus: newCausality(), tr: newTracker(mark{})}
	if f, ok := sink.(ReinsertFolder); ok {
		a.foldReinsert = f.FoldsReinsert
	}
	if l, ok := sink.(GroupLimiter); ok {
		a.limiter = l
	}
	return a, nil
}

// item is one source transaction on its way to a worker.
type item struct {
	txn *model.Txn
	e   *entry
	// keys is the deduplicated union of the conflict keys of all changes
	// (and the cascade keys they hold, cascade.go).
	keys []uint64
	// check are cascade keys the transaction must follow but does not hold.
	check []uint64
	// flat[off[i]:off[i+1]] are the conflict keys of change i.
	flat []uint64
	off  []int32
	// cas[casOff[i]:casOff[i+1]] are the cascade keys change i holds or
	// checks (nil when no change has any): the order a group's changes
	// may not be coalesced across (coalesce.go).
	cas    []uint64
	casOff []int32
	// ident[i] is the row-identity key of change i's before image.
	ident    []uint64
	hasIdent []bool
}

// Run loads the checkpoint and the applied set, then applies every
// transaction from in until in is closed (returns nil once all are committed
// and the checkpoint saved) or ctx is cancelled (returns ctx's error after a
// best-effort checkpoint). Transactions must arrive in Seq order, starting
// at the checkpoint position of the stream. Run may be called only once.
func (a *Applier) Run(ctx context.Context, in <-chan *model.Txn) error {
	if !a.started.CompareAndSwap(false, true) {
		return errors.New("apply: Run called twice (create a new Applier: it reloads the checkpoint)")
	}
	if !a.opened {
		if _, err := a.Open(ctx); err != nil {
			return err
		}
	}
	defer a.Close()
	g, gctx := errgroup.WithContext(ctx)
	var workersDone sync.WaitGroup
	a.workers = make([]*worker, a.cfg.Workers)
	for i := range a.workers {
		w := newWorker(i, a)
		a.workers[i] = w
		workersDone.Add(1)
		g.Go(func() error {
			defer workersDone.Done()
			return w.run(gctx)
		})
	}
	drained := make(chan struct{})
	g.Go(func() error { return a.checkpointLoop(gctx, drained) })
	g.Go(func() error {
		err := a.dispatch(gctx, in)
		for _, w := range a.workers {
			close(w.queue)
		}
		workersDone.Wait()
		close(drained)
		return err
	})
	err := g.Wait()
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// Open waits until no session of an earlier run of the stream is left in
// the target (a killed sluice's last batch may still be committing), then
// loads the checkpoint (nil when the stream has none) and the applied
// records above it. Start the source's stream at the returned position and
// schema version; Run calls Open itself when the caller did not.
func (a *Applier) Open(ctx context.Context) (*State, error) {
	if a.opened {
		return a.state, nil
	}
	st, rows, err := a.sink.Open(ctx)
	if err != nil {
		return nil, err
	}
	if err := a.load(ctx, st, rows); err != nil {
		a.sink.Close()
		return nil, err
	}
	a.opened = true
	return a.state, nil
}

// Close releases what Open took; Run closes it itself. Safe to call more
// than once.
func (a *Applier) Close() {
	if a.opened {
		a.sink.Close()
		a.opened = false
	}
}

// load takes in the checkpoint and the applied rows above it.
func (a *Applier) load(ctx context.Context, st *State, rows []AppliedRow) error {
	start := mark{}
	if st != nil {
		start = mark{pos: st.Position, ts: st.SourceTime, schemaVersion: st.SchemaVersion}
	}
	a.skip = map[string]struct{}{}
	var stale []model.Position
	for _, r := range rows {
		// A row written by a run that started beyond the checkpoint (or
		// from a checkpoint that no longer exists) belongs to another
		// binlog history (see InsertAppliedSQL): it says nothing about this
		// one. A run that started without any checkpoint records no start.
		if r.Start != nil && (st == nil || r.Start.Compare(st.Position) > 0) {
			stale = append(stale, r.Last)
			continue
		}
		a.applied = append(a.applied, r.Last)
		for _, e := range r.Ends {
			if st == nil || e.Compare(st.Position) > 0 {
				a.skip[e.Key()] = struct{}{}
			}
		}
	}
	if len(stale) > 0 {
		a.cfg.Log.Warn("apply: ignoring and deleting applied records of another binlog history (a new snapshot or a reset binary log)",
			"stream", a.cfg.Stream, "rows", len(stale), "checkpoint", model.PositionString(start.pos))
		if err := a.sink.DeleteApplied(ctx, stale); err != nil {
			return err
		}
	}
	if st != nil {
		a.runStart = st.Position
	}
	a.tr = newTracker(start)
	a.setSaved(start)
	a.state = st
	a.cfg.Log.Info("apply: resuming", "stream", a.cfg.Stream, "checkpoint", model.PositionString(start.pos),
		"schema_version", start.schemaVersion, "applied_above_checkpoint", len(a.skip), "workers", a.cfg.Workers)
	return nil
}

// alreadyApplied reports whether a transaction ending at end is in the
// target already, and forgets it (it is seen once per run).
func (a *Applier) alreadyApplied(end model.Position) bool {
	if end == nil {
		return false
	}
	if len(a.skip) > 0 {
		k := end.Key()
		if _, ok := a.skip[k]; ok {
			delete(a.skip, k)
			return true
		}
	}
	return false
}

// Position returns the low watermark: every source transaction up to it is
// committed in the target.
func (a *Applier) Position() model.Position { return a.tr.watermark().pos }

// SourceTime returns the source commit time of the low watermark's
// transaction (heartbeats included): lag = now - SourceTime.
func (a *Applier) SourceTime() time.Time { return a.tr.watermark().ts }

// OldestPending returns the source commit time of the oldest received
// transaction not yet committed in the target (zero when none is): how far
// behind apply is even before anything was applied in this run.
func (a *Applier) OldestPending() time.Time { return a.tr.oldestPending() }

// QueueDepth returns the number of received, not yet committed transactions.
func (a *Applier) QueueDepth() int {
	n, _ := a.tr.pending()
	return n
}

// SavedPosition returns the position last written to sluice.checkpoint,
// without waiting for a checkpoint write in progress.
func (a *Applier) SavedPosition() model.Position {
	if p := a.savedPos.Load(); p != nil {
		return *p
	}
	return nil
}

// setSaved records the checkpoint just written; the caller holds ckMu.
func (a *Applier) setSaved(m mark) {
	a.saved = m
	pos := m.pos
	a.savedPos.Store(&pos)
}

// noteApplied remembers the key of a committed sluice.applied row.
func (a *Applier) noteApplied(last model.Position) {
	a.rowsMu.Lock()
	a.applied = append(a.applied, last)
	a.rowsMu.Unlock()
}

// takeCovered removes and returns the applied-row keys at or below pos.
func (a *Applier) takeCovered(pos model.Position) []model.Position {
	a.rowsMu.Lock()
	defer a.rowsMu.Unlock()
	var covered []model.Position
	keep := a.applied[:0]
	for _, p := range a.applied {
		if p.Compare(pos) <= 0 {
			covered = append(covered, p)
		} else {
			keep = append(keep, p)
		}
	}
	clear(a.applied[len(keep):])
	a.applied = keep
	return covered
}

// restoreCovered puts keys back after a failed checkpoint transaction.
func (a *Applier) restoreCovered(keys []model.Position) {
	a.rowsMu.Lock()
	a.applied = append(a.applied, keys...)
	a.rowsMu.Unlock()
}

func (a *Applier) errorf(format string, args ...any) error {
	return fmt.Errorf("apply: "+format, args...)
}
