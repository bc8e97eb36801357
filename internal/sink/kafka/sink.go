// Package kafka is the Kafka sink: row changes as Debezium MySQL connector
// events (envelope.go, encode.go) written by one transactional producer,
// each Kafka transaction carrying the stream's whole exactly-once state (the
// checkpoint and applied records: store.go) in the compacted topic
// <prefix>.sluice.offsets. docs/kafka.md describes the format and the method.
package kafka

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/typemap"
)

// Sink is the pipeline's Kafka target (pipeline.Sink). Its sessions encode
// in parallel, but commit through the one transactional producer of the
// Store, one Kafka transaction at a time: each transaction rewrites the
// stream's state record, so two at once could not both be in it.
type Sink struct {
	cfg    Config
	store  *Store
	mapper *typemap.Mapper

	cmu    sync.Mutex
	codecs map[*schema.Table]*tableCodec
	// nowMs is the envelope's ts_ms (the time the event is written); nil: the clock.
	nowMs func() int64

	cad cadence // bounds live groups (cadence.go)

	// copying is the progress of a snapshot this run resumes (fixed
	// while the binlog is replayed): which changes to write (keep).
	copying *copyProgress
}

var (
	_ pipeline.Sink         = (*Sink)(nil)
	_ pipeline.GroupLimiter = (*Sink)(nil)
)

// New returns a sink on an open store. Values go through typemap with
// charsets (the source's, for text in 8-bit charsets); zero dates become
// null (nullable) or the epoch (NOT NULL) as Debezium does; a NUL inside
// text in a non-UTF-8 charset stops with an error naming the row.
func New(store *Store, charsets *typemap.Charsets) *Sink {
	m := typemap.New(typemap.Options{ZeroDate: typemap.ZeroDateNull, Nul: typemap.NulError, Charsets: charsets}, nil)
	if j := store.cfg.Journal; j != nil && store.state != nil {
		if p, err := store.cfg.Decode(store.state.Position); err == nil {
			j.note(p) // the checkpoint this run starts from is in the journal
		}
	}
	s := &Sink{cfg: store.cfg, store: store, mapper: m, codecs: map[*schema.Table]*tableCodec{}}
	if store.state != nil {
		s.copying = store.state.Copy
	}
	return s
}

func (s *Sink) codec(t *schema.Table) (*tableCodec, error) {
	s.cmu.Lock()
	defer s.cmu.Unlock()
	if tc, ok := s.codecs[t]; ok {
		return tc, nil
	}
	tc, err := newTableCodec(s.mapper, t, s.cfg)
	if err != nil {
		return nil, err
	}
	s.codecs[t] = tc
	return tc, nil
}

// GroupLimit bounds a group by how long its Kafka transaction may stay
// open: short while the stream is live, the full bounds in a backlog
// (cadence.go).
func (s *Sink) GroupLimit(first *model.Txn) (int, int64) { return s.cad.limit(first, time.Now()) }

// Open returns the state the store read after fencing earlier producers,
// with the topics of every captured table created (topics.go).
func (s *Sink) Open(ctx context.Context) (*checkpoint.State, []checkpoint.AppliedRow, error) {
	st, applied, err := s.store.State()
	if err != nil || st == nil {
		return st, applied, err
	}
	if err := s.openTopics(ctx, st.SchemaVersion); err != nil {
		return nil, nil, err
	}
	return st, applied, nil
}

// Session returns a session; sessions share the store's producer.
func (s *Sink) Session(context.Context) (pipeline.Session, error) { return &session{s: s}, nil }

// SaveCheckpoint writes the state record with st in its own Kafka
// transaction. While the producer is in another transaction (a large source
// transaction holds it from BeginLarge to Commit, and the pipeline saves the
// checkpoint and commits a large transaction under one lock, so waiting here
// could deadlock) it leaves st to the next transaction, which carries it in
// its state record: a checkpoint written later is as exact, the applied
// records cover what it does not.
//
// With one worker each group's transaction already carries its checkpoint
// (pipeline.Group.Checkpoint), so the pipeline's periodic save usually finds
// nothing newer to write and costs no Kafka transaction.
func (s *Sink) SaveCheckpoint(ctx context.Context, st checkpoint.State, _ []model.Position, _ bool) error {
	if !s.store.mu.TryLock() {
		s.store.deferCheckpoint(st)
		return nil
	}
	defer s.store.mu.Unlock()
	if !s.store.newer(s.store.state, st) {
		return nil
	}
	if err := s.commitLocked(ctx, nil, nil, func(r *stateRecord) { s.store.withState(r, st) }); err != nil {
		return err
	}
	s.cfg.CatchUp.note(st.Position)
	return nil
}

