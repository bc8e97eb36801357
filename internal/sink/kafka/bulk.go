package kafka

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/target"
	"github.com/sluice-db/sluice/internal/typemap"
)

// SnapshotOptions are what `sluice stream` gives the engine of one shard's
// snapshot besides its Config.
type SnapshotOptions struct {
	// Charsets are the source's conversion tables for the tables in scope
	// (typemap.LoadCharsets).
	Charsets *typemap.Charsets
	// CatchUp replays the source's changes from the committed position from
	// up to to through this package's sink bounded by Config.CatchUp
	// (internal/stream). The writer's producer is closed while it runs (the
	// replay's takes the stream's transactional.id) and connected again
	// after it.
	CatchUp func(ctx context.Context, from, to model.Position) error
	// Began, when set, is told that a pass starts copying at pos (after
	// any catch-up), and whether it resumes a snapshot.
	Began func(pos model.Position, tables int, resumed bool)
}

// NewSnapshotEngine is the engine of one shard's snapshot: snapshot.Run
// copies through it (target.Snapshotter, target.EventWriter).
func NewSnapshotEngine(cfg Config, o SnapshotOptions) target.Engine {
	return snapshotEngine{engine: engine{cfg: cfg}, o: o}
}

type snapshotEngine struct {
	engine
	o SnapshotOptions
}

// BulkWriter is the writer of one snapshot run of the stream.
func (e snapshotEngine) BulkWriter(o target.BulkOptions) (target.BulkWriter, error) {
	cfg := e.cfg
	if o.Stream != "" {
		cfg.Stream = o.Stream
	}
	return &bulk{cfg: cfg, o: e.o, live: map[string]bool{}}, nil
}

// bulk writes a snapshot as op "r" events. The runner's state records
// (target.BulkState) are records of their own in the offsets topic
// (bulkKey), committed in the same Kafka transactions as the events; the
// stream's state record carries the copy progress (copystate.go) the
// catch-up of a resumed pass filters the binlog with. Once the snapshot is
// finished the stream is started and never snapshots again: Finish deletes
// the runner's records.
type bulk struct {
	cfg   Config
	o     SnapshotOptions
	store *Store
	sink  *Sink
	// from is the offset in the offsets topic of the run's first record
	// (the state record's SnapshotFrom: where State reads from).
	from int64
	live map[string]bool // the runner's record keys as committed
	pos  binlogpos.Position
	at   time.Time // when this run's pass began copying: the events' ts_ms of the source
}

var (
	_ target.Snapshotter = snapshotEngine{}
	_ target.EventWriter = (*bulk)(nil)
)

func (b *bulk) Connect(ctx context.Context) error {
	store, err := Connect(ctx, b.cfg)
	if err != nil {
		return err
	}
	b.store, b.sink = store, New(store, b.o.Charsets)
	return nil
}

// Lock: connecting fenced every earlier producer of the stream, and a
// later run fences this one (its next commit fails).
func (b *bulk) Lock(context.Context) error { return nil }

func (b *bulk) Close() {
	if b.store != nil {
		b.store.Close()
		b.store = nil
	}
}

// Replicator: none runs while this run holds the stream's producer.
func (b *bulk) Replicator(context.Context) (string, error) { return "", nil }

// Plan copies every column, selected as the binlog has its value.
func (b *bulk) Plan(t *schema.Table) (target.BulkTable, error) {
	bt := target.BulkTable{Source: t, Name: b.cfg.TableTopic(t.TableID)}
	for i, c := range t.Columns {
		bt.Cols = append(bt.Cols, i)
		bt.Selects = append(bt.Selects, typemap.SelectExpr(c, schema.QuoteMySQL(c.Name)))
	}
	return bt, nil
}

// Chunked: a table whose key compares in Go as MySQL orders it
// (GoOrdered); the catch-up splits its changes at the copied key.
func (b *bulk) Chunked(t target.BulkTable) bool { return b.sink.GoOrdered(t.Source) }

