package kafka

import (
	"context"
	"fmt"
	"strings"

	"github.com/sluice-db/sluice/internal/target"
)

// kafkaSide is a topic prefix: the streams' records in <prefix>.sluice.offsets
// and <prefix>.sluice.schema (the data topics are the consumers' and stay).
type kafkaSide struct {
	k     Config
	where string
	kept  *Kept // read once
}

// DropName names the brokers and the topic prefix (target.Dropper).
func (e engine) DropName() string {
	return strings.Join(e.cfg.Brokers, ",") + " topic prefix " + e.cfg.Prefix
}

// ConnectDrop reads the prefix's state topics lazily (target.Dropper).
func (e engine) ConnectDrop(_ context.Context, where string) (target.DropSide, error) {
	return &kafkaSide{k: e.cfg, where: where}, nil
}

func (s *kafkaSide) Close() {}

func (s *kafkaSide) read(ctx context.Context, stream string) ([]KeptShard, error) {
	if s.kept == nil {
		kept, err := ReadKept(ctx, s.k.Brokers, s.k.Prefix)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.where, err)
		}
		s.kept = kept
	}
	return s.kept.Of(stream), nil
}

func (s *kafkaSide) Streams(ctx context.Context) ([]string, error) {
	sts, err := ReadStatus(ctx, s.k.Brokers, s.k.Prefix)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.where, err)
	}
	out := make([]string, len(sts))
	for i, st := range sts {
		out[i] = st.Stream
	}
	return out, nil
}

func (s *kafkaSide) ReverseStream(context.Context, string) (string, error) { return "", nil }

func (s *kafkaSide) Running(ctx context.Context, streams []string) (string, error) {
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

func (s *kafkaSide) Plan(ctx context.Context, streams []string) ([]target.DropItem, error) {
	var items []target.DropItem
	for _, n := range streams {
		shards, err := s.read(ctx, n)
		if err != nil {
			return nil, err
		}
		for _, sh := range shards {
			var what []string
			if len(sh.Offsets) > 0 {
				what = append(what, target.Plural(int64(len(sh.Offsets)), "record")+" in "+s.k.Prefix+".sluice.offsets")
			}
			if len(sh.Schema) > 0 {
				what = append(what, target.Plural(int64(len(sh.Schema)), "schema-history record")+" in "+s.k.Prefix+".sluice.schema")
			}
			items = append(items, target.DropItem{What: "stream " + sh.Stream + ": " + strings.Join(what, ", ") + " (tombstones)",
				Remove: func(ctx context.Context) error { return s.kept.Forget(ctx, sh) }})
		}
	}
	return items, nil
}
