package typemap

import (
	"sort"
	"sync"
	"sync/atomic"
)

// Changes counts values that a policy changed (zero dates, NUL characters...),
// per table, column and policy, for the snapshot and replicate reports.
type Changes struct {
	mu sync.Mutex
	m  map[changeKey]*atomic.Int64
}

type changeKey struct{ Table, Column, Policy string }

// ChangeCount is one line of the report.
type ChangeCount struct {
	Table  string `json:"table"`
	Column string `json:"column"`
	Policy string `json:"policy"` // e.g. "zero-date→NULL", "NUL stripped"
	Count  int64  `json:"count"`
}

// NewChanges returns an empty counter.
func NewChanges() *Changes { return &Changes{m: map[changeKey]*atomic.Int64{}} }

// counter returns the counter for one (table, column, policy); converters
// look it up once at compile time and then only add atomically.
func (c *Changes) counter(table, column, policy string) *atomic.Int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := changeKey{table, column, policy}
	n, ok := c.m[k]
	if !ok {
		n = new(atomic.Int64)
		c.m[k] = n
	}
	return n
}

// Counts returns every non-zero count, sorted.
func (c *Changes) Counts() []ChangeCount {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]ChangeCount, 0, len(c.m))
	for k, n := range c.m {
		if v := n.Load(); v > 0 {
			out = append(out, ChangeCount{k.Table, k.Column, k.Policy, v})
		}
	}
	SortChangeCounts(out)
	return out
}

// SortChangeCounts orders report lines by table, column and policy.
func SortChangeCounts(cs []ChangeCount) {
	sort.Slice(cs, func(i, j int) bool {
		a, b := cs[i], cs[j]
		if a.Table != b.Table {
			return a.Table < b.Table
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		return a.Policy < b.Policy
	})
}
