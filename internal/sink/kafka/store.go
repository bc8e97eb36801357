package kafka

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
)

// Config configures the Kafka side of one stream (one source shard).
type Config struct {
	Brokers []string
	// Prefix is --topic-prefix: Debezium's topic.prefix (source.name).
	Prefix string
	// Stream names the stream (one per shard); its state is the record with
	// this key in the topic <Prefix>.sluice.offsets.
	Stream string
	// ServerID is the shard's @@server_id (source.server_id).
	ServerID uint32
	// DefaultDatabase is the source URL's database: the databaseName of a
	// schema change that names no database of its own.
	DefaultDatabase string
	// Schemas adds the JsonConverter schema block to keys and values.
	Schemas bool
	// NoTombstones leaves out the null-valued record after a delete.
	NoTombstones bool
	// TxnMetadata adds Debezium's transaction metadata: a "transaction"
	// block in each event, BEGIN/END records on <Prefix>.transaction.
	TxnMetadata bool
	// Partitions of the data topics sluice creates (default 1).
	Partitions int32
	// Decode reads the source's positions back.
	Decode model.PositionDecoder
	// Version is sluice's version, in source.version.
	Version string
	Log     *slog.Logger
	// Journal, when set (--merged-topic), receives a copy of every change
	// event in source commit order for the merger (journal.go).
	Journal *Journal
	// Layout says how events name their shard (layout.go); "" is LayoutNone.
	Layout Layout
	// Shard is the shard's ShardLabel, in its keys (LayoutKey) or topics
	// (LayoutTopic). A stream keeps the one it started with.
	Shard string
	// SourceID identifies the source server whatever address reaches it
	// (MySQL's @@server_uuid, MariaDB's @@hostname:@@port): a new stream of
	// a server another stream of the prefix already writes is refused
	// (newstream.go).
	SourceID string
	// ReuseTopics lets a new stream write into topics that hold records of
	// another history (--reuse-topics).
	ReuseTopics bool
	// CatchUp, when set, bounds this run to the replay of a resumed
	// snapshot up to its new consistent point (catchup.go).
	CatchUp *CatchUp
}

// OffsetsTopic is the compacted topic of the streams' positions.
func (c Config) OffsetsTopic() string { return c.Prefix + ".sluice.offsets" }

// SchemaTopic is the compacted topic of the streams' schema history.
func (c Config) SchemaTopic() string { return c.Prefix + ".sluice.schema" }

// stateRecord is the value of a stream's record in the offsets topic: the
// whole exactly-once state, rewritten in every Kafka transaction.
type stateRecord struct {
	Stream        string        `json:"stream"`
	Position      string        `json:"position"`
	SchemaVersion int64         `json:"schema_version"`
	SourceTime    time.Time     `json:"source_time"`
	UpdatedAt     time.Time     `json:"updated_at"`
	Applied       []appliedJSON `json:"applied,omitempty"`
	Snapshot      string        `json:"snapshot,omitempty"` // "copying" while the initial snapshot runs, "done" once it is complete
	// Copy is the progress of a snapshot being copied (copystate.go); nil
	// once it is done, or without one.
	Copy *copyProgress `json:"copy,omitempty"`
	// SnapshotFrom is, while a snapshot runs, the offset in the offsets
	// topic of its first runner record (bulk.go): where they are read from.
	SnapshotFrom int64 `json:"snapshot_from,omitempty"`
	// Merged is the merged topic whose journal this state's run wrote
	// (--merged-topic), "" for a run without one (journal.go: a gap check).
	Merged string `json:"merged,omitempty"`
	placement
}

// placement is what a stream's state and schema records say of where its
// events go: its layout and shard, and its source server. Records of sluice
// before layouts have none (LayoutNone).
type placement struct {
	Layout   string `json:"layout,omitempty"`
	Shard    string `json:"shard,omitempty"`
	SourceID string `json:"source_id,omitempty"`
}

type appliedJSON struct {
	Last  string   `json:"last"`
	Ends  []string `json:"ends"`
	Start string   `json:"start,omitempty"`
}

// schemaRecord is one schema-history version of a stream in the schema topic.
type schemaRecord struct {
	Stream   string           `json:"stream"`
	Version  int64            `json:"version"`
	Position string           `json:"position"`
	DDL      string           `json:"ddl,omitempty"`
	Tables   []*schema.Table  `json:"tables"`
	Dropped  []schema.TableID `json:"dropped,omitempty"`
	placement
}

