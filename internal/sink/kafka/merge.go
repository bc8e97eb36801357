package kafka

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sluice-db/sluice/internal/exitcode"
)

// The merger of --merged-topic: Kafka's consume-transform-produce. It reads
// every shard's journal (journal.go) read_committed and writes the merged,
// single-partition topic in a global order: each shard's transactions in
// their journal order (binlog commit order), across shards by commit time,
// a transaction released only once every other shard's watermark has
// reached its commit time. Each merger Kafka transaction holds whole source
// transactions and the merger's state record (the next journal offset of
// every shard, their watermarks), so after kill -9 the merger resumes
// exactly where its last commit left off: nothing merged twice or lost.
//
// Memory is bounded: one journal client per shard, polled only when that
// shard's queue is empty (each buffers at most one fetch), and the
// producer's buffer, which blocks the copy loop when full.

// MergeConfig configures the merger.
type MergeConfig struct {
	Brokers []string
	Prefix  string
	// Topic is the merged topic (--merged-topic).
	Topic string
	// Shards are the shards' stream names, in --source order (ties of
	// commit time go to the earlier one).
	Shards []string
	// Done is closed when every shard has stopped (--until-caught-up): the
	// merger then merges what the watermarks release, commits and returns.
	Done <-chan struct{}
	// Observe, when set, receives the merger's progress about once a second.
	Observe func(MergeProgress)
	Log     *slog.Logger
}

// MergeProgress is what holds the merged topic back.
type MergeProgress struct {
	// Watermarks: every shard's watermark (zero: none yet).
	Watermarks map[string]time.Time
	// HeldBy is the shard whose watermark holds back the oldest waiting
	// transaction ("" when nothing waits).
	HeldBy string
	// Released is the merge time of the last transaction merged.
	Released time.Time
}

// mergeState is the merger's record in <prefix>.sluice.offsets (key
// "merged:<topic>"), written in every merger transaction.
type mergeState struct {
	Merged    string            `json:"merged"`
	Shards    []mergeShardState `json:"shards"`
	Released  int64             `json:"released_ms"`
	Txns      int64             `json:"txns"`
	HeldBy    string            `json:"held_by,omitempty"`
	UpdatedAt time.Time         `json:"updated_at"`
}

type mergeShardState struct {
	Stream    string `json:"stream"`
	Journal   string `json:"journal"`
	Offset    int64  `json:"offset"`       // next journal offset to read
	Watermark int64  `json:"watermark_ms"` // 0: none yet
	Last      int64  `json:"last_ms"`      // merge time of its last merged transaction
}

func mergeKey(topic string) string { return "merged:" + topic }

// MergedTransactionalID is the merger's transactional.id.
func MergedTransactionalID(prefix, topic string) string {
	return "sluice." + prefix + ".merged." + topic
}

type mergeIn struct {
	mergeShardState
	cl *kgo.Client
	q  []*kgo.Record
}

type merger struct {
	cfg   MergeConfig
	store *Store // the merger's transactional producer, topics and transactions
	ins   []*mergeIn
	st    mergeState

	open     bool // a Kafka transaction is open
	produced int
	began    time.Time
	perr     chan error
	dirty    bool // state changed since the last commit
	lastSave time.Time
	lastTrim time.Time
}

// RunMerger merges until ctx ends (or, with Done, until everything the
// watermarks release is merged). An error leaves the merged topic at its
// last commit; running again continues from there.
func RunMerger(ctx context.Context, cfg MergeConfig) error {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Topic == "" || len(cfg.Shards) == 0 {
		return exitcode.ConfigError(errors.New("merge: a merged topic and at least one shard are needed"))
	}
	limits := newTopicLimits()
	cl, err := kgo.NewClient(kgo.SeedBrokers(cfg.Brokers...),
		kgo.TransactionalID(MergedTransactionalID(cfg.Prefix, cfg.Topic)),
		kgo.TransactionTimeout(10*time.Minute),
		kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.ProducerBatchMaxBytesFn(limits.batchMax),
		kgo.MaxBufferedRecords(20000),
		kgo.ProducerLinger(2*time.Millisecond),
		kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		return exitcode.ConfigError(fmt.Errorf("kafka: %w", err))
	}
	m := &merger{cfg: cfg, perr: make(chan error, 1),
		store: &Store{cfg: Config{Brokers: cfg.Brokers, Prefix: cfg.Prefix, Partitions: 1, Log: cfg.Log}, cl: cl, adm: kadm.NewClient(cl), topics: limits}}
	defer func() {
		for _, in := range m.ins {
			in.cl.Close()
		}
		cl.Close()
	}()
	if err := m.open0(ctx); err != nil {
		return err
	}
	return m.run(ctx)
}

