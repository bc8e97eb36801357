package kafka

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// `sluice stream --standby`: the processes of one stream elect the one that
// writes through a Kafka consumer group, as Kafka Connect's workers do. Each
// joins the group sluice.<prefix>.<stream>.leader on the one-partition topic
// <prefix>.sluice.leader (never read: fetching is paused); the member the
// partition is assigned to leads. A leader that dies or freezes stops
// heartbeating, the coordinator drops it after the session timeout (6 s)
// and assigns the partition to a standby. The cooperative sticky balancer
// keeps the partition where it is when standbys join or leave.
//
// Exactly once needs no more than what a restart after kill -9 has: the new
// leader's producer takes the stream's transactional.id, which fences the
// old one's (a transaction it left open is aborted; its next write fails
// with ProducerFenced), and only then reads the stream's state. A frozen
// leader that wakes up finds its partition lost (its context is cancelled)
// or its producer fenced, writes nothing, and stops with exit 2.

// leaderSession is the group's session timeout: a frozen leader loses the
// stream this long after its last heartbeat.
const leaderSession = 6 * time.Second

// LeaderTopic is the topic whose one partition the stream processes of a
// prefix compete for.
func LeaderTopic(prefix string) string { return prefix + ".sluice.leader" }

// LeaderGroup is the consumer group of one stream's processes.
func LeaderGroup(prefix, stream string) string { return "sluice." + prefix + "." + stream + ".leader" }

// Leadership is this process's membership in the stream's leader group.
type Leadership struct {
	cl       *kgo.Client
	assigned chan struct{}
	lost     atomic.Bool
	cancel   context.CancelFunc
	// Ctx ends when the leadership is lost.
	Ctx context.Context
}

// Lead joins the stream's leader group and returns once this process leads
// (or ctx ends). Close leaves the group.
func Lead(ctx context.Context, brokers []string, prefix, stream string, log *slog.Logger) (*Leadership, error) {
	if err := ensureLeaderTopic(ctx, brokers, prefix); err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	l := &Leadership{assigned: make(chan struct{}, 1)}
	l.Ctx, l.cancel = context.WithCancel(ctx)
	topic := LeaderTopic(prefix)
	var leading atomic.Bool
	lose := func(_ context.Context, _ *kgo.Client, m map[string][]int32) {
		if leading.Load() && len(m[topic]) > 0 {
			log.Warn("standby: this process no longer leads the stream (the group gave the stream to another)", "stream", stream)
			l.lost.Store(true)
			l.cancel()
		}
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ClientID(fmt.Sprintf("sluice %d@%s", os.Getpid(), host)),
		kgo.ConsumerGroup(LeaderGroup(prefix, stream)), kgo.ConsumeTopics(topic),
		kgo.Balancers(kgo.CooperativeStickyBalancer()), kgo.SessionTimeout(leaderSession), kgo.HeartbeatInterval(time.Second),
		kgo.DisableAutoCommit(),
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, m map[string][]int32) {
			if len(m[topic]) > 0 && !leading.Swap(true) {
				l.assigned <- struct{}{}
			}
		}),
		kgo.OnPartitionsRevoked(lose), kgo.OnPartitionsLost(lose))
	if err != nil {
		return nil, fmt.Errorf("kafka: join the leader group of stream %q: %w", stream, err)
	}
	l.cl = cl
	cl.PauseFetchTopics(topic)
	go func() { // the group is managed while polling; nothing is fetched
		for l.Ctx.Err() == nil {
			cl.PollFetches(l.Ctx)
		}
	}()
	log.Info("standby: waiting to lead the stream (consumer group)", "stream", stream, "group", LeaderGroup(prefix, stream))
	select {
	case <-l.assigned:
		log.Info("standby: this process leads the stream", "stream", stream)
		return l, nil
	case <-ctx.Done():
		l.Close()
		return nil, ctx.Err()
	}
}

// Lost reports whether the leadership was lost (a standby leads now).
func (l *Leadership) Lost() bool { return l.lost.Load() }

// Close leaves the group: a standby takes over at once.
func (l *Leadership) Close() {
	l.cancel()
	l.cl.Close()
}

// ensureLeaderTopic creates the leader topic (one partition) when missing.
func ensureLeaderTopic(ctx context.Context, brokers []string, prefix string) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		return fmt.Errorf("kafka: %w", err)
	}
	defer cl.Close()
	resp, err := kadm.NewClient(cl).CreateTopic(ctx, 1, -1, nil, LeaderTopic(prefix))
	if err == nil {
		err = resp.Err
	}
	if err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
		return fmt.Errorf("kafka: create topic %s: %w", LeaderTopic(prefix), err)
	}
	return nil
}

// IsFenced reports a write refused because another producer took the
// stream's transactional.id (a standby leads now).
func IsFenced(err error) bool {
	return errors.Is(err, kerr.ProducerFenced) || errors.Is(err, kerr.InvalidProducerEpoch)
}
