package kafka

import "github.com/sluice-db/sluice/internal/pipeline"

// Group bounds of the Kafka sink: a shard commits one Kafka transaction at a
// time, so the size of what is queued behind a commit is what lets it keep
// up when commits slow down (a loaded broker). A group takes every source
// transaction queued when the last commit returned, up to these bounds.
const (
	groupRows  = 20000
	groupBytes = 32 << 20
	queueTxns  = 16384
)

// TunePipeline sets the applier's settings for a Kafka sink: every change is
// an event of its own (no compaction, which the sink would not use), and
// groups bounded by rows and bytes rather than by the worker queue's length
// (pipeline's default of 512 transactions caps a group at about 500 events,
// and a shard's rate at 500 events per Kafka commit).
func TunePipeline(c *pipeline.Config) {
	c.NoCompact = true
	c.GroupRows = groupRows
	c.GroupBytes = groupBytes
	c.QueueTxns = queueTxns
}
