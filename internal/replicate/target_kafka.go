package replicate

import (
	"context"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/schema"
	kafkasink "github.com/sluice-db/sluice/internal/sink/kafka"
	"github.com/sluice-db/sluice/internal/typemap"
)

// kafkaTarget is a Kafka cluster (Options.Kafka): the stream's state and
// schema history live in compacted topics, written in the same Kafka
// transactions as the events (internal/sink/kafka). Each run connects a new
// transactional producer, which fences the producers of earlier runs.
type kafkaTarget struct {
	store *kafkasink.Store
}

func (t *kafkaTarget) connect(ctx context.Context, o Options) error {
	cfg := *o.Kafka
	cfg.Stream = o.Stream
	var err error
	t.store, err = kafkasink.Connect(ctx, cfg)
	return err
}

func (t *kafkaTarget) postGIS(context.Context) (bool, error) { return false, nil }

func (t *kafkaTarget) loadState(context.Context, string) (*checkpoint.State, error) {
	st, _, err := t.store.State()
	return st, err
}

func (t *kafkaTarget) loadSchema(_ context.Context, _ string, version int64) (map[schema.TableID]*schema.Table, error) {
	return t.store.Schema(version), nil
}

func (t *kafkaTarget) recordStart(ctx context.Context, _ string, pos model.Position, tables []*schema.Table) error {
	return t.store.RecordStart(ctx, pos, tables)
}

func (t *kafkaTarget) sink(r *runner) (pipeline.Sink, error) {
	return kafkasink.New(t.store, r.mapper.Options().Charsets), nil
}

func (t *kafkaTarget) loadPolicyChanges(context.Context, string) ([]typemap.ChangeCount, error) {
	return nil, nil
}

func (t *kafkaTarget) savePolicyChanges(context.Context, string, []typemap.ChangeCount) error {
	return nil
}

func (t *kafkaTarget) close() {
	if t.store != nil {
		t.store.Close()
	}
}
