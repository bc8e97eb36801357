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

// visRun is one measurement: its flags, its topics, and what the probe
// consumer and the producers recorded.
type visRun struct {
	brokers                              []string
	producers, events, size, parts, txns int
	gap, hold                            time.Duration
	probeLast                            bool
	backoff, minAge                      time.Duration
	cold                                 bool

	prefix, probe string
	data          []string

	mu    sync.Mutex
	times map[[2]int]*probeTimes // (producer, seq)
	recv  map[[2]int]time.Time
}

func run(brokers []string, producers, events, size, parts, txns int, gap, hold time.Duration, probeLast bool, backoff, minAge time.Duration, cold bool) error {
	ctx := context.Background()
	v := &visRun{brokers: brokers, producers: producers, events: events, size: size, parts: parts, txns: txns,
		gap: gap, hold: hold, probeLast: probeLast, backoff: backoff, minAge: minAge, cold: cold}
	v.prefix = fmt.Sprintf("kvis%d", time.Now().UnixNano()%1e9)
	admCl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		return err
	}
	defer admCl.Close()
	adm := kadm.NewClient(admCl)
	v.probe = v.prefix + ".probe"
	v.data = make([]string, parts)
	for i := range v.data {
		v.data[i] = fmt.Sprintf("%s.data%d", v.prefix, i)
	}
	if _, err := adm.CreateTopics(ctx, 1, -1, nil, append([]string{v.probe}, v.data...)...); err != nil {
		return fmt.Errorf("create topics: %w", err)
	}
	defer func() { _, _ = adm.DeleteTopics(context.Background(), append([]string{v.probe}, v.data...)...) }()

	v.times = map[[2]int]*probeTimes{}
	v.recv = map[[2]int]time.Time{}

	cons, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ConsumeTopics(v.probe),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchMaxWait(100*time.Millisecond))
	if err != nil {
		return err
	}
	defer cons.Close()
	cctx, stop := context.WithCancel(ctx)
	consumed := make(chan struct{})
	ready := make(chan struct{})
	go v.consume(cctx, cons, consumed, ready)
	if err := v.warmUp(ctx, admCl, ready); err != nil {
		stop()
		return err
	}
	if err := v.produceAll(ctx); err != nil {
		stop()
		return err
	}
	time.Sleep(3 * time.Second)
	stop()
	<-consumed
	v.report()
	return nil
}

// consume records when each probe record is received, until ctx ends; it
// closes ready at the warm-up record (unless -cold) and consumed when done.
func (v *visRun) consume(ctx context.Context, cons *kgo.Client, consumed, ready chan struct{}) {
	defer close(consumed)
	for ctx.Err() == nil {
		fs := cons.PollFetches(ctx)
		now := time.Now()
		fs.EachRecord(func(r *kgo.Record) {
			if len(r.Value) != 8 {
				if !v.cold {
					close(ready) // the warm-up record
				}
				return
			}
			k := [2]int{int(binary.BigEndian.Uint32(r.Value)), int(binary.BigEndian.Uint32(r.Value[4:]))}
			v.mu.Lock()
			v.recv[k] = now
			v.mu.Unlock()
		})
	}
}

// warmUp waits until the consumer fetches the probe topic: a new topic's
// metadata takes seconds to reach a consumer, which is no commit's delay.
// -cold measures the producers' first transaction on new topics instead.
func (v *visRun) warmUp(ctx context.Context, admCl *kgo.Client, ready chan struct{}) error {
	if v.cold {
		close(ready)
	} else if err := admCl.ProduceSync(ctx, &kgo.Record{Topic: v.probe, Value: []byte("warm")}).FirstErr(); err != nil {
		return fmt.Errorf("warm-up record: %w", err)
	}
	select {
	case <-ready:
	case <-time.After(60 * time.Second):
		return fmt.Errorf("the consumer saw no warm-up record in 30 s")
	}
	return nil
}

// produceAll runs the producers side by side and returns the first
// producer's error.
func (v *visRun) produceAll(ctx context.Context) error {
	val := make([]byte, v.size)
	var wg sync.WaitGroup
	errs := make([]error, v.producers)
	for p := 0; p < v.producers; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			errs[p] = v.produce(ctx, p, val)
		}(p)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// produce is producer p: its transactions, each timed from its begin to
// its EndTransaction's return.
func (v *visRun) produce(ctx context.Context, p int, val []byte) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(v.brokers...),
		kgo.TransactionalID(fmt.Sprintf("%s.p%d", v.prefix, p)),
		kgo.TransactionTimeout(time.Minute), kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.ProducerBatchMaxBytes(16<<20), kgo.MaxBufferedRecords(20000),
		kgo.ProducerLinger(2*time.Millisecond), kgo.ConcurrentTransactionsBackoff(v.backoff), kgo.MetadataMinAge(v.minAge))
	if err != nil {
		return err
	}
	defer cl.Close()
	for seq := 0; seq < v.txns; seq++ {
		pv := make([]byte, 8)
		binary.BigEndian.PutUint32(pv, uint32(p))
		binary.BigEndian.PutUint32(pv[4:], uint32(seq))
		pt := &probeTimes{begin: time.Now()}
		if err := cl.BeginTransaction(); err != nil {
			return err
		}
		probeRec := &kgo.Record{Topic: v.probe, Value: pv}
		if !v.probeLast {
			cl.Produce(ctx, probeRec, nil)
		}
		for i := 0; i < v.events; i++ {
			cl.Produce(ctx, &kgo.Record{Topic: v.data[i%v.parts], Value: val}, nil)
		}
		if v.probeLast {
			cl.Produce(ctx, probeRec, nil)
		}
		if p > 0 && v.hold > 0 {
			time.Sleep(v.hold)
		}
		if err := cl.Flush(ctx); err != nil {
			return err
		}
		t0 := time.Now()
		if err := cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
			return err
		}
		pt.commit = time.Now()
		pt.commitDur = pt.commit.Sub(t0)
		v.mu.Lock()
		v.times[[2]int{p, seq}] = pt
		v.mu.Unlock()
		if v.gap > 0 {
			time.Sleep(v.gap)
		}
	}
	return nil
}

// report prints the flags and, per producer, the distributions of the
// probe's delays and of the commits.
func (v *visRun) report() {
	fmt.Printf("producers=%d events=%d size=%d partitions=%d txns=%d gap=%s hold=%s probe-last=%v txn-backoff=%s metadata-min-age=%s cold=%v\n",
		v.producers, v.events, v.size, v.parts, v.txns, v.gap, v.hold, v.probeLast, v.backoff, v.minAge, v.cold)
	for p := 0; p < v.producers; p++ {
		var after, since, commit, span []float64
		missing := 0
		for seq := 0; seq < v.txns; seq++ {
			k := [2]int{p, seq}
			pt, r := v.times[k], v.recv[k]
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
