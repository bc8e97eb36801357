package kafka

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/schema"
)

// writer is a stream whose schema history is in the prefix's schema topic:
// every table it ever captured, and where it wrote their events.
type writer struct {
	stream string
	placement
	tables map[schema.TableID]bool
}

// readWriters reads every stream's schema history, this stream's too,
// committed before a marker written now: the snapshot of a stream commits
// its schema with its rows, so every stream whose records a topic showed
// before is among them (another shard of this run that has just committed
// its snapshot too).
func (s *Store) readWriters(ctx context.Context) (map[string]*writer, error) {
	marks, err := s.mark(ctx, s.cfg.SchemaTopic())
	if err != nil {
		return nil, fmt.Errorf("kafka: mark the schema topic: %w", err)
	}
	writers := map[string]*writer{}
	err = s.readRange(ctx, s.cfg.SchemaTopic(), 0, marks[0].Offset, func(r *kgo.Record) error {
		var sr schemaRecord
		if r.Value == nil || !strings.Contains(string(r.Key), "\x00v") || json.Unmarshal(r.Value, &sr) != nil || sr.Stream == "" {
			return nil
		}
		w := writers[sr.Stream]
		if w == nil {
			w = &writer{stream: sr.Stream, tables: map[schema.TableID]bool{}}
			writers[sr.Stream] = w
		}
		w.placement = sr.placement
		for _, t := range sr.Tables {
			w.tables[t.TableID] = true
		}
		return nil
	})
	return writers, err
}

// wrote reports whether w wrote table id's events into topic.
func (w *writer) wrote(prefix string, id schema.TableID, topic string) bool {
	c := Config{Prefix: prefix, Layout: layoutOf(w.Layout), Shard: w.Shard}
	return w.tables[id] && c.TableTopic(id) == topic
}

// collision says why the events of a stream placed as c and those w wrote
// into one topic would be wrong together, "" when they are not: only two
// different servers whose keys each name their shard can share a topic.
func (w *writer) collision(c Config) string {
	sameServer := w.Shard == c.Shard || (w.SourceID != "" && w.SourceID == c.SourceID)
	switch {
	case w.stream == c.Stream:
		return fmt.Sprintf("an earlier run of stream %q, whose state is no longer in %s", w.stream, c.OffsetsTopic())
	case layoutOf(w.Layout) == LayoutKey && c.Layout == LayoutKey && !sameServer:
		return ""
	case sameServer:
		return fmt.Sprintf("stream %q of the same server%s", w.stream, caseHint(w.stream, c.Stream))
	case layoutOf(w.Layout) != LayoutKey:
		return fmt.Sprintf("stream %q of another server, whose keys do not name their shard (--shard-layout %s): "+
			"rows of the two servers with the same key would collide", w.stream, layoutOf(w.Layout))
	}
	return fmt.Sprintf("stream %q of another server, whose keys name their shard where this stream's would not (--shard-layout %s; "+
		"--shard-layout key would share the topics)", w.stream, c.Layout)
}

func caseHint(other, stream string) string {
	if other != stream && strings.EqualFold(other, stream) {
		return fmt.Sprintf(", a name that differs from --stream %s only in case (Kafka's state keys and transactional ids are case-sensitive: two streams)", stream)
	}
	return ""
}