// open0 fences an earlier merger (same transactional.id), reads the last
// committed state and opens one journal consumer per shard at its offset.
func (m *merger) open0(ctx context.Context) error {
	s := m.store
	for _, t := range []string{s.cfg.OffsetsTopic(), m.cfg.Topic} {
		if err := s.ensureTopic(ctx, t, t == s.cfg.OffsetsTopic()); err != nil {
			return err
		}
	}
	if _, _, err := s.cl.ProducerID(ctx); err != nil {
		return fmt.Errorf("kafka: init the merger's transactional producer: %w", err)
	}
	key := mergeKey(m.cfg.Topic)
	marks, err := s.transact(ctx, func() ([]*kgo.Record, error) {
		return []*kgo.Record{{Topic: s.cfg.OffsetsTopic(), Partition: 0, Key: []byte(key + "\x00fence"),
			Value: []byte(strconv.FormatInt(time.Now().UnixNano(), 10))}}, nil
	})
	if err != nil {
		return fmt.Errorf("kafka: merger fence: %w", err)
	}
	prev, err := readLast(ctx, m.cfg.Brokers, s.cfg.OffsetsTopic(), key, marks[0].Offset)
	if err != nil {
		return err
	}
	m.st = mergeState{Merged: m.cfg.Topic}
	old := map[string]mergeShardState{}
	if prev != nil {
		if err := json.Unmarshal(prev, &m.st); err != nil {
			return fmt.Errorf("kafka: the merger state of %s: %w", m.cfg.Topic, err)
		}
		for _, sh := range m.st.Shards {
			old[sh.Stream] = sh
		}
	}
	for _, name := range m.cfg.Shards {
		sh, ok := old[name]
		if !ok {
			sh = mergeShardState{Stream: name, Journal: JournalTopic(m.cfg.Prefix, name)}
		}
		delete(old, name)
		if err := s.ensureTopic(ctx, sh.Journal, false); err != nil {
			return err
		}
		opts := []kgo.Opt{kgo.SeedBrokers(m.cfg.Brokers...), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
			kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{sh.Journal: {0: kgo.NewOffset().At(sh.Offset)}}),
			kgo.FetchMaxBytes(8 << 20), kgo.FetchMaxPartitionBytes(8 << 20), kgo.FetchMaxWait(100 * time.Millisecond)}
		if ok {
			// Merged before: its next offset must still be there, never a
			// silent jump over deleted records.
			opts = append(opts, kgo.ConsumeResetOffset(kgo.NoResetOffset()))
		}
		cl, err := kgo.NewClient(opts...)
		if err != nil {
			return err
		}
		m.ins = append(m.ins, &mergeIn{mergeShardState: sh, cl: cl})
	}
	if len(old) > 0 {
		// A shard left out of this run would be forgotten: its journal's
		// unmerged transactions lost to the merged topic.
		for name := range old {
			return exitcode.ConfigError(fmt.Errorf("merge: the merged topic %s also merges shard %s, which this run does not stream; "+
				"pass every shard's --source (or use a new --merged-topic)", m.cfg.Topic, name))
		}
	}
	m.cfg.Log.Info("merge: started", "topic", m.cfg.Topic, "shards", len(m.ins), "merged_txns", m.st.Txns)
	return nil
}

// readLast returns the value of the last committed record with key before
// offset end of partition 0 of topic, reading back in growing windows.
func readLast(ctx context.Context, brokers []string, topic, key string, end int64) ([]byte, error) {
	for window := int64(512); ; window *= 4 {
		from := max(0, end-window)
		var found []byte
		err := readRange(ctx, brokers, topic, from, end, func(r *kgo.Record) error {
			if string(r.Key) == key && r.Value != nil {
				found = r.Value
			}
			return nil
		})
		if err != nil || found != nil || from == 0 {
			return found, err
		}
	}
}