// HasTable and HasRows: a new stream's topics are checked before the run
// (Store.CheckNewStream), as they hold other streams' records too.
func (b *bulk) HasTable(context.Context, target.BulkTable) (bool, error) { return false, nil }
func (b *bulk) HasRows(context.Context, target.BulkTable) (bool, error)  { return false, nil }

func (b *bulk) State(ctx context.Context) (target.BulkState, error) {
	s, first, err := b.store.readBulk(ctx)
	if err != nil {
		return nil, err
	}
	b.from = first
	b.noteLive(s)
	return s, nil
}

func (b *bulk) Save(ctx context.Context, s target.BulkState) error {
	_, err := b.saveBulk(ctx, s)
	return err
}

// Create records a new run. A state without the runner's records is a
// snapshot an earlier sluice began (its progress in the state record
// alone): this one cannot resume it.
func (b *bulk) Create(ctx context.Context, _, clear []target.BulkTable, s target.BulkState) error {
	if len(clear) > 0 {
		return errors.New("kafka: internal error: topics cannot be emptied")
	}
	if st, _, err := b.store.State(); err != nil || st != nil {
		if err != nil {
			return err
		}
		return exitcode.ConfigError(fmt.Errorf("kafka: stream %q has a snapshot in progress that an earlier sluice version began, "+
			"which this one cannot resume: drop the stream (sluice drop --kafka … --topic-prefix %s --stream %s) and start it again",
			b.cfg.Stream, b.cfg.Prefix, b.cfg.Stream))
	}
	first, err := b.saveBulk(ctx, s)
	if err == nil {
		b.from = first
	}
	return err
}

// saveBulk commits state records in one Kafka transaction and returns the
// offset of the first.
func (b *bulk) saveBulk(ctx context.Context, s target.BulkState) (int64, error) {
	st := b.store
	st.mu.Lock()
	defer st.mu.Unlock()
	recs, err := st.transact(ctx, func() ([]*kgo.Record, error) { return st.bulkRecords(s), nil })
	if err != nil {
		return 0, err
	}
	b.noteLive(s)
	if len(recs) == 0 {
		return b.from, nil
	}
	return recs[0].Offset, nil
}

func (b *bulk) noteLive(s target.BulkState) {
	for k, v := range s {
		if v == nil {
			delete(b.live, k)
		} else {
			b.live[k] = true
		}
	}
}

// Copy is not used: the runner copies into an EventWriter with
// CopyEvents, which is told the chunk's range.
func (b *bulk) Copy(context.Context, target.BulkTable, *target.ChunkRows, bool, func() target.BulkState) error {
	return errors.New("kafka: internal error: a snapshot chunk copied without its key range (target.EventWriter.CopyEvents)")
}

// Reset is not possible: events written stay written.
func (b *bulk) Reset(_ context.Context, t target.BulkTable, _ target.BulkState) error {
	return fmt.Errorf("kafka: internal error: the events of %s cannot be taken back", t.Name)
}

// Forget deletes the runner's records and returns how many tables the run
// had; the events already written stay.
func (b *bulk) Forget(ctx context.Context) (int, error) {
	s := target.BulkState{}
	n := 0
	for k := range b.live {
		s[k] = nil
		if strings.HasPrefix(k, "table/") {
			n++
		}
	}
	_, err := b.saveBulk(ctx, s)
	return n, err
}

// bulkPrefix begins the keys of the stream's snapshot records in the
// offsets topic: the stream, then a NUL (status and drop read a key up to
// its NUL as the stream's).
func bulkPrefix(stream string) string { return stream + "\x00bulk/" }

// bulkRecords are the records (tombstones for nil values) of state records.
func (s *Store) bulkRecords(st target.BulkState) []*kgo.Record {
	recs := make([]*kgo.Record, 0, len(st))
	for k, v := range st {
		recs = append(recs, &kgo.Record{Topic: s.cfg.OffsetsTopic(), Key: []byte(bulkPrefix(s.cfg.Stream) + k), Value: v})
	}
	return recs
}
