package kafka

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/model"
)

// The journal of a shard (--merged-topic) is a single-partition topic
// <prefix>.sluice.journal.<stream> that the shard's transactional producer
// writes in the same Kafka transactions as the table topics: a copy of each
// change event (tombstones left out) and, after each source transaction, an
// end record. With one apply worker, groups commit in source order, so the
// journal holds the shard's transactions in binlog commit order, which the
// table topics cannot give across topics. The shard's watermark writer
// (internal/stream) adds watermark records. The merger (merge.go) reads every
// shard's journal read_committed and writes the merged topic.

// Journal record headers.
const (
	hdrKind  = "sluice.kind"  // "row", "end" (of a source transaction) or "wm" (watermark)
	hdrTS    = "sluice.ts"    // commit time (row, end) or watermark, Unix milliseconds
	hdrTopic = "sluice.topic" // the table topic of a row event
	hdrShard = "sluice.shard" // merged topic: the shard's stream name
	hdrTxn   = "sluice.txn"   // end record: the source transaction's end position key
)

// Journal is a shard's journal topic and the source position the shard has
// committed up to in Kafka (everything at or before it is in the journal).
// The sink updates it; the watermark writer reads it. Safe for concurrent use.
type Journal struct {
	Topic string
	// Merged is the merged topic the journal feeds.
	Merged string

	mu        sync.Mutex
	committed model.Position
}

// JournalTopic names the journal of stream: characters Kafka does not
// allow in topic names (the '@' and ':' of NAME@host:port) become '_'.
func JournalTopic(prefix, stream string) string {
	b := []byte(stream)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	return prefix + ".sluice.journal." + string(b)
}

func isJournalTopic(prefix, topic string) bool {
	return strings.HasPrefix(topic, prefix+".sluice.journal.")
}

// Committed returns the position up to which the shard's transactions are
// committed in the journal (nil before the first commit of this run).
func (j *Journal) Committed() model.Position {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.committed
}

// note moves the committed position forward (never back).
func (j *Journal) note(p model.Position) {
	if j == nil || p == nil {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.committed == nil || j.committed.Compare(p) < 0 {
		j.committed = p
	}
}

func header(k, v string) kgo.RecordHeader { return kgo.RecordHeader{Key: k, Value: []byte(v)} }

func msString(t time.Time) string { return strconv.FormatInt(t.UnixMilli(), 10) }

// journalRows copies a transaction's change events into journal records
// carrying its commit time: not the tombstones, nor the BEGIN/END records
// of --transaction-metadata (the events' transaction block stays).
func (j *Journal) journalRows(recs []*kgo.Record, commit time.Time, txnTopic string) []*kgo.Record {
	out := make([]*kgo.Record, 0, len(recs)+1)
	ts := msString(commit)
	for _, r := range recs {
		if r.Value == nil || r.Topic == txnTopic {
			continue
		}
		out = append(out, &kgo.Record{Topic: j.Topic, Key: r.Key, Value: r.Value,
			Headers: []kgo.RecordHeader{header(hdrKind, "row"), header(hdrTS, ts), header(hdrTopic, r.Topic)}})
	}
	return out
}

// journalEnd is the record closing a source transaction in the journal.
func (j *Journal) journalEnd(commit time.Time, end model.Position) *kgo.Record {
	key := ""
	if end != nil {
		key = end.Key()
	}
	return &kgo.Record{Topic: j.Topic, Headers: []kgo.RecordHeader{header(hdrKind, "end"), header(hdrTS, msString(commit)), header(hdrTxn, key)}}
}

// WatermarkRecord is a journal record saying that every transaction of the
// shard committed in Kafka before it has a commit time at or before ts, and
// every later one a commit time at or after ts.
func WatermarkRecord(topic string, ts time.Time) *kgo.Record {
	return &kgo.Record{Topic: topic, Headers: []kgo.RecordHeader{header(hdrKind, "wm"), header(hdrTS, msString(ts))}}
}

func headerValue(r *kgo.Record, k string) string {
	for _, h := range r.Headers {
		if h.Key == k {
			return string(h.Value)
		}
	}
	return ""
}

// markJournal records in the stream's state, before anything of this run
// is journaled, that the stream writes the journal of its merged topic.
func (s *Store) markJournal(ctx context.Context) error {
	j := s.cfg.Journal
	if j == nil || s.state == nil || s.state.Merged == j.Merged {
		return nil
	}
	next := s.next(func(*stateRecord) {})
	rec, err := s.stateRec(next)
	if err != nil {
		return err
	}
	if _, err := s.transact(ctx, func() ([]*kgo.Record, error) { return []*kgo.Record{rec}, nil }); err != nil {
		return fmt.Errorf("kafka: stream %q: %w", s.cfg.Stream, err)
	}
	s.state = next
	return nil
}

// checkJournalGap refuses to journal a stream whose last run did not write
// the journal of this merged topic while the merged topic has merged the
// stream before: the transactions of that run are missing from the journal,
// and the merged topic would go on without them.
func (s *Store) checkJournalGap(ctx context.Context, end int64) error {
	j := s.cfg.Journal
	if j == nil || s.state == nil || s.state.Merged == j.Merged {
		return nil
	}
	prev, err := readLast(ctx, s.cfg.Brokers, s.cfg.OffsetsTopic(), mergeKey(j.Merged), end)
	if err != nil || prev == nil {
		return err
	}
	var ms mergeState
	if err := json.Unmarshal(prev, &ms); err != nil {
		return fmt.Errorf("kafka: the merger state of %s: %w", j.Merged, err)
	}
	for _, sh := range ms.Shards {
		// Offset 0: the merger lists the shard but never read its journal
		// (a first run with this merged topic, merger started first).
		if sh.Stream == s.cfg.Stream && sh.Offset > 0 {
			return exitcode.ConfigError(fmt.Errorf("stream %q ran without --merged-topic %s since that topic last merged it: its transactions "+
				"of that run are not in the journal, so %s cannot go on in order without losing them; use a new --merged-topic name",
				s.cfg.Stream, j.Merged, j.Merged))
		}
	}
	return nil
}
