package stream

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sluice-db/sluice/internal/exitcode"
	kafkasink "github.com/sluice-db/sluice/internal/sink/kafka"
)

// --merged-topic: every shard's sink also writes a journal (its events in
// commit order, sink/kafka/journal.go), a watermarker per shard adds the
// shard's watermarks (watermark.go), and one merger (sink/kafka/merge.go)
// writes the merged topic from the journals, exactly once.

var topicName = regexp.MustCompile(`^[a-zA-Z0-9._-]{1,249}$`)

func (o Options) checkMerged() error {
	if o.MergedTopic == "" {
		return nil
	}
	if !topicName.MatchString(o.MergedTopic) {
		return exitcode.ConfigError(fmt.Errorf("stream: --merged-topic %q is not a Kafka topic name (letters, digits, '.', '_', '-')", o.MergedTopic))
	}
	if o.Workers > 1 {
		// With several workers, independent transactions commit out of
		// source order, so a shard's journal would not be in commit order.
		return exitcode.ConfigError(errors.New("stream: --merged-topic needs --workers 1 (each shard's transactions in commit order)"))
	}
	for _, src := range o.Sources {
		if shard := o.Prefix + "." + kafkasink.ShardLabel(src.Addr()); o.Layout == string(kafkasink.LayoutTopic) && o.MergedTopic == shard {
			return exitcode.ConfigError(fmt.Errorf("stream: --merged-topic %s is the schema-change topic of shard %s (--shard-layout topic); "+
				"choose another name, e.g. %s.merged", o.MergedTopic, src.Addr(), o.Prefix))
		}
	}
	if collides(o.Prefix, o.MergedTopic) {
		return exitcode.ConfigError(fmt.Errorf("stream: --merged-topic %s could be one of the stream's own topics (%s, %s.<db>.<table>, %s.transaction, %s.sluice.*); "+
			"choose another name, e.g. %s.merged", o.MergedTopic, o.Prefix, o.Prefix, o.Prefix, o.Prefix, o.Prefix))
	}
	return nil
}

// collides reports whether topic is or could be a topic the stream itself
// writes under prefix.
func collides(prefix, topic string) bool {
	if topic == prefix {
		return true
	}
	rest, ok := strings.CutPrefix(topic, prefix+".")
	return ok && (strings.Contains(rest, ".") || rest == "transaction" || rest == "sluice")
}

// mergedRun is the merged topic's part of one run: the shards' journals,
// the watermark producer and the merger.
type mergedRun struct {
	o        Options
	journals map[string]*kafkasink.Journal // by shard stream name
	pr       *kgo.Client                   // watermark records (not transactional)
	age      *prometheus.GaugeVec
	held     *prometheus.GaugeVec
	delay    prometheus.Gauge
}

func newMergedRun(o Options) (*mergedRun, error) {
	pr, err := kgo.NewClient(kgo.SeedBrokers(o.Brokers...), kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		return nil, exitcode.ConfigError(fmt.Errorf("kafka: %w", err))
	}
	m := &mergedRun{o: o, journals: map[string]*kafkasink.Journal{}, pr: pr}
	for _, src := range o.Sources {
		name := o.ShardStream(src)
		m.journals[name] = &kafkasink.Journal{Topic: kafkasink.JournalTopic(o.Prefix, name), Merged: o.MergedTopic}
	}
	if o.Registry != nil {
		m.age = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "sluice_stream_merged_watermark_age_seconds",
			Help: "Age of each shard's watermark as the merger last saw it (now - watermark, source clocks)."}, []string{"merged_topic", "shard"})
		m.held = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "sluice_stream_merged_held_back",
			Help: "1 for the shard whose watermark holds the merged topic back, else 0."}, []string{"merged_topic", "shard"})
		m.delay = prometheus.NewGauge(prometheus.GaugeOpts{Name: "sluice_stream_merged_delay_seconds",
			Help: "now - the commit time of the last transaction merged.", ConstLabels: prometheus.Labels{"merged_topic": o.MergedTopic}})
		var err error
		m.age, err = register(o.Registry, m.age)
		if err == nil {
			m.held, err = register(o.Registry, m.held)
		}
		if err == nil {
			m.delay, err = register(o.Registry, m.delay)
		}
		if err != nil {
			pr.Close()
			return nil, err
		}
	}
	return m, nil
}

func (m *mergedRun) close() { m.pr.Close() }

// register registers c, or returns the collector an earlier run of the
// same process registered.
func register[C prometheus.Collector](r prometheus.Registerer, c C) (C, error) {
	if err := r.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if old, ok := are.ExistingCollector.(C); ok {
				return old, nil
			}
		}
		return c, err
	}
	return c, nil
}

// merge runs the merger until ctx ends or, after done closed, everything
// released is merged; a failed merger starts again from its last commit.
func (m *mergedRun) merge(ctx context.Context, done <-chan struct{}) error {
	var shards []string
	for _, src := range m.o.Sources {
		shards = append(shards, m.o.ShardStream(src))
	}
	log := m.o.Log.With("merged_topic", m.o.MergedTopic)
	every := m.o.StatusEvery
	if every <= 0 {
		every = 5 * time.Second
	}
	var lastLog time.Time
	cfg := kafkasink.MergeConfig{Brokers: m.o.Brokers, Prefix: m.o.Prefix, Topic: m.o.MergedTopic, Shards: shards, Done: done, Log: log,
		Observe: func(p kafkasink.MergeProgress) { m.observe(p, log, every, &lastLog) }}
	for backoff := time.Second; ; backoff = min(2*backoff, 30*time.Second) {
		err := kafkasink.RunMerger(ctx, cfg)
		if err == nil || ctx.Err() != nil {
			return err
		}
		if exitcode.Of(err) == exitcode.Config {
			return err
		}
		log.Warn("merge: the merger stopped; starting again from its last commit", "error", err, "backoff", backoff)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff):
		}
	}
}

func (m *mergedRun) observe(p kafkasink.MergeProgress, log *slog.Logger, every time.Duration, lastLog *time.Time) {
	now := time.Now()
	m.o.Board.Merged(m.o.MergedTopic).Observe(p.Watermarks, p.HeldBy, p.Released)
	for shard, wm := range p.Watermarks {
		held := 0.0
		if shard == p.HeldBy {
			held = 1
		}
		if m.age != nil {
			age := -1.0 // no watermark yet
			if !wm.IsZero() {
				age = now.Sub(wm).Seconds()
			}
			m.age.WithLabelValues(m.o.MergedTopic, shard).Set(age)
			m.held.WithLabelValues(m.o.MergedTopic, shard).Set(held)
		}
	}
	if m.delay != nil && !p.Released.IsZero() {
		m.delay.Set(now.Sub(p.Released).Seconds())
	}
	if p.HeldBy != "" && now.Sub(*lastLog) >= every {
		*lastLog = now
		wm := p.Watermarks[p.HeldBy]
		age := "none yet"
		if !wm.IsZero() {
			age = now.Sub(wm).Round(100 * time.Millisecond).String()
		}
		log.Info("merge: held back by a shard's watermark", "shard", p.HeldBy, "watermark_age", age)
	}
}
