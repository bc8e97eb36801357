package drop

import (
	"context"
	"fmt"
	"strings"

	"github.com/sluice-db/sluice/internal/cutover"
	kafkasink "github.com/sluice-db/sluice/internal/sink/kafka"
)

// Kafka is the state topics of a `sluice stream` topic prefix.
type Kafka struct {
	Brokers []string
	Prefix  string
}

// kafkaSide is a topic prefix: the streams' records in <prefix>.sluice.offsets
// and <prefix>.sluice.schema (the data topics are the consumers' and stay).
type kafkaSide struct {
	k     Kafka
	where string
	kept  *kafkasink.Kept // read once
}

func connectKafka(k Kafka, where string) *kafkaSide { return &kafkaSide{k: k, where: where} }

func (s *kafkaSide) close() {}

func (s *kafkaSide) read(ctx context.Context, stream string) ([]kafkasink.KeptShard, error) {
	if s.kept == nil {
		kept, err := kafkasink.ReadKept(ctx, s.k.Brokers, s.k.Prefix)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.where, err)
		}
		s.kept = kept
	}
	return s.kept.Of(stream), nil
}

func (s *kafkaSide) streams(ctx context.Context) ([]string, error) {
	sts, err := kafkasink.ReadStatus(ctx, s.k.Brokers, s.k.Prefix)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.where, err)
	}
	out := make([]string, len(sts))
	for i, st := range sts {
		out[i] = st.Stream
	}
	return out, nil
}

func (s *kafkaSide) boundary(context.Context, string) (*cutover.Boundary, error) { return nil, nil }

func (s *kafkaSide) running(ctx context.Context, streams []string) (string, error) {
	for _, n := range streams {
		shards, err := s.read(ctx, n)
		if err != nil {
			return "", err
		}
		who, err := s.kept.Running(ctx, shards)
		if err != nil || who != "" {
			return who, err
		}
	}
	return "", nil
}

func (s *kafkaSide) plan(ctx context.Context, streams []string) ([]Item, error) {
	var items []Item
	for _, n := range streams {
		shards, err := s.read(ctx, n)
		if err != nil {
			return nil, err
		}
		for _, sh := range shards {
			var what []string
			if len(sh.Offsets) > 0 {
				what = append(what, plural(int64(len(sh.Offsets)), "record")+" in "+s.k.Prefix+".sluice.offsets")
			}
			if len(sh.Schema) > 0 {
				what = append(what, plural(int64(len(sh.Schema)), "schema-history record")+" in "+s.k.Prefix+".sluice.schema")
			}
			items = append(items, Item{Server: s.where, What: "stream " + sh.Stream + ": " + strings.Join(what, ", ") + " (tombstones)",
				remove: func(ctx context.Context) error { return s.kept.Forget(ctx, sh) }})
		}
	}
	return items, nil
}
