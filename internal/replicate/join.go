package replicate

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlog"
	engines "github.com/sluice-db/sluice/internal/target"
	"github.com/sluice-db/sluice/internal/window"
)

// addPoll is how often the replicator reads the stream's add records for a
// new request (sluice snapshot --add): one indexed read of a small table,
// off the stream's path; the stream itself only checks an atomic at each
// transaction boundary.
const addPoll = time.Second

// addChunkRows is the rows of one window's chunk (a variable for tests): the rows wait in memory
// until the stream passes the window's high watermark.
var addChunkRows = 2000

// joiner is the replicator's side of `sluice snapshot --add`
// (docs/add-table.md, docs/design/issue23-plan.md step 3): it takes a
// request, brings the table into the stream's scope at a transaction
// boundary (binlog.Config.Join: the target creates it through the engine's
// DDL path), puts it in the sinks' upsert mode and copies it in DBLog
// windows merged between the transactions it hands to apply (join_copy.go).
type joiner struct {
	r       *runner
	adder   engines.TableAdder
	chunks  engines.ChunkApplier
	upsert  *pipeline.UpsertTables
	pending atomic.Pointer[joinRequest] // read by the watcher, taken at a boundary

	mu      sync.Mutex
	joined  map[schema.TableID]bool       // in scope by an add (InScope)
	joining map[*model.DDL]schema.TableID // join DDLs emitted, not yet handed on

	// Owned by the goroutine that hands transactions to apply (hand).
	copies *window.Copies
	tables map[schema.TableID]*tableCopy
	at     model.Position // end of the last complete transaction handed on
	inTxn  bool           // the last one handed on is a fragment (Partial) of an open transaction
	reads  chan chunkRead
}

// joinRequest is a table to join at the next boundary, with its definition
// as the source has it (SHOW CREATE TABLE).
type joinRequest struct {
	rec  engines.AddRecord
	stmt string
}

// newJoiner is nil for a target that cannot take tables (Kafka: refused by
// snapshot --add's checks).
func newJoiner(r *runner) *joiner {
	a, ok := r.tgt.(engines.TableAdder)
	c, ok2 := r.tgt.(engines.ChunkApplier)
	if !ok || !ok2 {
		return nil
	}
	return &joiner{r: r, adder: a, chunks: c, upsert: &pipeline.UpsertTables{}, joined: map[schema.TableID]bool{},
		joining: map[*model.DDL]schema.TableID{}, copies: window.NewCopies(), tables: map[schema.TableID]*tableCopy{},
		reads: make(chan chunkRead, 1)}
}

// has says whether an add brought id into the scope (InScope; go-mysql's
// reader goroutine).
func (j *joiner) has(id schema.TableID) bool {
	if j == nil {
		return false
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.joined[id]
}

// resume takes the stream's add records at the start: a table in the
// schema at the checkpoint joined before (done: an ordinary member of the
// scope; pending: its copy continues from LastKey, its events upserts); a
// pending one not in it is joined again by the watcher (a crash before the
// join's schema change committed).
func (j *joiner) resume(ctx context.Context, tables map[schema.TableID]*schema.Table) error {
	adds, err := j.adder.LoadAdds(ctx, j.r.o.Stream)
	if err != nil {
		return err
	}
	for _, rec := range adds {
		t := tables[rec.Table]
		if t == nil {
			continue
		}
		j.mu.Lock()
		j.joined[rec.Table] = true
		j.mu.Unlock()
		if !rec.State.Pending() {
			continue
		}
		if err := j.track(ctx, t, rec); err != nil {
			return err
		}
		j.r.log.Info("continuing the copy of a table added to the stream", "table", rec.Table.String(),
			"rows", rec.Rows, "chunks", rec.Chunks, "after", rec.LastKey)
	}
	j.r.tr.Filter = j.widened()
	return nil
}

// widened is the run's filter with the added tables.
func (j *joiner) widened() schema.Filter {
	j.mu.Lock()
	defer j.mu.Unlock()
	f := j.r.filter
	out := schema.Filter{Include: slices.Clone(f.Include), Exclude: f.Exclude}
	for id := range j.joined {
		p, err := schema.ParsePattern(schema.QuoteMySQL(id.Database) + "." + schema.QuoteMySQL(id.Name))
		if err == nil {
			out.Include = append(out.Include, p)
		}
	}
	return out
}

// watch reads the add records until ctx ends and queues the first pending
// table that has not joined for the stream's next boundary.
func (j *joiner) watch(ctx context.Context) {
	t := time.NewTicker(addPoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if j.pending.Load() != nil {
			continue
		}
		if err := j.poll(ctx); err != nil && ctx.Err() == nil {
			j.r.log.Warn("reading the stream's add requests failed; trying again", "err", err)
		}
	}
}

func (j *joiner) poll(ctx context.Context) error {
	adds, err := j.adder.LoadAdds(ctx, j.r.o.Stream)
	if err != nil {
		return err
	}
	for _, rec := range adds {
		if !rec.State.Pending() || j.has(rec.Table) {
			continue
		}
		var name, stmt string
		q := "SHOW CREATE TABLE " + schema.QuoteMySQL(rec.Table.Database) + "." + schema.QuoteMySQL(rec.Table.Name)
		if err := j.r.srcDB.QueryRowContext(ctx, q).Scan(&name, &stmt); err != nil {
			return fmt.Errorf("source: %s: %w", q, err)
		}
		j.r.log.Info("a table asks to join the stream", "table", rec.Table.String())
		j.pending.Store(&joinRequest{rec: rec, stmt: stmt})
		return nil
	}
	return nil
}

// join is binlog.Config.Join, on the stream's goroutine: the queued table's
// CREATE TABLE, translated with the scope widened to it.
func (j *joiner) join(_ context.Context, cur map[schema.TableID]*schema.Table) (*binlog.Joining, error) {
	req := j.pending.Swap(nil)
	if req == nil {
		return nil, nil
	}
	id := req.rec.Table
	if cur[id] != nil {
		return nil, fmt.Errorf("snapshot --add %s: the table is in the stream's schema already; forget the request (it was refused by the checks)", id)
	}
	j.mu.Lock()
	j.joined[id] = true
	j.mu.Unlock()
	j.r.tr.Filter = j.widened()
	now := time.Now().UTC()
	res, err := j.r.translate(cur, req.stmt, id.Database, now)
	if err != nil {
		return nil, fmt.Errorf("snapshot --add %s: its definition does not translate: %w", id, err)
	}
	if res.Ignored || len(res.Tables) != 1 || res.Tables[0].TableID != id {
		return nil, fmt.Errorf("snapshot --add %s: its definition did not create the table (%s)", id, res.Reason)
	}
	if _, err := window.KeyColumnsOf(res.Tables[0]); err != nil {
		return nil, fmt.Errorf("snapshot --add: %w", err)
	}
	d := &model.DDL{Database: id.Database, Statement: req.stmt, At: now}
	j.mu.Lock()
	j.joining[d] = id
	j.mu.Unlock()
	return &binlog.Joining{DDL: d, Result: res}, nil
}

// joinOf is the table a join DDL brings in (hand, before handing it on).
func (j *joiner) joinOf(d *model.DDL) (schema.TableID, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	id, ok := j.joining[d]
	delete(j.joining, d)
	return id, ok
}
