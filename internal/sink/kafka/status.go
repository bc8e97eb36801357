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
}

// ReadStatus reads the committed state of every stream of a topic prefix
// (read_committed, up to what is committed now).
func ReadStatus(ctx context.Context, brokers []string, prefix string) ([]StreamStatus, error) {
	topic := prefix + ".sluice.offsets"
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(500*time.Millisecond))
	if err != nil {
		return nil, exitcode.ConfigError(fmt.Errorf("kafka %s: %w", strings.Join(brokers, ","), err))
	}
	defer cl.Close()
	pingCtx, cancel := context.WithTimeout(ctx, 15*time.Second)
	err = cl.Ping(pingCtx)
	cancel()
	if err != nil {
		return nil, exitcode.ConfigError(fmt.Errorf("kafka: cannot reach the broker %s: %w", strings.Join(brokers, ","), err))
	}
	last := map[string]StreamStatus{}
	idle := time.Now()
	for time.Since(idle) < 2*time.Second {
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		fs := cl.PollFetches(pctx)
		cancel()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var ferr error
		fs.EachError(func(_ string, _ int32, err error) {
			if !errors.Is(err, context.DeadlineExceeded) {
				ferr = err
			}
		})
		if ferr != nil {
			return nil, fmt.Errorf("kafka: reading %s: %w", topic, ferr)
		}
		fs.EachRecord(func(r *kgo.Record) {
			idle = time.Now()
			if r.Value == nil || strings.Contains(string(r.Key), "\x00") {
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
			last[string(r.Key)] = StreamStatus{Stream: st.Stream, Position: pos, SchemaVersion: st.SchemaVersion,
				SourceTime: st.SourceTime, UpdatedAt: st.UpdatedAt, Applied: len(st.Applied)}
		})
	}
	out := make([]StreamStatus, 0, len(last))
	for _, s := range last {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Stream < out[j].Stream })
	return out, nil
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