// DeleteApplied drops applied records of another stream history.
func (s *Sink) DeleteApplied(ctx context.Context, lasts []model.Position) error {
	drop := map[string]bool{}
	for _, p := range lasts {
		drop[p.Key()] = true
	}
	return s.commit(ctx, nil, func(r *stateRecord) {
		kept := r.Applied[:0]
		for _, a := range r.Applied {
			if !drop[a.Last] {
				kept = append(kept, a)
			}
		}
		r.Applied = kept
	})
}

// Sync has nothing to do: Kafka keeps no target-side counters.
func (s *Sink) Sync(context.Context, bool) error { return nil }

// Cascades: Kafka has no foreign key actions.
func (s *Sink) Cascades(context.Context) (*pipeline.Cascades, error) {
	return pipeline.NewCascades(nil), nil
}

// TargetName names a table's topic.
func (s *Sink) TargetName(id schema.TableID) string { return s.cfg.TableTopic(id) }

// Close does nothing: the store belongs to the caller.
func (s *Sink) Close() {}

// commit runs one Kafka transaction: recs, then the state record changed by
// change; the in-memory state moves only when Kafka committed.
func (s *Sink) commit(ctx context.Context, recs []*kgo.Record, change func(*stateRecord)) error {
	st := s.store
	st.mu.Lock()
	defer st.mu.Unlock()
	return s.commitLocked(ctx, recs, nil, change)
}

func (s *Sink) commitLocked(ctx context.Context, recs []*kgo.Record, extra []*kgo.Record, change func(*stateRecord)) error {
	st := s.store
	if err := s.checkRecords(ctx, recs); err != nil {
		return err
	}
	next := st.next(change)
	rec, err := st.stateRec(next)
	if err != nil {
		return err
	}
	all := make([]*kgo.Record, 0, len(recs)+len(extra)+1)
	all = append(append(append(all, recs...), extra...), rec)
	if _, err := st.transact(ctx, func() ([]*kgo.Record, error) { return all, nil }); err != nil {
		return err
	}
	st.state = next
	if s.cfg.Journal != nil {
		if p, err := s.cfg.Decode(next.Position); err == nil {
			s.cfg.Journal.note(p)
		}
	}
	return nil
}

// checkRecords creates missing topics and refuses a record larger than its
// topic's max.message.bytes, naming the table, key, size and the setting.
func (s *Sink) checkRecords(ctx context.Context, recs []*kgo.Record) error {
	for _, r := range recs {
		limit, known := s.store.topics.get(r.Topic)
		if !known {
			if err := s.store.ensureTopic(ctx, r.Topic, false); err != nil {
				return err
			}
			limit, _ = s.store.topics.get(r.Topic)
		}
		size := len(r.Key) + len(r.Value) + 128 // + record and batch overhead
		if size > int(limit) {
			return fmt.Errorf("kafka: a change event of table %s of %d bytes for topic %s (key %s) is larger than the topic's max.message.bytes=%d: "+
				"raise it (kafka-configs.sh --alter --entity-type topics --entity-name %s --add-config max.message.bytes=%d, and the broker's "+
				"message.max.bytes / replica.fetch.max.bytes if smaller); sluice stopped without writing it",
				strings.TrimPrefix(r.Topic, s.cfg.DataPrefix()+"."), size, r.Topic, abbreviate(r.Key), limit, r.Topic, nextPow2(size))
		}
	}
	return nil
}

