// Package stream runs `sluice stream`: every source shard into Kafka as
// Debezium MySQL connector events, exactly once. Per shard: an initial
// consistent snapshot as op "r" events through the one snapshot runner
// (internal/snapshot) into the Kafka engine, chunk by chunk, resumed after
// a kill (snapshot.go), then the binlog through replicate's pipeline into
// the Kafka sink
// (internal/sink/kafka). Shards run side by side in one process, each with
// its own stream state, transactional producer and binlog reader; one
// failing shard does not stop the others. docs/kafka.md describes it.
package stream

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sluice-db/sluice/internal/board"
	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/preflight"
	"github.com/sluice-db/sluice/internal/replicate"
	"github.com/sluice-db/sluice/internal/rowpolicy"
	"github.com/sluice-db/sluice/internal/schema"
	kafkasink "github.com/sluice-db/sluice/internal/sink/kafka"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/source/mysql/consistent"
	"github.com/sluice-db/sluice/internal/typemap"
)

// Options are the settings of one `sluice stream` run.
type Options struct {
	Sources []config.MySQL
	Brokers []string
	Prefix  string
	// Stream names the stream; with several shards each gets
	// Stream@host:port as its own stream name (its state record's key).
	Stream                string
	Schemas, NoTombstones bool
	TxnMetadata           bool
	NoSnapshot            bool
	// ChunkRows is the rows per snapshot chunk, each one Kafka transaction
	// (--chunk-rows; 0: DefaultChunkRows).
	ChunkRows        int64
	UntilCaughtUp    bool
	Include, Exclude []string
	Workers          int
	MaxTxnMemory     int64
	Partitions       int32
	Version          string
	Registry         prometheus.Registerer
	Board            *board.Board // the status page: one card per shard (nil: none)
	Log              *slog.Logger
	StatusEvery      time.Duration
	// MergedTopic (--merged-topic) also writes every shard's transactions
	// into this single-partition topic in one global order (merged.go).
	MergedTopic string
	// Layout (--shard-layout) says how events name their shard: "" is the
	// shard in the key with several sources, Debezium's layout with one
	// (kafkasink.ParseLayout).
	Layout string
	// ReuseTopics (--reuse-topics) lets a new stream write into topics that
	// hold another history (kafkasink.Store.CheckNewStream).
	ReuseTopics bool
	// Standby (--standby) waits until this process leads the stream
	// (kafkasink.Lead) and stops when it no longer does.
	Standby bool
	// MinBinlogRetention is pre-flight's shortest binlog retention of a
	// shard (--min-binlog-retention; 0 = no check).
	MinBinlogRetention time.Duration
	// RowPolicy: --where and --mask (internal/rowpolicy), in the snapshot's
	// reads and on every change; nil for none.
	RowPolicy *rowpolicy.Policy
}

// ShardStream is the stream name of shard src.
func (o Options) ShardStream(src config.MySQL) string {
	if len(o.Sources) == 1 {
		return o.Stream
	}
	return o.Stream + "@" + src.Addr()
}

// Run streams every shard until ctx ends, --until-caught-up is reached on
// every shard, or every shard stopped; errors of the shards are joined.
func Run(ctx context.Context, o Options) error {
	if o.Stream == "" {
		o.Stream = checkpoint.DefaultStream
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Workers <= 0 {
		// One worker: every partition in source commit order, and a stop
		// (a row too large) leaves nothing after it written.
		o.Workers = 1
	}
	if len(o.Sources) == 0 || len(o.Brokers) == 0 || o.Prefix == "" {
		return exitcode.ConfigError(errors.New("stream: --source, --kafka and --topic-prefix are required"))
	}
	seen := map[string]bool{}
	for _, s := range o.Sources {
		if seen[s.Addr()] {
			return exitcode.ConfigError(fmt.Errorf("stream: --source %s given twice", s.Redacted()))
		}
		seen[s.Addr()] = true
	}
	layout, err := kafkasink.ParseLayout(o.Layout, len(o.Sources))
	if err != nil {
		return exitcode.ConfigError(fmt.Errorf("stream: %w", err))
	}
	o.Layout = string(layout)
	if err := o.checkMerged(); err != nil {
		return err
	}
	if o.Standby {
		return runStandby(ctx, o)
	}
	return runShards(ctx, o)
}

// runShards streams every shard (and the merged topic) until they stop.
func runShards(ctx context.Context, o Options) error {
	var err error
	var merged *mergedRun
	if o.MergedTopic != "" {
		if merged, err = newMergedRun(o); err != nil {
			return err
		}
		defer merged.close()
	}
	errs := make([]error, len(o.Sources))
	servers := &servers{}
	var wg sync.WaitGroup
	for i, src := range o.Sources {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = runShard(ctx, o, src, merged, servers)
			if errs[i] != nil && len(o.Sources) > 1 {
				errs[i] = fmt.Errorf("shard %s: %w", src.Addr(), errs[i])
			}
		}()
	}
	if merged == nil {
		wg.Wait()
		return errors.Join(errs...)
	}
	// The merger runs beside the shards; once they all stopped it merges
	// what their watermarks release and returns.
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	merr := merged.merge(ctx, done)
	<-done
	if merr != nil && !errors.Is(merr, context.Canceled) {
		errs = append(errs, fmt.Errorf("merged topic %s: %w", o.MergedTopic, merr))
	}
	return errors.Join(errs...)
}

