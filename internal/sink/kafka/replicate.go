package kafka

import (
	"context"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/target"
	"github.com/sluice-db/sluice/internal/typemap"
)

// replica is a Kafka cluster as one run's target (target.Replica): the
// stream's state and schema history live in compacted topics, written in
// the same Kafka transactions as the events. Each run connects a new
// transactional producer, which fences the producers of earlier runs.
type replica struct{ store *Store }

// ConnectReplica connects the run's producer (target.Replicated).
func (e engine) ConnectReplica(ctx context.Context, o target.ReplicaOptions) (target.Replica, error) {
	cfg := e.cfg
	cfg.Stream = o.Stream
	store, err := Connect(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &replica{store: store}, nil
}

func (t *replica) PostGIS(context.Context) (bool, error) { return false, nil }

func (t *replica) LoadState(context.Context, string) (*pipeline.State, error) {
	st, _, err := t.store.State()
	return st, err
}

func (t *replica) LoadSchema(_ context.Context, _ string, version int64) (map[schema.TableID]*schema.Table, error) {
	return t.store.Schema(version), nil
}

func (t *replica) RecordStart(ctx context.Context, _ string, pos model.Position, tables []*schema.Table) error {
	return t.store.RecordStart(ctx, pos, tables)
}

func (t *replica) Sink(c target.SinkConfig) (pipeline.Sink, error) {
	return New(t.store, c.Mapper.Options().Charsets), nil
}

func (t *replica) LoadPolicyChanges(context.Context, string) ([]typemap.ChangeCount, error) {
	return nil, nil
}

func (t *replica) SavePolicyChanges(context.Context, string, []typemap.ChangeCount) error {
	return nil
}

func (t *replica) Close() { t.store.Close() }
