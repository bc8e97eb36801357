package kafka

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sluice-db/sluice/internal/target"
)

// mark commits a marker record in each topic (state topics): every record
// before it is decided, so reading up to its offset sees what is final.
func (s *Store) mark(ctx context.Context, topics ...string) ([]*kgo.Record, error) {
	return s.transact(ctx, func() ([]*kgo.Record, error) {
		v := []byte(strconv.FormatInt(time.Now().UnixNano(), 10))
		recs := make([]*kgo.Record, len(topics))
		for i, t := range topics {
			recs[i] = &kgo.Record{Topic: t, Key: []byte(s.cfg.Stream + "\x00fence"), Value: v}
		}
		return recs, nil
	})
}

// readState finds the stream's last state record before offset end of the
// offsets topic, reading back from the end in growing windows.
func (s *Store) readState(ctx context.Context, end int64) error {
	for window := int64(512); ; window *= 4 {
		from := max(0, end-window)
		var found *stateRecord
		decided := false // a record or a tombstone (sluice drop) of the stream
		err := s.readRange(ctx, s.cfg.OffsetsTopic(), from, end, func(r *kgo.Record) error {
			if string(r.Key) != s.cfg.Stream {
				return nil
			}
			decided = true
			if r.Value == nil {
				found = nil
				return nil
			}
			var st stateRecord
			if err := json.Unmarshal(r.Value, &st); err != nil {
				return fmt.Errorf("kafka: the state of stream %q at %s offset %d: %w", s.cfg.Stream, r.Topic, r.Offset, err)
			}
			found = &st
			return nil
		})
		if err != nil {
			return err
		}
		if decided || from == 0 {
			s.state = found
			return nil
		}
	}
}

// readBulk reads the stream's snapshot records (bulk.go) committed before
// the fence marker of open, from the state's SnapshotFrom on (without a
// state, from the topic's start). It returns them and the offset of the
// first record it met (0: none).
func (s *Store) readBulk(ctx context.Context) (target.BulkState, int64, error) {
	var from int64
	if s.state != nil {
		from = s.state.SnapshotFrom
	}
	prefix := bulkPrefix(s.cfg.Stream)
	out := target.BulkState{}
	first := int64(-1)
	err := s.readRange(ctx, s.cfg.OffsetsTopic(), from, s.offsetsEnd, func(r *kgo.Record) error {
		k, ok := strings.CutPrefix(string(r.Key), prefix)
		if !ok {
			return nil
		}
		if first < 0 {
			first = r.Offset
		}
		if r.Value == nil {
			delete(out, k)
		} else {
			out[k] = r.Value
		}
		return nil
	})
	return out, max(first, 0), err
}

func (s *Store) readSchemas(ctx context.Context, end int64) error {
	s.schemas = nil
	var keys []string
	byKey := map[string]schemaRecord{}
	err := s.readRange(ctx, s.cfg.SchemaTopic(), 0, end, func(r *kgo.Record) error {
		key := string(r.Key)
		if !strings.HasPrefix(key, s.cfg.Stream+"\x00v") {
			return nil
		}
		if r.Value == nil { // a tombstone (sluice drop)
			delete(byKey, key)
			return nil
		}
		var sr schemaRecord
		if err := json.Unmarshal(r.Value, &sr); err != nil {
			return fmt.Errorf("kafka: schema history of stream %q at %s offset %d: %w", s.cfg.Stream, r.Topic, r.Offset, err)
		}
		if _, seen := byKey[key]; !seen {
			keys = append(keys, key)
		}
		byKey[key] = sr
		return nil
	})
	for _, key := range keys {
		if sr, ok := byKey[key]; ok {
			s.schemas = append(s.schemas, sr)
		}
	}
	return err
}

// readRange reads the committed records of partition 0 of topic in [from, end).
func (s *Store) readRange(ctx context.Context, topic string, from, end int64, each func(*kgo.Record) error) error {
	return readRange(ctx, s.cfg.Brokers, topic, from, end, each)
}

func readRange(ctx context.Context, brokers []string, topic string, from, end int64, each func(*kgo.Record) error) error {
	if from >= end {
		return nil
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().At(from)}}))
	if err != nil {
		return err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("kafka: reading %s up to offset %d: %w", topic, end, err)
		}
		var ferr error
		fs.EachError(func(t string, p int32, err error) { ferr = fmt.Errorf("kafka: reading %s: %w", t, err) })
		if ferr != nil {
			return ferr
		}
		done := false
		var cbErr error
		fs.EachRecord(func(r *kgo.Record) {
			if done || cbErr != nil {
				return
			}
			if r.Offset >= end {
				done = true
				return
			}
			cbErr = each(r)
		})
		if cbErr != nil {
			return cbErr
		}
		if done {
			return nil
		}
	}
}