// Store owns the stream's transactional producer and its state: it fences
// every earlier producer of the stream (same transactional.id), then reads
// the last committed state and the schema history.
type Store struct {
	cfg Config
	cl  *kgo.Client
	adm *kadm.Client

	mu      sync.Mutex // one Kafka transaction at a time
	state   *stateRecord
	schemas []schemaRecord
	topics  *topicLimits // topics known to exist → max.message.bytes
	// offsetsEnd is the offset of the fence marker open committed in the
	// offsets topic: what was committed before it is what open read.
	offsetsEnd int64

	pmu     sync.Mutex
	pending *checkpoint.State // a checkpoint for the next transaction (SaveCheckpoint while busy)
}

// deferCheckpoint keeps cp for the next transaction's state record.
func (s *Store) deferCheckpoint(cp checkpoint.State) {
	s.pmu.Lock()
	defer s.pmu.Unlock()
	if s.pending == nil || s.pending.Position.Compare(cp.Position) <= 0 {
		s.pending = &cp
	}
}

// Connect connects, fences older producers of the stream and loads its
// state. Kafka unreachable is a configuration error naming the brokers.
func Connect(ctx context.Context, cfg Config) (*Store, error) {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Partitions <= 0 {
		cfg.Partitions = 1
	}
	if cfg.Prefix == "" || len(cfg.Brokers) == 0 || cfg.Decode == nil {
		return nil, exitcode.ConfigError(errors.New("kafka: --kafka and --topic-prefix are required"))
	}
	txnID := TransactionalID(cfg.Prefix, cfg.Stream)
	limits := newTopicLimits()
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(cfg.Brokers...),
		kgo.TransactionalID(txnID),
		kgo.TransactionTimeout(10*time.Minute),
		kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.ProducerBatchMaxBytesFn(limits.batchMax),
		kgo.MaxBufferedRecords(20000),
		kgo.ProducerLinger(2*time.Millisecond),
		kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		// A shard begins its next Kafka transaction as soon as the last
		// one's EndTxn returned, while the coordinator still writes that
		// one's commit markers: the first AddPartitionsToTxn gets
		// CONCURRENT_TRANSACTIONS and is retried after this backoff.
		// franz-go's default of 20 ms made every back-to-back commit cost
		// 23-25 ms; with 2 ms it costs 4-5 ms (bench/kafkavis, 1-500
		// records per transaction), and the live groups are smaller and
		// sooner visible for it. franz-go lengthens the backoff itself when
		// the state lasts (200 ms after 1 s).
		kgo.ConcurrentTransactionsBackoff(2*time.Millisecond),
		// The first event of a table goes to a topic ensureTopic has just
		// created, which the broker's metadata may not show for a moment;
		// franz-go asks again no sooner than this (default 5 s, which held
		// the transaction, and on the shared partitions the other shards'
		// events, for 5-6 s at every new table: bench/kafkavis -cold).
		kgo.MetadataMinAge(250*time.Millisecond),
	)
	if err != nil {
		return nil, exitcode.ConfigError(fmt.Errorf("kafka %s: %w", strings.Join(cfg.Brokers, ","), err))
	}
	s := &Store{cfg: cfg, cl: cl, adm: kadm.NewClient(cl), topics: limits}
	pingCtx, cancel := context.WithTimeout(ctx, 15*time.Second)
	err = cl.Ping(pingCtx)
	cancel()
	if err != nil {
		cl.Close()
		return nil, exitcode.ConfigError(fmt.Errorf("kafka: cannot reach the broker %s: %v; fix: start Kafka there or pass the right --kafka host:port",
			strings.Join(cfg.Brokers, ","), err))
	}
	if err := s.open(ctx); err != nil {
		cl.Close()
		return nil, err
	}
	return s, nil
}

// Close closes the producer (an open transaction is aborted by the broker).
func (s *Store) Close() { s.cl.Close() }

func (s *Store) open(ctx context.Context) error {
	for _, t := range []string{s.cfg.OffsetsTopic(), s.cfg.SchemaTopic()} {
		if err := s.ensureTopic(ctx, t, true); err != nil {
			return err
		}
	}
	// InitProducerID with our transactional.id bumps its epoch: a killed
	// run's open transaction is aborted and its producer can no longer
	// commit. Then a marker committed in both state topics: every record
	// before it is decided, so reading up to it sees the final state.
	if _, _, err := s.cl.ProducerID(ctx); err != nil {
		return fmt.Errorf("kafka: init the transactional producer (fence earlier runs of stream %q): %w", s.cfg.Stream, err)
	}
	marks, err := s.mark(ctx, s.cfg.OffsetsTopic(), s.cfg.SchemaTopic())
	if err != nil {
		return fmt.Errorf("kafka: fence: %w", err)
	}
	s.offsetsEnd = marks[0].Offset
	if err := s.readState(ctx, marks[0].Offset); err != nil {
		return err
	}
	if err := s.keepPlacement(); err != nil {
		return err
	}
	if err := s.checkJournalGap(ctx, marks[0].Offset); err != nil {
		return err
	}
	if err := s.markJournal(ctx); err != nil {
		return err
	}
	return s.readSchemas(ctx, marks[1].Offset)
}