func abbreviate(b []byte) string {
	if b == nil {
		return "null"
	}
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

func nextPow2(n int) int {
	p := 1 << 20
	for p < n {
		p *= 2
	}
	return p
}

type session struct{ s *Sink }

// ApplyGroup writes every source transaction of the group, uncompacted
// (each change is an event), and the state with their applied record (or,
// with one worker, their checkpoint) in one Kafka transaction. Records are
// sent as each source transaction is encoded (Store.transactStream).
func (se *session) ApplyGroup(ctx context.Context, g *pipeline.Group, runStart model.Position) (bool, error) {
	s := se.s
	g, stop := s.cfg.CatchUp.cut(g)
	if g == nil {
		s.cfg.CatchUp.reach()
		return false, ErrCaughtUp
	}
	if err := se.applyGroup(ctx, g, runStart); err != nil {
		return false, err
	}
	if stop {
		s.cfg.CatchUp.reach()
		return false, ErrCaughtUp
	}
	s.cfg.CatchUp.note(g.Txns[len(g.Txns)-1].End)
	return false, nil
}

func (se *session) applyGroup(ctx context.Context, g *pipeline.Group, runStart model.Position) error {
	s := se.s
	st := s.store
	ends := make([]string, len(g.Txns))
	for i, t := range g.Txns {
		ends[i] = t.End.Key()
	}
	var start string
	if runStart != nil {
		start = runStart.Key()
	}
	a := appliedJSON{Last: ends[len(ends)-1], Ends: ends, Start: start}
	change := func(r *stateRecord) { r.Applied = append(r.Applied, a) }
	if cp := g.Checkpoint; cp != nil {
		// Everything before the group is committed: its end is the
		// checkpoint, and the state record needs no list of its
		// transactions (which, rewritten in every transaction, would grow
		// with the rate until the next periodic checkpoint).
		change = func(r *stateRecord) {
			if st.newer(r, *cp) {
				st.withState(r, *cp)
			} else {
				r.Applied = append(r.Applied, a)
			}
		}
	}
	var pre [][]*kgo.Record
	if g.Checkpoint == nil {
		// Several workers: each encodes its group before it takes the
		// producer, while another worker's transaction commits.
		pre = make([][]*kgo.Record, len(g.Txns))
		for i, t := range g.Txns {
			recs, err := s.txnRecords(t, g.One(i))
			if err != nil {
				return err
			}
			pre[i] = recs
		}
	}
	if err := s.groupTopics(ctx, g.Txns); err != nil {
		return err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	var next *stateRecord
	began := time.Now()
	err := st.transactStream(ctx, func(send func(...*kgo.Record)) error {
		for i, t := range g.Txns {
			var recs []*kgo.Record
			var err error
			if pre != nil {
				recs = pre[i]
			} else if recs, err = s.txnRecords(t, g.One(i)); err != nil {
				return err
			}
			if err := s.checkRecords(ctx, recs); err != nil {
				return err
			}
			send(recs...)
		}
		var err error
		next, err = st.sendState(send, change)
		return err
	})
	if err != nil {
		return err
	}
	var rows int
	var bytes int64
	for _, t := range g.Txns {
		rows += len(t.Changes)
		bytes += t.Bytes
	}
	s.cad.observe(rows, bytes, g.Txns[len(g.Txns)-1].Timestamp, time.Since(began))
	st.state = next
	// One worker (required with a journal): every earlier transaction is committed too.
	s.cfg.Journal.note(g.Txns[len(g.Txns)-1].End)
	return nil
}

// txnRecords encodes one source transaction: its change events (and
// tombstones), the BEGIN/END records of --transaction-metadata, and with
// --merged-topic its journal records.
func (s *Sink) txnRecords(t *model.Txn, changes []pipeline.Change) ([]*kgo.Record, error) {
	recs := make([]*kgo.Record, 0, len(changes)+2)
	o := txnOrigin(t)
	if s.cfg.TxnMetadata {
		o.tx = newTxnMeta(t)
		recs = append(recs, s.txnRecord(o.tx, false))
	}
	for row := range changes {
		rc, ok, err := s.keep(&changes[row].RowChange)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if recs, err = s.appendRowRecords(recs, rc, o, row, false); err != nil {
			return nil, err
		}
	}
	if o.tx != nil {
		recs = append(recs, s.txnRecord(o.tx, true))
	}
	if j := s.cfg.Journal; j != nil {
		recs = append(recs, j.journalRows(recs, t.Timestamp, s.cfg.TxnTopic())...)
		recs = append(recs, j.journalEnd(t.Timestamp, t.End))
	}
	return recs, nil
}

// ApplyDDL writes the DDL event on the topic <prefix>, the new schema
// version in the schema topic and the state, in one Kafka transaction.
func (se *session) ApplyDDL(ctx context.Context, t *model.Txn, st checkpoint.State) error {
	s := se.s
	if c := s.cfg.CatchUp; c.beyond(t.End) {
		c.reach()
		return ErrCaughtUp
	}
	dr, err := s.ddlRecord(t)
	if err != nil {
		return err
	}
	var at string
	if t.End != nil {
		at = t.End.Encode()
	}
	sr, err := s.store.schemaRec(schemaRecord{Version: t.DDL.Version, Position: at, DDL: t.DDL.Statement,
		Tables: t.DDL.Tables, Dropped: t.DDL.Dropped})
	if err != nil {
		return err
	}
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	if err := s.store.ensureTopic(ctx, s.cfg.DDLTopic(), false); err != nil {
		return err
	}
	if err := s.commitLocked(ctx, nil, []*kgo.Record{dr, sr}, func(r *stateRecord) { s.store.withState(r, st) }); err != nil {
		return err
	}
	s.store.schemas = append(s.store.schemas, schemaRecord{Stream: s.cfg.Stream, Version: t.DDL.Version, Tables: t.DDL.Tables, Dropped: t.DDL.Dropped})
	return nil
}

// BeginLarge holds the producer for the whole large transaction.
func (se *session) BeginLarge(ctx context.Context) (pipeline.LargeTxn, error) {
	st := se.s.store
	st.mu.Lock()
	if err := st.cl.BeginTransaction(); err != nil {
		st.mu.Unlock()
		return nil, fmt.Errorf("kafka: begin transaction: %w", err)
	}
	return &largeTxn{s: se.s}, nil
}

func (se *session) Reset(context.Context) error { return nil }
func (se *session) Close()                      {}

// largeTxn writes a large source transaction fragment by fragment into one
// Kafka transaction: memory holds one fragment's records at a time.
type largeTxn struct {
	s    *Sink
	row  int
	done bool
	tx   *txnMeta // --transaction-metadata: BEGIN written with the first fragment
	// commit and end: the transaction's time and end position as its
	// fragments tell them (for the journal's end record).
	commit time.Time
	end    model.Position
}

func (l *largeTxn) Write(ctx context.Context, changes []pipeline.Change) error {
	var recs []*kgo.Record
	for _, c := range changes {
		o := origin{snapshot: "false"}
		if c.Txn != nil { // a fragment: its GTID and commit time; the end position only on the last
			o = txnOrigin(c.Txn)
			if !c.Txn.Timestamp.IsZero() {
				l.commit = c.Txn.Timestamp
			}
			if c.Txn.End != nil {
				l.end = c.Txn.End
			}
			if l.s.cfg.TxnMetadata && l.tx == nil {
				l.tx = newTxnMeta(c.Txn)
				recs = append(recs, l.s.txnRecord(l.tx, false))
			}
		}
		o.tx = l.tx
		rc, ok, err := l.s.keep(&c.RowChange)
		if err != nil {
			return err
		}
		l.row++
		if !ok {
			continue
		}
		rs, err := l.s.rowRecords(rc, o, l.row-1, false)
		if err != nil {
			return err
		}
		recs = append(recs, rs...)
		if j := l.s.cfg.Journal; j != nil {
			recs = append(recs, j.journalRows(rs, l.commit, "")...)
		}
	}
	if err := l.s.checkRecords(ctx, recs); err != nil {
		return err
	}
	return l.s.store.cl.ProduceSync(ctx, recs...).FirstErr()
}

func (l *largeTxn) Commit(ctx context.Context, cp checkpoint.State) error {
	st := l.s.store
	defer l.finish()
	if c := l.s.cfg.CatchUp; c.beyond(cp.Position) {
		l.abort(ctx) // beyond a resumed snapshot's point: streamed after the copy
		c.reach()
		return ErrCaughtUp
	}
	next := st.next(func(r *stateRecord) { st.withState(r, cp) })
	rec, err := st.stateRec(next)
	if err != nil {
		return err
	}
	recs := []*kgo.Record{rec}
	if l.tx != nil {
		recs = []*kgo.Record{l.s.txnRecord(l.tx, true), rec}
	}
	if j := l.s.cfg.Journal; j != nil {
		recs = append([]*kgo.Record{j.journalEnd(l.commit, l.end)}, recs...)
	}
	if err := st.cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		l.abort(ctx)
		return err
	}
	if err := st.cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
		return fmt.Errorf("kafka: commit transaction: %w", err)
	}
	st.state = next
	l.s.cfg.Journal.note(cp.Position)
	l.s.cfg.CatchUp.note(cp.Position)
	return nil
}

func (l *largeTxn) Rollback() {
	if l.done {
		return
	}
	l.abort(context.Background())
	l.finish()
}

func (l *largeTxn) abort(ctx context.Context) {
	st := l.s.store
	_ = st.cl.AbortBufferedRecords(ctx)
	_ = st.cl.EndTransaction(ctx, kgo.TryAbort)
}

func (l *largeTxn) finish() {
	if !l.done {
		l.done = true
		l.s.store.mu.Unlock()
	}
}
