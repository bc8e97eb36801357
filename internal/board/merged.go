package board

import (
	"math"
	"sort"
	"time"
)

// Merged is a Kafka merged topic's card: each shard's watermark and the
// one holding the topic back.
type Merged struct {
	b          *Board
	topic      string
	watermarks map[string]time.Time
	heldBy     string
	released   time.Time
}

// MergedStatus is a merged topic as /api/status serves it.
type MergedStatus struct {
	Topic        string        `json:"topic"`
	Released     *time.Time    `json:"released"`      // merge time of the last transaction merged (null: none yet)
	DelaySeconds *float64      `json:"delay_seconds"` // now - Released
	HeldBy       string        `json:"held_by"`       // "" when nothing waits
	Shards       []MergedShard `json:"shards"`
}

// MergedShard is one shard's watermark.
type MergedShard struct {
	Shard      string     `json:"shard"`
	Watermark  *time.Time `json:"watermark"`   // null: none yet
	AgeSeconds *float64   `json:"age_seconds"` // now - Watermark
	Held       bool       `json:"held"`
}

// Merged returns the merged topic's card, creating it.
func (b *Board) Merged(topic string) *Merged {
	if b == nil {
		return nil
	}
	return card(b, b.merged, topic, func() *Merged { return &Merged{b: b, topic: topic, watermarks: map[string]time.Time{}} })
}

// Observe records what the merger last saw.
func (m *Merged) Observe(watermarks map[string]time.Time, heldBy string, released time.Time) {
	if m == nil {
		return
	}
	m.b.mu.Lock()
	defer m.b.mu.Unlock()
	for s, wm := range watermarks {
		m.watermarks[s] = wm
	}
	m.heldBy, m.released = heldBy, released
}

func (m *Merged) status(now time.Time) MergedStatus {
	st := MergedStatus{Topic: m.topic, HeldBy: m.heldBy, Shards: []MergedShard{}}
	st.Released, st.DelaySeconds = sinceOf(m.released, now)
	for _, s := range sortedKeys(m.watermarks) {
		sh := MergedShard{Shard: s, Held: s == m.heldBy}
		sh.Watermark, sh.AgeSeconds = sinceOf(m.watermarks[s], now)
		st.Shards = append(st.Shards, sh)
	}
	sort.SliceStable(st.Shards, func(i, j int) bool { return st.Shards[i].Held && !st.Shards[j].Held })
	return st
}

// sinceOf is a time and its age in seconds, both nil for the zero time.
func sinceOf(t, now time.Time) (*time.Time, *float64) {
	if t.IsZero() {
		return nil, nil
	}
	age := math.Round(now.Sub(t).Seconds()*10) / 10
	return &t, &age
}
