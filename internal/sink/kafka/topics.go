package kafka

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
)

// groupTopics creates, before a group's Kafka transaction begins, the
// topics of its tables that this run has not written yet, in one request.
// Created from within the transaction (checkRecords, one topic at a time,
// two round trips each), they held it open while the records already sent
// sat on shared partitions: the first writes to 8 new tables on a busy
// broker kept one shard's transaction open 1.2-1.4 s, and with it (the
// last stable offset) the other shard's committed heartbeats.
func (s *Sink) groupTopics(ctx context.Context, txns []*model.Txn) error {
	var missing []string
	var last *schema.Table
	for _, t := range txns {
		for i := range t.Changes {
			tb := t.Changes[i].Table
			if tb == nil || tb == last {
				continue
			}
			last = tb
			topic := s.cfg.TableTopic(tb.TableID)
			if _, ok := s.store.topics.get(topic); ok || slices.Contains(missing, topic) {
				continue
			}
			missing = append(missing, topic)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return s.store.ensureDataTopics(ctx, missing)
}

// openTopics creates, when the stream opens, the topics of every table it
// captures (the schema of its checkpoint) that do not exist yet, a few
// hundred per request. A table's first event then finds its topic there: a
// stream started on idle shards paid the creation, and the producer's first
// metadata of the new topics, in the delay of the first events under load
// (0.3-0.6 s on a busy broker, twice, as the first groups reached the tables).
// Debezium creates a topic at a table's first event; here a captured table
// that is never written has an empty topic.
func (s *Sink) openTopics(ctx context.Context, version int64) error {
	var topics []string
	for id := range s.store.Schema(version) {
		t := s.cfg.TableTopic(id)
		if _, ok := s.store.topics.get(t); !ok {
			topics = append(topics, t)
		}
	}
	sort.Strings(topics)
	for len(topics) > 0 {
		n := min(len(topics), topicsPerRequest)
		if err := s.store.ensureDataTopics(ctx, topics[:n]); err != nil {
			return err
		}
		topics = topics[n:]
	}
	return nil
}

// topicsPerRequest bounds one CreateTopics or DescribeConfigs request.
const topicsPerRequest = 500

// ensureDataTopics creates table topics (Config.Partitions, the broker's
// defaults otherwise) in one request and remembers their max.message.bytes:
// from the creation's answer, or for topics that already existed, one
// DescribeConfigs of them all. A name ensureTopic treats specially (the
// schema-change topic, a journal) goes through ensureTopic.
func (s *Store) ensureDataTopics(ctx context.Context, topics []string) error {
	var plain []string
	for _, t := range topics {
		if t == s.cfg.DDLTopic() || isJournalTopic(s.cfg.Prefix, t) {
			if err := s.ensureTopic(ctx, t, false); err != nil {
				return err
			}
			continue
		}
		plain = append(plain, t)
	}
	if len(plain) == 0 {
		return nil
	}
	resps, err := s.adm.CreateTopics(ctx, s.cfg.Partitions, -1, nil, plain...)
	if err != nil {
		return fmt.Errorf("kafka: create topics %s: %w", strings.Join(plain, ", "), err)
	}
	var describe []string
	for _, t := range plain {
		r, ok := resps[t]
		switch {
		case !ok:
			return fmt.Errorf("kafka: create topic %s: no answer from the broker", t)
		case r.Err != nil && !errors.Is(r.Err, kerr.TopicAlreadyExists):
			return fmt.Errorf("kafka: create topic %s: %w", t, r.Err)
		}
		if c, ok := r.Configs["max.message.bytes"]; ok && r.Err == nil {
			if n, ok := messageMax(c.Value); ok {
				s.topics.set(t, n)
				continue
			}
		}
		describe = append(describe, t)
	}
	if len(describe) > 0 {
		s.describeLimits(ctx, describe...)
	}
	return nil
}

// describeLimits remembers the topics' max.message.bytes as one
// DescribeConfigs gives them, the broker's default where it does not answer.
func (s *Store) describeLimits(ctx context.Context, topics ...string) {
	limits := map[string]int32{}
	if rcs, err := s.adm.DescribeTopicConfigs(ctx, topics...); err == nil {
		for _, rc := range rcs {
			for _, c := range rc.Configs {
				if c.Key == "max.message.bytes" {
					if n, ok := messageMax(c.Value); ok {
						limits[rc.Name] = n
					}
				}
			}
		}
	}
	for _, t := range topics {
		limit, ok := limits[t]
		if !ok {
			limit = brokerMessageMax
		}
		s.topics.set(t, limit)
	}
}

// messageMax parses a max.message.bytes setting.
func messageMax(v *string) (int32, bool) {
	if v == nil {
		return 0, false
	}
	n, err := strconv.ParseInt(*v, 10, 32)
	return int32(n), err == nil
}