func runShard(ctx context.Context, o Options, src config.MySQL, merged *mergedRun, servers *servers) error {
	name := o.ShardStream(src)
	log := o.Log.With("shard", src.Addr())
	// The source checks of replicate (reachable, privileges, log_bin, ROW
	// format, FULL row image), per shard: one shard's problem stops it alone.
	rep := preflight.Run(ctx, src, config.Target{}, preflight.Needs{Source: true, Binlog: true, Snapshot: !o.NoSnapshot,
		MinBinlogRetention: o.MinBinlogRetention})
	for _, w := range rep.Warnings() {
		log.Warn("pre-flight", "side", w.Side, "warning", w.Cause, "fix", w.Fix)
	}
	if err := rep.Err(); err != nil {
		return err
	}
	serverID, sourceID, err := identify(ctx, src)
	if err != nil {
		return err
	}
	if err := servers.add(sourceID, src); err != nil {
		return err
	}
	cfg := kafkasink.Config{Brokers: o.Brokers, Prefix: o.Prefix, Stream: name, ServerID: serverID, DefaultDatabase: src.Database,
		Schemas: o.Schemas, NoTombstones: o.NoTombstones, TxnMetadata: o.TxnMetadata, Partitions: o.Partitions, Decode: binlogpos.Decode,
		Version: o.Version, Log: log, Layout: kafkasink.Layout(o.Layout), Shard: kafkasink.ShardLabel(src.Addr()), SourceID: sourceID,
		ReuseTopics: o.ReuseTopics}
	if merged != nil {
		cfg.Journal = merged.journals[name]
	}
	if err := start(ctx, o, src, cfg, log); err != nil {
		return err
	}
	var wm *watermarker
	wctx, stopWM := context.WithCancel(ctx)
	defer stopWM()
	wmDone := make(chan struct{})
	if merged != nil {
		if wm, err = newWatermarker(ctx, src, cfg.Journal, merged.pr, log); err != nil {
			return err
		}
		defer wm.close()
		go func() { defer close(wmDone); wm.run(wctx) }()
	} else {
		close(wmDone)
	}
	err = replicate.Run(ctx, replicate.Options{
		Source: src, Target: kafkasink.NewEngine(cfg), Stream: name, Include: o.Include, Exclude: o.Exclude,
		Workers: o.Workers, MaxTxnMemory: o.MaxTxnMemory, UntilCaughtUp: o.UntilCaughtUp,
		Registry: o.Registry, Board: o.Board, Log: log, StatusEvery: o.StatusEvery, RowPolicy: o.RowPolicy,
	})
	stopWM()
	<-wmDone
	if err == nil && wm != nil && ctx.Err() == nil {
		wm.final(ctx)
	}
	return err
}

// start gives a stream without state its start: the snapshot, or with
// --no-snapshot the current position, with the tables as they are now. A
// snapshot a run was stopped or killed in resumes (snapshotShard).
func start(ctx context.Context, o Options, src config.MySQL, cfg kafkasink.Config, log *slog.Logger) error {
	store, err := kafkasink.Connect(ctx, cfg)
	if err != nil {
		return err
	}
	defer func() {
		if store != nil {
			store.Close()
		}
	}()
	if store.Started() {
		return nil
	}
	cs, err := consistent.OpenSource(ctx, src, 2)
	if err != nil {
		return exitcode.ConfigError(err)
	}
	defer cs.Close()
	filter, err := schema.NewFilter(o.Include, o.Exclude, src.Database)
	if err != nil {
		return exitcode.ConfigError(err)
	}
	cat, err := schema.Load(ctx, cs.DB, filter)
	if err != nil {
		return fmt.Errorf("source: %w", err)
	}
	if err := o.RowPolicy.Check(cat.Tables); err != nil {
		return err // before anything is written
	}
	resuming := store.Copying()
	if !resuming {
		if err := store.CheckNewStream(ctx, cat.Tables); err != nil {
			return err
		}
	}
	if o.NoSnapshot && !resuming {
		p, err := cs.OpenPoint(ctx, consistent.PointOptions{Sessions: 1, Log: log,
			Tables: cat.Tables, NonTransactional: consistent.NonTransactional(cat.Tables)})
		if err != nil {
			return err
		}
		defer p.Close()
		log.Info("stream: starting at the current position without a snapshot", "stream", cfg.Stream, "position", p.Position.String())
		return store.RecordStart(ctx, binlogpos.Of(p.Position), cat.Tables)
	}
	charsets, err := typemap.LoadCharsets(ctx, cs.DB, typemap.CharsetsOf(cat.Tables)...)
	if err != nil {
		return fmt.Errorf("source: %w", err)
	}
	// The snapshot's writer connects the stream's producer anew.
	store.Close()
	store = nil
	cs.Close()
	return snapshotShard(ctx, o, src, cfg, charsets, log)
}
