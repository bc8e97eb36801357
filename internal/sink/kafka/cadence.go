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
	// keepUp: a live bound never holds less than this many times what the
	// source wrote while the last Kafka transaction was open, so a shard
	// whose commits take longer than liveBudget (a busy machine: a commit's
	// fixed cost alone can be 100-300 ms) still drains its queue instead of
	// falling behind by a commit's worth at every commit.
	keepUp = 2
	// rateWindow is the least span of source commit time a rate sample
	// covers (MariaDB's commit times have whole seconds: there a sample
	// covers a second or more).
	rateWindow = 250 * time.Millisecond
)

// cadence learns how large a live group may be to commit within
// liveBudget, as a fraction of the full bounds, from the transactions the
// sink committed: a transaction over budget shrinks it in proportion, a
// full one within budget grows it (at most 4x at a time). The budget
// assumes a commit's time grows with its size; when it does not (its fixed
// cost alone is over budget), shrinking would only make the shard fall
// behind and its queue wait grow, which is worse for the delay than a
// longer transaction: so the bound never drops below keepUp times what the
// source wrote during the last commit (its rate from the transactions'
// commit times, which a backlog does not change).
type cadence struct {
	mu   sync.Mutex
	fill float64 // of groupRows and groupBytes; 0 before the first commit: full

	last time.Duration // the last commit's
	// The source's rate of row changes and bytes per second of its commit
	// time, and the window of commits the next sample counts.
	rate, byteRate float64
	from           time.Time // commit time the window starts after
	rows           int
	bytes          int64
}

// limit bounds the group that starts with first, at now.
func (c *cadence) limit(first *model.Txn, now time.Time) (int, int64) {
	if first == nil || first.Timestamp.IsZero() || now.Sub(first.Timestamp) >= backlogLag {
		return groupRows, groupBytes
	}
	c.mu.Lock()
	f := c.fill
	floorRows := keepUp * c.rate * c.last.Seconds()
	floorBytes := keepUp * c.byteRate * c.last.Seconds()
	c.mu.Unlock()
	if f <= 0 || f >= 1 {
		return groupRows, groupBytes
	}
	rows := min(groupRows, max(1, int(f*groupRows), int(floorRows)))
	bytes := min(groupBytes, max(1, int64(f*groupBytes), int64(floorBytes)))
	return rows, bytes
}

// observe learns from a committed group of rows changes and bytes decoded
// that was open for d, whose last source transaction committed at last
// (zero: unknown).
func (c *cadence) observe(rows int, bytes int64, last time.Time, d time.Duration) {
	if d <= 0 {
		return
	}
	filled := max(float64(rows)/groupRows, float64(bytes)/groupBytes)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.last = d
	c.learnRate(rows, bytes, last)
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

// learnRate counts a committed group towards the source's rate: rows
// changes and bytes whose last transaction committed at last. A sample
// covers at least rateWindow of commit time; a higher one replaces the
// rate, a lower one moves it half way.
func (c *cadence) learnRate(rows int, bytes int64, last time.Time) {
	if last.IsZero() {
		return
	}
	if c.from.IsZero() || last.Before(c.from) {
		c.from, c.rows, c.bytes = last, 0, 0 // the window starts after this group
		return
	}
	c.rows += rows
	c.bytes += bytes
	span := last.Sub(c.from).Seconds()
	if span < rateWindow.Seconds() {
		return
	}
	r, b := float64(c.rows)/span, float64(c.bytes)/span
	// A rise is taken at once (a load starting after an idle spell must not
	// wait samples for its bound), a fall half way.
	c.rate, c.byteRate = max(r, (c.rate+r)/2), max(b, (c.byteRate+b)/2)
	c.from, c.rows, c.bytes = last, 0, 0
}
