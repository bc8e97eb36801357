package kafka

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sluice-db/sluice/internal/exitcode"
)

// StreamStatus is the committed state of one stream (shard) as its last
// record in <prefix>.sluice.offsets says.
type StreamStatus struct {
	Stream        string    `json:"stream"`
	Position      string    `json:"position"`
	SchemaVersion int64     `json:"schema_version"`
	SourceTime    time.Time `json:"source_time"`
	UpdatedAt     time.Time `json:"updated_at"`
	Applied       int       `json:"applied_above_checkpoint"`
	// Layout and Shard say where its events go (--shard-layout).
	Layout string `json:"shard_layout"`
	Shard  string `json:"shard,omitempty"`
	// Copying, while the initial snapshot is not complete (a run stopped
	// or killed in it resumes it): how far it got.
	Copying string `json:"snapshot_copying,omitempty"`
}

// MergedStatus is the committed state of a merged topic (--merged-topic).
type MergedStatus struct {
	Topic string `json:"merged_topic"`
	Txns  int64  `json:"merged_transactions"`
	// Released is the merge time of the last transaction merged.
	Released  time.Time `json:"released_up_to"`
	HeldBy    string    `json:"held_back_by,omitempty"`
	UpdatedAt time.Time `json:"updated_at"`
	Shards    []struct {
		Stream    string    `json:"stream"`
		Watermark time.Time `json:"watermark"`
		Offset    int64     `json:"journal_offset"`
	} `json:"shards"`
}

// Status is everything a topic prefix's offsets topic says.
type Status struct {
	Streams []StreamStatus `json:"streams"`
	Merged  []MergedStatus `json:"merged,omitempty"`
}

// ReadStatus reads the committed state of every stream of a topic prefix
// (read_committed, up to what is committed now).
func ReadStatus(ctx context.Context, brokers []string, prefix string) ([]StreamStatus, error) {
	st, err := ReadAllStatus(ctx, brokers, prefix)
	return st.Streams, err
}

// ReadAllStatus reads the committed state of every stream and merged topic
// of a topic prefix.
func ReadAllStatus(ctx context.Context, brokers []string, prefix string) (Status, error) {
	var res Status
	topic := prefix + ".sluice.offsets"
	last := map[string]StreamStatus{}
	merged := map[string]mergeState{}
	err := readCommitted(ctx, brokers, []string{topic}, func(r *kgo.Record) {
		if strings.Contains(string(r.Key), "\x00") {
			return
		}
		if r.Value == nil { // a tombstone: the stream was dropped
			delete(last, string(r.Key))
			delete(merged, string(r.Key))
			return
		}
		if strings.HasPrefix(string(r.Key), "merged:") {
			var ms mergeState
			if json.Unmarshal(r.Value, &ms) == nil {
				merged[string(r.Key)] = ms
			}
			return
		}
		var st stateRecord
		if json.Unmarshal(r.Value, &st) != nil {
			return
		}
		pos := st.Position
		if p, err := decodeAny(pos); err == nil {
			pos = p
		}
		ss := StreamStatus{Stream: st.Stream, Position: pos, SchemaVersion: st.SchemaVersion,
			SourceTime: st.SourceTime, UpdatedAt: st.UpdatedAt, Applied: len(st.Applied), Layout: string(layoutOf(st.Layout))}
		if layoutOf(st.Layout) != LayoutNone {
			ss.Shard = st.Shard
		}
		ss.Copying = st.Copy.String()
		last[string(r.Key)] = ss
	})
	if err != nil {
		return res, err
	}
	res.Streams = make([]StreamStatus, 0, len(last))
	for _, s := range last {
		res.Streams = append(res.Streams, s)
	}
	sort.Slice(res.Streams, func(i, j int) bool { return res.Streams[i].Stream < res.Streams[j].Stream })
	for _, ms := range merged {
		m := MergedStatus{Topic: ms.Merged, Txns: ms.Txns, HeldBy: ms.HeldBy, UpdatedAt: ms.UpdatedAt}
		if ms.Released != 0 {
			m.Released = time.UnixMilli(ms.Released).UTC()
		}
		for _, sh := range ms.Shards {
			var wm time.Time
			if sh.Watermark != 0 {
				wm = time.UnixMilli(sh.Watermark).UTC()
			}
			m.Shards = append(m.Shards, struct {
				Stream    string    `json:"stream"`
				Watermark time.Time `json:"watermark"`
				Offset    int64     `json:"journal_offset"`
			}{sh.Stream, wm, sh.Offset})
		}
		res.Merged = append(res.Merged, m)
	}
	sort.Slice(res.Merged, func(i, j int) bool { return res.Merged[i].Topic < res.Merged[j].Topic })
	return res, nil
}

// decodeAny prints a MySQL position's JSON encoding as file:pos and GTID set.
func decodeAny(enc string) (string, error) {
	var p struct {
		File    string `json:"file"`
		Pos     uint32 `json:"pos"`
		GTIDSet string `json:"gtid_set"`
	}
	if err := json.Unmarshal([]byte(enc), &p); err != nil {
		return "", err
	}
	s := fmt.Sprintf("%s:%d", p.File, p.Pos)
	if p.GTIDSet != "" {
		s += " gtid " + p.GTIDSet
	}
	return s, nil
}

// readCommitted reads the committed records of topics from their start
// until none came for 2 s (a reader up to an offset waits forever when the
// last one is a transaction marker). Kafka unreachable is a configuration
// error naming the brokers.
func readCommitted(ctx context.Context, brokers []string, topics []string, each func(*kgo.Record)) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.ConsumeTopics(topics...), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(500*time.Millisecond))
	if err != nil {
		return exitcode.ConfigError(fmt.Errorf("kafka %s: %w", strings.Join(brokers, ","), err))
	}
	defer cl.Close()
	pingCtx, cancel := context.WithTimeout(ctx, 15*time.Second)
	err = cl.Ping(pingCtx)
	cancel()
	if err != nil {
		return exitcode.ConfigError(fmt.Errorf("kafka: cannot reach the broker %s: %w", strings.Join(brokers, ","), err))
	}
	idle := time.Now()
	for time.Since(idle) < 2*time.Second {
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		fs := cl.PollFetches(pctx)
		cancel()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var ferr error
		fs.EachError(func(t string, _ int32, err error) {
			if !errors.Is(err, context.DeadlineExceeded) {
				ferr = fmt.Errorf("kafka: reading %s: %w", t, err)
			}
		})
		if ferr != nil {
			return ferr
		}
		fs.EachRecord(func(r *kgo.Record) {
			idle = time.Now()
			each(r)
		})
	}
	return nil
}
