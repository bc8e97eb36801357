package kafka

import (
	"sync"
	"time"

	"github.com/sluice-db/sluice/internal/model"
)

// Live and backlog want different Kafka transactions. A read_committed
// consumer sees a partition only up to its last stable offset: the first
// offset of any transaction still open on it. Shards write the same topics
// (one producer each), so while one shard's Kafka transaction is open,
// everything the other shards committed after its first record on a shared
// partition stays invisible (bench/kafkavis measures it: a producer holding
// its transaction open 1 s delays the other producer's committed records by
// up to 1 s; the commit markers themselves take a few ms). A live stream
// therefore keeps each transaction short in time, while a backlog takes the
// full bounds of tune.go: there throughput is what shortens the delay.
const (
	// liveBudget is how long a live shard's Kafka transaction should stay
	// open: the delay a commit adds to the shard's own events and at most
	// what it holds back of the other shards'.
	liveBudget = 200 * time.Millisecond
	// backlogLag: a group whose first source transaction committed this
	// long ago is a backlog. MariaDB's commit times have whole seconds
	// (MySQL's microseconds), so below 2 s live groups would be taken for a
	// backlog half of the time.
	backlogLag = 2 * time.Second
	// minFill bounds how far the live bound shrinks (of groupRows and
	// groupBytes): 500 rows still commit several thousand rows a second
	// when a commit takes a loaded broker's 100 ms.
	minFill = 0.025
)

// cadence learns how large a live group may be to commit within
// liveBudget, as a fraction of the full bounds, from the transactions the
// sink committed: a transaction over budget shrinks it in proportion, a
// full one within budget grows it (at most 4x at a time).
type cadence struct {
	mu   sync.Mutex
	fill float64 // of groupRows and groupBytes; 0 before the first commit: full
}

// limit bounds the group that starts with first, at now.
func (c *cadence) limit(first *model.Txn, now time.Time) (int, int64) {
	if first == nil || first.Timestamp.IsZero() || now.Sub(first.Timestamp) >= backlogLag {
		return groupRows, groupBytes
	}
	c.mu.Lock()
	f := c.fill
	c.mu.Unlock()
	if f <= 0 || f >= 1 {
		return groupRows, groupBytes
	}
	return max(1, int(f*groupRows)), max(1, int64(f*groupBytes))
}

// observe learns from a committed group of rows changes and bytes decoded
// that was open for d.
func (c *cadence) observe(rows int, bytes int64, d time.Duration) {
	if d <= 0 {
		return
	}
	filled := max(float64(rows)/groupRows, float64(bytes)/groupBytes)
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.fill
	if f <= 0 {
		f = 1
	}
	switch {
	case d > liveBudget:
		f = min(f, max(minFill, filled*float64(liveBudget)/float64(d)))
	case filled >= 0.9*f:
		// As large as allowed and within budget: allow more.
		f = min(1, max(f, filled*float64(liveBudget)/float64(max(d, liveBudget/4))))
	}
	c.fill = f
}