// CheckNewStream refuses to start a stream that has no state of its own
// over topics holding another history: a read_committed consumer would see
// both, interleaved, and a row deleted between the two (no tombstone in
// either) stays. The topics of tables, as this stream would name them, may
// hold committed records only of other servers' streams whose keys, like
// this stream's, name their shard (LayoutKey). ReuseTopics writes anyway.
func (s *Store) CheckNewStream(ctx context.Context, tables []*schema.Table) error {
	if s.state != nil || s.cfg.ReuseTopics || len(tables) == 0 {
		return nil
	}
	byTopic := map[string]schema.TableID{}
	var topics []string
	for _, tb := range tables {
		t := s.cfg.TableTopic(tb.TableID)
		byTopic[t] = tb.TableID
		topics = append(topics, t)
	}
	held, err := s.heldTopics(ctx, topics)
	if err != nil || len(held) == 0 {
		return err
	}
	writers, err := s.readWriters(ctx) // after heldTopics: the writers of what it saw are in
	if err != nil {
		return err
	}
	var why []string
	for _, t := range held {
		var by []string
		found := false
		for _, name := range sortedKeys(writers) {
			w := writers[name]
			if !w.wrote(s.cfg.Prefix, byTopic[t], t) {
				continue
			}
			found = true
			if c := w.collision(s.cfg); c != "" {
				by = append(by, c)
			}
		}
		if !found {
			by = append(by, "no stream of the prefix (an earlier run whose state is gone, or another producer)")
		}
		if len(by) > 0 {
			why = append(why, fmt.Sprintf("topic %s holds records of %s", t, strings.Join(by, " and of ")))
		}
	}
	if len(why) == 0 {
		return nil
	}
	if len(why) > 3 {
		why = append(why[:3], fmt.Sprintf("and %d more topics", len(why)-3))
	}
	return exitcode.ConfigError(fmt.Errorf("kafka: stream %q is new (no state in %s) but its topics hold another history: %s; "+
		"writing a second history into them would interleave the two for every consumer (rows deleted in between would stay); "+
		"fix: pass another --topic-prefix, or (to go on with an earlier stream) run it under its own --stream name, or delete those topics first "+
		"(kafka-topics.sh --delete), or pass --reuse-topics to write into them anyway (docs/kafka.md)",
		s.cfg.Stream, s.cfg.OffsetsTopic(), strings.Join(why, "; ")))
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// heldTopics returns, in order, the topics that hold at least one committed
// record: what a read_committed consumer of them would see. A topic holding
// only aborted transactions (a snapshot killed before its commit) holds
// none; a topic that does not exist holds none.
func (s *Store) heldTopics(ctx context.Context, topics []string) ([]string, error) {
	starts, err := s.adm.ListStartOffsets(ctx, topics...)
	if err != nil {
		return nil, fmt.Errorf("kafka: list the start offsets of %s: %w", strings.Join(topics, ", "), err)
	}
	ends, err := s.adm.ListCommittedOffsets(ctx, topics...)
	if err != nil {
		return nil, fmt.Errorf("kafka: list the committed offsets of %s: %w", strings.Join(topics, ", "), err)
	}
	from := map[string]map[int32]kgo.Offset{}
	last := map[string]map[int32]int64{} // per partition, the last decided offset
	for t, ps := range ends {
		for p, e := range ps {
			st, ok := starts.Lookup(t, p)
			if e.Err != nil || !ok || st.Err != nil || st.Offset >= e.Offset {
				continue // no such topic, or nothing decided in the partition
			}
			if from[t] == nil {
				from[t], last[t] = map[int32]kgo.Offset{}, map[int32]int64{}
			}
			from[t][p], last[t][p] = kgo.NewOffset().At(st.Offset), e.Offset-1
		}
	}
	if len(from) == 0 {
		return nil, nil
	}
	// Read_committed drops aborted records; the commit and abort markers are
	// kept, so a partition is read to its last decided offset, where the
	// marker of its last transaction (or a committed record) is, and no
	// further: the first committed record settles a topic.
	cl, err := kgo.NewClient(kgo.SeedBrokers(s.cfg.Brokers...), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.KeepControlRecords(), kgo.ConsumePartitions(from))
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	var held []string
	for len(last) > 0 {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("kafka: reading whether the topics %s hold records: %w", strings.Join(sortedKeys(last), ", "), err)
		}
		var ferr error
		fs.EachError(func(t string, _ int32, err error) { ferr = fmt.Errorf("kafka: reading %s: %w", t, err) })
		if ferr != nil {
			return nil, ferr
		}
		fs.EachRecord(func(r *kgo.Record) {
			ps := last[r.Topic]
			end, ok := ps[r.Partition]
			switch {
			case !ok:
			case !r.Attrs.IsControl():
				held = append(held, r.Topic)
				delete(last, r.Topic)
			case r.Offset >= end:
				if delete(ps, r.Partition); len(ps) == 0 {
					delete(last, r.Topic)
				}
			}
		})
	}
	slices.Sort(held)
	return held, nil
}
