// Command kafkacount is bench/kafka.sh's independent Kafka client: it uses
// franz-go directly and none of sluice's code, so what it counts is what a
// read_committed Debezium consumer would see, not what sluice believes it wrote.
//
//	kafkacount -brokers B -prefix P count        every record of the topics P.*, read_committed
//	kafkacount -brokers B -topic T tail          T's new records as they become visible
//	kafkacount -brokers B -prefix P [-match RE] ends  the sum of the end offsets of the topics P.* matching RE
//	kafkacount -brokers B -prefix P delete       delete the topics P and P.*
//
// count prints one TSV line per (topic, server_id, op): "topic server_id op records bytes",
// bytes = key + value lengths; tombstones have op "tombstone" and server_id "-"; records
// of the state topics have op "state". It stops when no record arrived for -idle.
// tail prints "receive_us server_id after.ts commit_us" per change event of T (the heartbeat
// table), flushed per line, until SIGTERM/SIGINT.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

func main() {
	brokers := flag.String("brokers", "127.0.0.1:19092", "bootstrap brokers")
	prefix := flag.String("prefix", "", "topic prefix (count, delete)")
	topic := flag.String("topic", "", "topic (tail)")
	idle := flag.Duration("idle", 3*time.Second, "count: stop after this long without a record")
	match := flag.String("match", "", "ends: only topics matching this regular expression")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch flag.Arg(0) {
	case "count":
		err = count(ctx, *brokers, *prefix, *idle)
	case "tail":
		err = tail(ctx, *brokers, *topic)
	case "ends":
		err = ends(ctx, *brokers, *prefix, *match)
	case "delete":
		err = deleteTopics(ctx, *brokers, *prefix)
	default:
		err = errors.New("usage: kafkacount [-brokers B] [-prefix P | -topic T] count|tail|delete")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "kafkacount:", err)
		os.Exit(1)
	}
}

// envelope is the part of a Debezium value this tool reads.
type envelope struct {
	Op     string `json:"op"`
	Source struct {
		ServerID json.Number `json:"server_id"`
		TsMs     int64       `json:"ts_ms"` // the source transaction's commit time
	} `json:"source"`
	After json.RawMessage `json:"after"`
}

type countKey struct{ topic, server, op string }

func count(ctx context.Context, brokers, prefix string, idle time.Duration) error {
	if prefix == "" {
		return errors.New("count: -prefix is required")
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(brokers, ",")...),
		kgo.ConsumeRegex(), kgo.ConsumeTopics("^"+regexp.QuoteMeta(prefix)+`\.`),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		return fmt.Errorf("client: %w", err)
	}
	defer cl.Close()
	counts := map[countKey][2]int64{}
	var bad int64
	// The first fetch waits for metadata and topic discovery: a longer wait.
	wait := 10 * idle
	for {
		pctx, cancel := context.WithTimeout(ctx, wait)
		fs := cl.PollFetches(pctx)
		cancel()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		n := 0
		fs.EachError(func(t string, p int32, err error) {
			if !errors.Is(err, context.DeadlineExceeded) {
				fmt.Fprintf(os.Stderr, "kafkacount: fetch %s[%d]: %v\n", t, p, err)
			}
		})
		fs.EachRecord(func(r *kgo.Record) {
			n++
			k := countKey{topic: r.Topic, server: "-"}
			switch {
			case strings.HasSuffix(r.Topic, ".sluice.offsets") || strings.HasSuffix(r.Topic, ".sluice.schema"):
				k.op = "state"
			case r.Value == nil:
				k.op = "tombstone"
			default:
				var e envelope
				if err := json.Unmarshal(r.Value, &e); err != nil || e.Op == "" {
					k.op = "other"
					bad++
					break
				}
				k.op, k.server = e.Op, e.Source.ServerID.String()
			}
			c := counts[k]
			c[0]++
			c[1] += int64(len(r.Key) + len(r.Value))
			counts[k] = c
		})
		if n == 0 {
			break
		}
		wait = idle
	}
	keys := make([]countKey, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.topic != b.topic {
			return a.topic < b.topic
		}
		if a.server != b.server {
			return a.server < b.server
		}
		return a.op < b.op
	})
	w := bufio.NewWriter(os.Stdout)
	for _, k := range keys {
		fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%d\n", k.topic, k.server, k.op, counts[k][0], counts[k][1])
	}
	if bad > 0 {
		fmt.Fprintf(os.Stderr, "kafkacount: %d records whose value is not a Debezium envelope\n", bad)
	}
	return w.Flush()
}

func tail(ctx context.Context, brokers, topic string) error {
	if topic == "" {
		return errors.New("tail: -topic is required")
	}
	// A fetch returns as soon as a committed record is there: the 100 ms max
	// wait only bounds an empty poll, so it adds nothing to a measured delay
	// (measured: receive - sluice's commit returning is ~1 ms at p50).
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(brokers, ",")...),
		kgo.ConsumeTopics(topic), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtEnd()), kgo.FetchMaxWait(100*time.Millisecond))
	if err != nil {
		return fmt.Errorf("client: %w", err)
	}
	defer cl.Close()
	for {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return nil
		}
		now := time.Now().UnixMicro()
		fs.EachRecord(func(r *kgo.Record) {
			var e envelope
			var hb struct {
				TS json.Number `json:"ts"`
			}
			if r.Value == nil || json.Unmarshal(r.Value, &e) != nil || json.Unmarshal(e.After, &hb) != nil || hb.TS == "" {
				return
			}
			// The fourth column: the source's commit time in µs (from
			// source.ts_ms: MySQL's immediate_commit_timestamp; whole seconds
			// on MariaDB).
			fmt.Printf("%d\t%s\t%s\t%d\n", now, e.Source.ServerID, hb.TS, e.Source.TsMs*1000)
		})
	}
}

// ends prints the sum of the high watermarks of the matching topics: the
// number of records written to them by a producer without transactions.
func ends(ctx context.Context, brokers, prefix, match string) error {
	re, err := regexp.Compile(match)
	if err != nil {
		return fmt.Errorf("-match: %w", err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(brokers, ",")...))
	if err != nil {
		return fmt.Errorf("client: %w", err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	topics, err := adm.ListTopics(ctx)
	if err != nil {
		return fmt.Errorf("list topics: %w", err)
	}
	var names []string
	for _, t := range topics.Names() {
		if strings.HasPrefix(t, prefix+".") && re.MatchString(t) {
			names = append(names, t)
		}
	}
	var sum int64
	if len(names) > 0 {
		offs, err := adm.ListEndOffsets(ctx, names...)
		if err != nil {
			return fmt.Errorf("end offsets: %w", err)
		}
		offs.Each(func(o kadm.ListedOffset) {
			if o.Err == nil {
				sum += o.Offset
			}
		})
	}
	fmt.Println(sum)
	return nil
}

func deleteTopics(ctx context.Context, brokers, prefix string) error {
	if prefix == "" {
		return errors.New("delete: -prefix is required")
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(brokers, ",")...))
	if err != nil {
		return fmt.Errorf("client: %w", err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	topics, err := adm.ListTopics(ctx)
	if err != nil {
		return fmt.Errorf("list topics: %w", err)
	}
	var del []string
	for _, t := range topics.Names() {
		if t == prefix || strings.HasPrefix(t, prefix+".") {
			del = append(del, t)
		}
	}
	if len(del) == 0 {
		return nil
	}
	res, err := adm.DeleteTopics(ctx, del...)
	if err != nil {
		return fmt.Errorf("delete topics: %w", err)
	}
	return res.Error()
}