func (m *merger) run(ctx context.Context) error {
	var doneSince time.Time // when Done was seen with nothing new since
	lastObserve := time.Time{}
	for {
		if err := ctx.Err(); err != nil {
			m.abort()
			return err
		}
		got, err := m.fill(ctx)
		if err != nil {
			m.abort()
			return err
		}
		released := 0
		for {
			in := m.releasable()
			if in == nil {
				break
			}
			if err := m.emit(ctx, in); err != nil {
				m.abort()
				return err
			}
			released++
			if m.produced >= 10000 || time.Since(m.began) > 200*time.Millisecond {
				break
			}
		}
		if m.open || (m.dirty && time.Since(m.lastSave) > 5*time.Second) {
			if err := m.commit(ctx); err != nil {
				return err
			}
		}
		if m.cfg.Observe != nil && time.Since(lastObserve) > time.Second {
			m.cfg.Observe(m.progress())
			lastObserve = time.Now()
		}
		if m.cfg.Done != nil {
			select {
			case <-m.cfg.Done:
				switch {
				case got || released > 0 || doneSince.IsZero():
					doneSince = time.Now()
				case time.Since(doneSince) > 2*time.Second:
					if m.dirty {
						if err := m.commit(ctx); err != nil {
							return err
						}
					}
					m.cfg.Log.Info("merge: every shard stopped; merged what the watermarks release", "topic", m.cfg.Topic,
						"merged_txns", m.st.Txns, "held_by", m.st.HeldBy)
					return nil
				}
			default:
			}
		}
		if !got && released == 0 {
			select {
			case <-ctx.Done():
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
}

// fill polls the journals whose queue is empty and consumes the watermark
// and lone end records at the head of every queue. It reports whether it
// read anything.
func (m *merger) fill(ctx context.Context) (bool, error) {
	got := false
	for _, in := range m.ins {
		if len(in.q) == 0 {
			n, err := in.poll(ctx, 10*time.Millisecond)
			if err != nil {
				return got, err
			}
			got = got || n > 0
		}
		m.skipControl(in)
	}
	return got, nil
}

// skipControl consumes the watermark records (and end records without
// rows) at the head of the shard's queue.
func (m *merger) skipControl(in *mergeIn) {
	for len(in.q) > 0 && headerValue(in.q[0], hdrKind) != "row" {
		r := in.q[0]
		in.q = in.q[1:]
		in.Offset = r.Offset + 1
		in.Watermark = max(in.Watermark, tsHeader(r))
		m.dirty = true
	}
}

// poll reads what the shard's journal has (waiting up to wait).
func (in *mergeIn) poll(ctx context.Context, wait time.Duration) (int, error) {
	pctx, cancel := context.WithTimeout(ctx, wait)
	fs := in.cl.PollRecords(pctx, 5000)
	cancel()
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	var ferr error
	fs.EachError(func(t string, _ int32, err error) {
		switch {
		case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) || ferr != nil:
		case errors.Is(err, kerr.OffsetOutOfRange):
			ferr = exitcode.ConfigError(fmt.Errorf("merge: the journal %s no longer has offset %d, the next one to merge (deleted by hand or by a "+
				"retention set on it): the merged topic cannot go on without losing transactions; start a new --merged-topic", t, in.Offset))
		default:
			ferr = fmt.Errorf("kafka: reading the journal %s: %w", t, err)
		}
	})
	if ferr != nil {
		return 0, ferr
	}
	n := 0
	fs.EachRecord(func(r *kgo.Record) {
		if r.Offset >= in.Offset { // never a record before the committed offset
			in.q = append(in.q, r)
			n++
		}
	})
	return n, nil
}

func tsHeader(r *kgo.Record) int64 {
	n, _ := strconv.ParseInt(headerValue(r, hdrTS), 10, 64)
	return n
}

// mergeTime is the time the shard's next transaction is merged at: its
// commit time, never earlier than the shard's last merged transaction or
// watermark (a binlog timestamp can go back: one-second resolution, a
// COMMIT that began before it was written, SET TIMESTAMP), nor than what
// was already released.
func (m *merger) mergeTime(in *mergeIn) int64 {
	return max(tsHeader(in.q[0]), in.Last, in.Watermark, m.st.Released)
}

// releasable returns the shard whose head transaction goes next, or nil
// when none may yet: the earliest head (ties to the earlier shard), once
// every shard without a transaction waiting has a watermark at or past it.
func (m *merger) releasable() *mergeIn {
	var best *mergeIn
	var bt int64
	for _, in := range m.ins {
		m.skipControl(in)
		if len(in.q) == 0 {
			continue
		}
		if t := m.mergeTime(in); best == nil || t < bt {
			best, bt = in, t
		}
	}
	if best == nil {
		m.setHeldBy("")
		return nil
	}
	for _, in := range m.ins {
		if len(in.q) == 0 && (in.Watermark == 0 || in.Watermark < bt) {
			m.setHeldBy(in.Stream)
			return nil
		}
	}
	m.setHeldBy("")
	return best
}

func (m *merger) setHeldBy(s string) {
	if m.st.HeldBy != s {
		m.st.HeldBy = s
		m.dirty = true
	}
}

// emit copies the head transaction of in into the merged topic.
func (m *merger) emit(ctx context.Context, in *mergeIn) error {
	at := m.mergeTime(in)
	if !m.open {
		if err := m.store.cl.BeginTransaction(); err != nil {
			return fmt.Errorf("kafka: merger: begin transaction: %w", err)
		}
		m.open, m.produced, m.began = true, 0, time.Now()
	}
	ts := []byte(strconv.FormatInt(at, 10))
	shard := []byte(in.Stream)
	for {
		if len(in.q) == 0 {
			// The end record is in the same Kafka transaction as the rows,
			// so it is already readable: wait for it.
			n, err := in.poll(ctx, 30*time.Second)
			if err != nil {
				return err
			}
			if n == 0 {
				return fmt.Errorf("merge: the journal %s has a transaction without its end record at offset %d", in.Journal, in.Offset)
			}
		}
		r := in.q[0]
		in.q = in.q[1:]
		in.Offset = r.Offset + 1
		switch headerValue(r, hdrKind) {
		case "row":
			out := &kgo.Record{Topic: m.cfg.Topic, Partition: 0, Key: r.Key, Value: r.Value,
				Headers: []kgo.RecordHeader{{Key: hdrShard, Value: shard}, {Key: hdrTS, Value: ts},
					{Key: hdrTopic, Value: []byte(headerValue(r, hdrTopic))}}}
			m.produced++
			m.store.cl.Produce(ctx, out, func(_ *kgo.Record, err error) {
				if err != nil {
					select {
					case m.perr <- err:
					default:
					}
				}
			})
		case "wm":
			in.Watermark = max(in.Watermark, tsHeader(r))
		case "end":
			in.Last = at
			in.Watermark = max(in.Watermark, at)
			m.st.Released = at
			m.st.Txns++
			m.dirty = true
			return nil
		}
	}
}

// commit writes the state record and commits the open transaction (or a
// transaction with only the state, to keep status current).
func (m *merger) commit(ctx context.Context) error {
	cl := m.store.cl
	if !m.open {
		if err := cl.BeginTransaction(); err != nil {
			return fmt.Errorf("kafka: merger: begin transaction: %w", err)
		}
		m.open = true
	}
	m.st.Shards = m.st.Shards[:0]
	for _, in := range m.ins {
		m.st.Shards = append(m.st.Shards, in.mergeShardState)
	}
	m.st.UpdatedAt = time.Now().UTC()
	b, err := json.Marshal(m.st)
	if err != nil {
		m.abort()
		return err
	}
	rec := &kgo.Record{Topic: m.store.cfg.OffsetsTopic(), Partition: 0, Key: []byte(mergeKey(m.cfg.Topic)), Value: b}
	if err := cl.ProduceSync(ctx, rec).FirstErr(); err != nil {
		m.abort()
		return fmt.Errorf("kafka: merger: %w", err)
	}
	if err := cl.Flush(ctx); err != nil {
		m.abort()
		return fmt.Errorf("kafka: merger: %w", err)
	}
	select {
	case err := <-m.perr:
		m.abort()
		return fmt.Errorf("kafka: merger: produce to %s: %w", m.cfg.Topic, err)
	default:
	}
	if err := cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
		m.open = false
		return fmt.Errorf("kafka: merger: commit transaction: %w", err)
	}
	m.open, m.dirty, m.lastSave = false, false, time.Now()
	if time.Since(m.lastTrim) > 10*time.Second {
		m.trim(ctx)
	}
	return nil
}

// trim deletes the journal records the committed state has merged: the
// journals hold only what is not merged yet.
func (m *merger) trim(ctx context.Context) {
	m.lastTrim = time.Now()
	var os kadm.Offsets
	for _, sh := range m.st.Shards {
		if sh.Offset > 0 {
			os.Add(kadm.Offset{Topic: sh.Journal, Partition: 0, At: sh.Offset})
		}
	}
	if len(os) == 0 {
		return
	}
	resp, err := m.store.adm.DeleteRecords(ctx, os)
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		m.cfg.Log.Warn("merge: deleting merged journal records", "error", err)
	}
}

// abort ends an open transaction without committing: its records are
// never seen by a read_committed consumer, and the caller starts again
// from the last committed state.
func (m *merger) abort() {
	if !m.open {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = m.store.cl.AbortBufferedRecords(ctx)
	_ = m.store.cl.EndTransaction(ctx, kgo.TryAbort)
	m.open = false
}

func (m *merger) progress() MergeProgress {
	p := MergeProgress{Watermarks: map[string]time.Time{}, HeldBy: m.st.HeldBy}
	if m.st.Released != 0 {
		p.Released = time.UnixMilli(m.st.Released)
	}
	for _, in := range m.ins {
		var t time.Time
		if in.Watermark != 0 {
			t = time.UnixMilli(in.Watermark)
		}
		p.Watermarks[in.Stream] = t
	}
	return p
}
