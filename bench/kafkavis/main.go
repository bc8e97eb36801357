// Command kafkavis measures when a Kafka transaction's records become visible
// to a read_committed consumer, relative to the producer's EndTransaction
// returning (issue 14: the stream's delay tail). It uses franz-go only, none of
// sluice's code.
//
//	kafkavis -brokers B -producers K -events N -partitions P -txns T [-gap D]
//
// K transactional producers (sluice: one per shard) each commit T transactions
// back to back (or D apart), each of N records of -size bytes spread over a
// data topic of P partitions plus one probe record on a shared one-partition
// topic (the heartbeat table's topic, which every shard writes). A
// read_committed consumer of the probe topic prints, per producer, the
// distribution of receive − EndTransaction's return ("after commit") and
// receive − the transaction's begin ("since begin"), and the commit durations.
// Topics are created with a unique prefix and deleted at the end.
package main

import (
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

type probeTimes struct {
	begin, commit time.Time
	commitDur     time.Duration
}

func main() {
	brokers := flag.String("brokers", "127.0.0.1:19092", "bootstrap brokers")
	producers := flag.Int("producers", 1, "transactional producers writing the same topics")
	events := flag.Int("events", 500, "records per transaction (besides the probe)")
	size := flag.Int("size", 250, "record value bytes")
	parts := flag.Int("partitions", 8, "data topics (one partition each, as sluice's per-table topics)")
	txns := flag.Int("txns", 20, "transactions per producer")
	gap := flag.Duration("gap", 0, "pause between a producer's transactions")
	probeLast := flag.Bool("probe-last", false, "send the probe after the data records (default: first)")
	hold := flag.Duration("hold", 0, "producers but the first keep each transaction open this long before committing (a slow shard)")
	minAge := flag.Duration("metadata-min-age", 5*time.Second, "franz-go's MetadataMinAge of the producers")
	cold := flag.Bool("cold", false, "producers start right after the topics are created (default: once the consumer saw a record)")
	backoff := flag.Duration("txn-backoff", 20*time.Millisecond, "franz-go's ConcurrentTransactionsBackoff")
	flag.Parse()
	if err := run(strings.Split(*brokers, ","), *producers, *events, *size, *parts, *txns, *gap, *hold, *probeLast, *backoff, *minAge, *cold); err != nil {
		fmt.Fprintln(os.Stderr, "kafkavis:", err)
		os.Exit(1)
	}
}

func run(brokers []string, producers, events, size, parts, txns int, gap, hold time.Duration, probeLast bool, backoff, minAge time.Duration, cold bool) error {
	ctx := context.Background()
	prefix := fmt.Sprintf("kvis%d", time.Now().UnixNano()%1e9)
	admCl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		return err
	}
	defer admCl.Close()
	adm := kadm.NewClient(admCl)
	probe := prefix + ".probe"
	data := make([]string, parts)
	for i := range data {
		data[i] = fmt.Sprintf("%s.data%d", prefix, i)
	}
	if _, err := adm.CreateTopics(ctx, 1, -1, nil, append([]string{probe}, data...)...); err != nil {
		return fmt.Errorf("create topics: %w", err)
	}
	defer func() { _, _ = adm.DeleteTopics(context.Background(), append([]string{probe}, data...)...) }()

	var mu sync.Mutex
	times := map[[2]int]*probeTimes{} // (producer, seq)
	recv := map[[2]int]time.Time{}

	cons, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ConsumeTopics(probe),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchMaxWait(100*time.Millisecond))
	if err != nil {
		return err
	}
	defer cons.Close()
	cctx, stop := context.WithCancel(ctx)
	consumed := make(chan struct{})
	ready := make(chan struct{})
	go func() {
		defer close(consumed)
		for cctx.Err() == nil {
			fs := cons.PollFetches(cctx)
			now := time.Now()
			fs.EachRecord(func(r *kgo.Record) {
				if len(r.Value) != 8 {
					if !cold {
						close(ready) // the warm-up record
					}
					return
				}
				k := [2]int{int(binary.BigEndian.Uint32(r.Value)), int(binary.BigEndian.Uint32(r.Value[4:]))}
				mu.Lock()
				recv[k] = now
				mu.Unlock()
			})
		}
	}()
	// Measure only once the consumer fetches the probe topic: a new topic's
	// metadata takes seconds to reach a consumer, which is no commit's delay.
	// -cold measures the producers' first transaction on new topics instead.
	if cold {
		close(ready)
	} else if err := admCl.ProduceSync(ctx, &kgo.Record{Topic: probe, Value: []byte("warm")}).FirstErr(); err != nil {
		stop()
		return fmt.Errorf("warm-up record: %w", err)
	}
	select {
	case <-ready:
	case <-time.After(60 * time.Second):
		stop()
		return fmt.Errorf("the consumer saw no warm-up record in 30 s")
	}

	val := make([]byte, size)
	var wg sync.WaitGroup
	errs := make([]error, producers)
	for p := 0; p < producers; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...),
				kgo.TransactionalID(fmt.Sprintf("%s.p%d", prefix, p)),
				kgo.TransactionTimeout(time.Minute), kgo.RequiredAcks(kgo.AllISRAcks()),
				kgo.ProducerBatchMaxBytes(16<<20), kgo.MaxBufferedRecords(20000),
				kgo.ProducerLinger(2*time.Millisecond), kgo.ConcurrentTransactionsBackoff(backoff), kgo.MetadataMinAge(minAge))
			if err != nil {
				errs[p] = err
				return
			}
			defer cl.Close()
			for seq := 0; seq < txns; seq++ {
				pv := make([]byte, 8)
				binary.BigEndian.PutUint32(pv, uint32(p))
				binary.BigEndian.PutUint32(pv[4:], uint32(seq))
				pt := &probeTimes{begin: time.Now()}
				if err := cl.BeginTransaction(); err != nil {
					errs[p] = err
					return
				}
				probeRec := &kgo.Record{Topic: probe, Value: pv}
				if !probeLast {
					cl.Produce(ctx, probeRec, nil)
				}
				for i := 0; i < events; i++ {
					cl.Produce(ctx, &kgo.Record{Topic: data[i%parts], Value: val}, nil)
				}
				if probeLast {
					cl.Produce(ctx, probeRec, nil)
				}
				if p > 0 && hold > 0 {
					time.Sleep(hold)
				}
				if err := cl.Flush(ctx); err != nil {
					errs[p] = err
					return
				}
				t0 := time.Now()
				if err := cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
					errs[p] = err
					return
				}
				pt.commit = time.Now()
				pt.commitDur = pt.commit.Sub(t0)
				mu.Lock()
				times[[2]int{p, seq}] = pt
				mu.Unlock()
				if gap > 0 {
					time.Sleep(gap)
				}
			}
		}(p)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			stop()
			return err
		}
	}
	time.Sleep(3 * time.Second)
	stop()
	<-consumed

	fmt.Printf("producers=%d events=%d size=%d partitions=%d txns=%d gap=%s hold=%s probe-last=%v txn-backoff=%s metadata-min-age=%s cold=%v\n",
		producers, events, size, parts, txns, gap, hold, probeLast, backoff, minAge, cold)
	for p := 0; p < producers; p++ {
		var after, since, commit, span []float64
		missing := 0
		for seq := 0; seq < txns; seq++ {
			k := [2]int{p, seq}
			pt, r := times[k], recv[k]
			if pt == nil || r.IsZero() {
				missing++
				continue
			}
			after = append(after, r.Sub(pt.commit).Seconds())
			since = append(since, r.Sub(pt.begin).Seconds())
			commit = append(commit, pt.commitDur.Seconds())
			span = append(span, pt.commit.Sub(pt.begin).Seconds())
		}
		fmt.Printf("  producer %d: after commit %s | since begin %s | EndTxn %s | begin→commit %s | missing %d\n",
			p, dist(after), dist(since), dist(commit), dist(span), missing)
	}
	return nil
}

// dist formats p50/p90/max in milliseconds.
func dist(v []float64) string {
	if len(v) == 0 {
		return "-"
	}
	sort.Float64s(v)
	q := func(f float64) float64 { return v[int(float64(len(v)-1)*f)] * 1000 }
	return fmt.Sprintf("p50 %.0f p90 %.0f max %.0f ms", q(0.5), q(0.9), v[len(v)-1]*1000)
}