// ensureTopic creates a topic when missing (compacted for state topics)
// and remembers its max.message.bytes.
// Data topics get Config.Partitions; state topics (compact) and the DDL
// topic (one order of schema changes) get one partition.
func (s *Store) ensureTopic(ctx context.Context, topic string, compact bool) error {
	if _, ok := s.topics.get(topic); ok {
		return nil
	}
	configs := map[string]*string{}
	parts := s.cfg.Partitions
	if compact {
		c := "compact"
		configs["cleanup.policy"] = &c
		parts = 1
	}
	if topic == s.cfg.DDLTopic() || isJournalTopic(s.cfg.Prefix, topic) {
		parts = 1 // one order: schema changes, a shard's journal
	}
	if isJournalTopic(s.cfg.Prefix, topic) {
		// Kept until merged: the merger deletes what it has committed
		// (DeleteRecords); retention must never drop an unmerged record.
		never := "-1"
		configs["retention.ms"] = &never
	}
	resp, err := s.adm.CreateTopic(ctx, parts, -1, configs, topic)
	if err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
		return fmt.Errorf("kafka: create topic %s: %w", topic, err)
	}
	if resp.Err != nil && !errors.Is(resp.Err, kerr.TopicAlreadyExists) {
		return fmt.Errorf("kafka: create topic %s: %w", topic, resp.Err)
	}
	s.describeLimits(ctx, topic)
	return nil
}

// transact runs one Kafka transaction with the records build returns and
// commits it; on any error it aborts. It returns the produced records (with
// their offsets).
func (s *Store) transact(ctx context.Context, build func() ([]*kgo.Record, error)) ([]*kgo.Record, error) {
	if err := s.cl.BeginTransaction(); err != nil {
		return nil, fmt.Errorf("kafka: begin transaction: %w", err)
	}
	recs, err := build()
	if err == nil {
		err = s.cl.ProduceSync(ctx, recs...).FirstErr()
	}
	if err != nil {
		s.abort(ctx)
		return nil, err
	}
	if err := s.cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
		return nil, fmt.Errorf("kafka: commit transaction: %w", err)
	}
	return recs, nil
}

// transactStream runs one Kafka transaction whose records fill sends while
// it builds them: the producer sends the first batches while the later
// records are still being encoded, so a large group's commit waits on the
// slower of the two rather than on their sum. After fill, every record is
// flushed and the transaction committed; on any error it aborts.
func (s *Store) transactStream(ctx context.Context, fill func(send func(...*kgo.Record)) error) error {
	if err := s.cl.BeginTransaction(); err != nil {
		return fmt.Errorf("kafka: begin transaction: %w", err)
	}
	var emu sync.Mutex
	var perr error
	done := func(_ *kgo.Record, err error) {
		if err != nil {
			emu.Lock()
			if perr == nil {
				perr = err
			}
			emu.Unlock()
		}
	}
	send := func(recs ...*kgo.Record) {
		for _, r := range recs {
			s.cl.Produce(ctx, r, done)
		}
	}
	err := fill(send)
	if err == nil {
		err = s.cl.Flush(ctx)
	}
	emu.Lock()
	if err == nil {
		err = perr
	}
	emu.Unlock()
	if err != nil {
		s.abort(ctx)
		return err
	}
	if err := s.cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
		return fmt.Errorf("kafka: commit transaction: %w", err)
	}
	return nil
}

// abort aborts the open transaction and drops its buffered records.
func (s *Store) abort(ctx context.Context) {
	abortCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	_ = s.cl.AbortBufferedRecords(abortCtx)
	if aerr := s.cl.EndTransaction(abortCtx, kgo.TryAbort); aerr != nil {
		s.cfg.Log.Warn("kafka: abort transaction", "error", aerr)
	}
}

