package kafka

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Kept is what the state topics of a topic prefix hold, by stream (one per
// shard: `sluice stream --stream N` with several sources keeps one state per
// source, named N@host:port). Forget removes a stream's records by writing
// tombstones (compaction then deletes them); the data topics are the
// consumers' and stay.
type Kept struct {
	brokers []string
	prefix  string
	shards  []KeptShard
}

// KeptShard is one stream's (shard's) records.
type KeptShard struct {
	Stream    string
	Offsets   [][]byte // live keys in <prefix>.sluice.offsets (its state, its fence marker)
	Schema    [][]byte // live keys in <prefix>.sluice.schema (history versions, fence marker)
	UpdatedAt time.Time
}

// TransactionalID is the stream's producer's transactional.id.
func TransactionalID(prefix, stream string) string { return "sluice." + prefix + "." + stream }

// ReadKept reads (read_committed) the live records of every stream in the
// prefix's state topics.
func ReadKept(ctx context.Context, brokers []string, prefix string) (*Kept, error) {
	offsets, schemas := prefix+".sluice.offsets", prefix+".sluice.schema"
	live := map[string]map[string]*kgo.Record{offsets: {}, schemas: {}}
	err := readCommitted(ctx, brokers, []string{offsets, schemas}, func(r *kgo.Record) {
		key := string(r.Key)
		if strings.HasPrefix(key, "merged:") {
			return // a merged topic's state (--merged-topic), not a stream's
		}
		if r.Value == nil {
			delete(live[r.Topic], key)
		} else {
			live[r.Topic][key] = r
		}
	})
	if err != nil {
		return nil, err
	}
	shards := map[string]*KeptShard{}
	shard := func(key string) *KeptShard {
		stream, _, _ := strings.Cut(key, "\x00")
		if shards[stream] == nil {
			shards[stream] = &KeptShard{Stream: stream}
		}
		return shards[stream]
	}
	for key, r := range live[offsets] {
		sh := shard(key)
		sh.Offsets = append(sh.Offsets, r.Key)
		var st stateRecord
		if key == sh.Stream && json.Unmarshal(r.Value, &st) == nil {
			sh.UpdatedAt = st.UpdatedAt
		}
	}
	for key, r := range live[schemas] {
		sh := shard(key)
		sh.Schema = append(sh.Schema, r.Key)
	}
	k := &Kept{brokers: brokers, prefix: prefix}
	for _, sh := range shards {
		k.shards = append(k.shards, *sh)
	}
	sort.Slice(k.shards, func(i, j int) bool { return k.shards[i].Stream < k.shards[j].Stream })
	return k, nil
}

// Of is the records of the stream named name, or of its shards (name@…).
func (k *Kept) Of(name string) []KeptShard {
	var out []KeptShard
	for _, sh := range k.shards {
		if sh.Stream == name || strings.HasPrefix(sh.Stream, name+"@") {
			out = append(out, sh)
		}
	}
	return out
}

// recentWrite is how recently a stream's state may have been written for
// it to count as running: Kafka knows no liveness of an idle producer.
const recentWrite = 10 * time.Second

// Running describes a shard that seems to run: its producer has a
// transaction open, or its state was written less than recentWrite ago ("":
// none). An idle stream that wrote nothing for longer is not seen; Forget
// fences its producer, which then fails at its next write.
func (k *Kept) Running(ctx context.Context, shards []KeptShard) (string, error) {
	if len(shards) == 0 {
		return "", nil
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(k.brokers...))
	if err != nil {
		return "", err
	}
	defer cl.Close()
	ids := make([]string, len(shards))
	for i, sh := range shards {
		ids[i] = TransactionalID(k.prefix, sh.Stream)
	}
	txns, err := kadm.NewClient(cl).DescribeTransactions(ctx, ids...)
	if err != nil && len(txns) == 0 {
		return "", fmt.Errorf("kafka: describe the streams' transactions: %w", err)
	}
	for i, sh := range shards {
		t, ok := txns[ids[i]]
		if ok && t.Err == nil && (t.State == "Ongoing" || strings.HasPrefix(t.State, "Prepare")) {
			return fmt.Sprintf("stream %q is running: its producer (transactional.id %s, producer id %d) has a transaction %s",
				sh.Stream, ids[i], t.ProducerID, strings.ToLower(t.State)), nil
		}
		if age := time.Since(sh.UpdatedAt); !sh.UpdatedAt.IsZero() && age < recentWrite {
			return fmt.Sprintf("stream %q seems to run: its state in %s.sluice.offsets was written %s ago", sh.Stream, k.prefix,
				age.Round(time.Second)), nil
		}
	}
	return "", nil
}

// Forget writes a tombstone for every record of the shard, in one Kafka
// transaction under the shard's own transactional.id: that fences its
// producer, so a run that was missed cannot write its state back.
func (k *Kept) Forget(ctx context.Context, sh KeptShard) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(k.brokers...), kgo.TransactionalID(TransactionalID(k.prefix, sh.Stream)),
		kgo.RequiredAcks(kgo.AllISRAcks()))
	if err != nil {
		return err
	}
	defer cl.Close()
	if err := cl.BeginTransaction(); err != nil {
		return err
	}
	var recs []*kgo.Record
	for _, key := range sh.Offsets {
		recs = append(recs, &kgo.Record{Topic: k.prefix + ".sluice.offsets", Key: key})
	}
	for _, key := range sh.Schema {
		recs = append(recs, &kgo.Record{Topic: k.prefix + ".sluice.schema", Key: key})
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		_ = cl.EndTransaction(context.Background(), kgo.TryAbort)
		return fmt.Errorf("kafka: tombstones of stream %q: %w", sh.Stream, err)
	}
	if err := cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
		return fmt.Errorf("kafka: commit the tombstones of stream %q: %w", sh.Stream, err)
	}
	return nil
}