// State returns the committed checkpoint and applied records (nil state:
// the stream has none yet).
func (s *Store) State() (*checkpoint.State, []checkpoint.AppliedRow, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == nil {
		return nil, nil, nil
	}
	pos, err := s.cfg.Decode(s.state.Position)
	if err != nil {
		return nil, nil, fmt.Errorf("kafka: stream %q position %q: %w", s.cfg.Stream, s.state.Position, err)
	}
	st := &checkpoint.State{Position: pos, SchemaVersion: s.state.SchemaVersion, SourceTime: s.state.SourceTime, UpdatedAt: s.state.UpdatedAt}
	var rows []checkpoint.AppliedRow
	for _, a := range s.state.Applied {
		var row checkpoint.AppliedRow
		if row.Last, err = s.cfg.Decode(a.Last); err != nil {
			return nil, nil, err
		}
		for _, e := range a.Ends {
			p, err := s.cfg.Decode(e)
			if err != nil {
				return nil, nil, err
			}
			row.Ends = append(row.Ends, p)
		}
		if a.Start != "" {
			if row.Start, err = s.cfg.Decode(a.Start); err != nil {
				return nil, nil, err
			}
		}
		rows = append(rows, row)
	}
	return st, rows, nil
}

// Started reports whether the stream has a committed start: its whole
// snapshot, or with --no-snapshot its start position.
func (s *Store) Started() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state != nil && s.state.Copy == nil
}

// Copying reports whether the stream's snapshot was begun and not finished
// (a run was stopped or killed during it): it resumes (ResumeSnapshot).
func (s *Store) Copying() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state != nil && s.state.Copy != nil
}

// Schema returns every table as of a schema version.
func (s *Store) Schema(version int64) map[schema.TableID]*schema.Table {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[schema.TableID]*schema.Table{}
	for v := int64(1); v <= version; v++ {
		for _, sr := range s.schemas {
			if sr.Version != v {
				continue
			}
			for _, id := range sr.Dropped {
				delete(out, id)
			}
			for _, t := range sr.Tables {
				out[t.TableID] = t
			}
		}
	}
	return out
}

// next returns a copy of the current state with a deferred checkpoint
// (when newer) and f applied.
func (s *Store) next(f func(st *stateRecord)) *stateRecord {
	st := stateRecord{Stream: s.cfg.Stream}
	if s.state != nil {
		st = *s.state
		st.Applied = append([]appliedJSON(nil), s.state.Applied...)
	}
	s.pmu.Lock()
	cp := s.pending
	s.pending = nil
	s.pmu.Unlock()
	if cp != nil && s.newer(&st, *cp) {
		s.withState(&st, *cp)
	}
	f(&st)
	st.placement = s.cfg.placement()
	st.Merged = ""
	if s.cfg.Journal != nil {
		st.Merged = s.cfg.Journal.Merged
	}
	st.UpdatedAt = time.Now().UTC()
	return &st
}

// sendState sends the next state record (the current one changed by
// change) into a transaction transactStream runs, and returns it.
func (s *Store) sendState(send func(...*kgo.Record), change func(*stateRecord)) (*stateRecord, error) {
	next := s.next(change)
	rec, err := s.stateRec(next)
	if err != nil {
		return nil, err
	}
	send(rec)
	return next, nil
}

func (s *Store) stateRec(st *stateRecord) (*kgo.Record, error) {
	b, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	return &kgo.Record{Topic: s.cfg.OffsetsTopic(), Key: []byte(s.cfg.Stream), Value: b}, nil
}

func (s *Store) schemaRec(sr schemaRecord) (*kgo.Record, error) {
	sr.Stream = s.cfg.Stream
	sr.placement = s.cfg.placement()
	b, err := json.Marshal(sr)
	if err != nil {
		return nil, err
	}
	return &kgo.Record{Topic: s.cfg.SchemaTopic(), Key: []byte(s.cfg.Stream + "\x00v" + strconv.FormatInt(sr.Version, 10)), Value: b}, nil
}

// newer reports whether checkpoint cp is ahead of the one in st (a later
// position, or the same one with a later schema version): a checkpoint
// never moves back, and one already in st needs no transaction.
func (s *Store) newer(st *stateRecord, cp checkpoint.State) bool {
	if st == nil || st.Position == "" {
		return true
	}
	cur, err := s.cfg.Decode(st.Position)
	if err != nil || cur == nil {
		return true
	}
	c := cur.Compare(cp.Position)
	return c < 0 || (c == 0 && cp.SchemaVersion > st.SchemaVersion)
}

// withState sets the checkpoint fields of st from cp and drops the applied
// records it covers (their last position is at or below the checkpoint).
func (s *Store) withState(st *stateRecord, cp checkpoint.State) {
	st.Position = cp.Position.Encode()
	st.SchemaVersion = cp.SchemaVersion
	st.SourceTime = cp.SourceTime
	kept := st.Applied[:0]
	for _, a := range st.Applied {
		last, err := s.cfg.Decode(a.Last)
		if err != nil || last == nil || cp.Position.Compare(last) < 0 {
			kept = append(kept, a)
		}
	}
	st.Applied = kept
}
