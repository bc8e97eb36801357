package stream

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/replicate"
	kafkasink "github.com/sluice-db/sluice/internal/sink/kafka"
	"github.com/sluice-db/sluice/internal/snapshot"
	"github.com/sluice-db/sluice/internal/typemap"
)

// DefaultChunkRows is the rows per snapshot chunk (one Kafka transaction).
const DefaultChunkRows = 20000

// snapshotShard copies a shard's tables at one consistent point through
// the one snapshot runner (internal/snapshot) into the Kafka engine
// (kafkasink.NewSnapshotEngine), one reader session, chunk by chunk, each
// chunk one Kafka transaction with its progress. A run stopped or killed
// during it resumes at a new consistent point: the engine has the binlog
// from the committed position up to it replayed first (catchUp), then the
// runner copies the chunks not copied yet.
func snapshotShard(ctx context.Context, o Options, src config.MySQL, cfg kafkasink.Config, charsets *typemap.Charsets,
	log *slog.Logger) error {
	began := time.Now()
	eng := kafkasink.NewSnapshotEngine(cfg, kafkasink.SnapshotOptions{
		Charsets: charsets,
		CatchUp: func(ctx context.Context, from, to model.Position) error {
			log.Info("stream: resuming the snapshot: catching up", "from", from.String(), "to", to.String())
			return catchUp(ctx, o, src, cfg, to, log)
		},
		Began: func(pos model.Position, tables int, resumed bool) {
			began = time.Now()
			log.Info("stream: snapshot", "stream", cfg.Stream, "tables", tables, "position", pos.String(), "resumed", resumed)
		},
	})
	rows := o.ChunkRows
	if rows <= 0 {
		rows = DefaultChunkRows
	}
	rep, err := snapshot.Run(ctx, snapshot.Options{Source: src, Target: eng, Stream: cfg.Stream, Include: o.Include,
		Exclude: o.Exclude, ChunkRows: rows, Workers: 1, Log: log, RowPolicy: o.RowPolicy,
		StartOver: fmt.Sprintf("to start over, drop the stream (sluice drop --kafka BROKERS --topic-prefix %s --stream %s) "+
			"and run sluice stream again, after deleting its data topics or with --reuse-topics (docs/kafka.md)", cfg.Prefix, o.Stream)})
	if err != nil {
		return fmt.Errorf("snapshot of %s: %w", src.Redacted(), err)
	}
	log.Info("stream: snapshot committed", "stream", cfg.Stream, "rows", rep.CopiedRows,
		"seconds", strconv.FormatFloat(time.Since(began).Seconds(), 'f', 1, 64))
	return nil
}

// catchUp replays the binlog of a resumed snapshot from the committed
// position to pos, the new consistent point (VReplication's catch-up):
// through replicate's pipeline into the Kafka sink, which writes only the
// changes of rows already copied (their later rows are read at pos) and
// nothing beyond pos. The store must be closed: the replay's producer
// takes the stream's transactional.id.
func catchUp(ctx context.Context, o Options, src config.MySQL, cfg kafkasink.Config, pos model.Position, log *slog.Logger) error {
	c := kafkasink.NewCatchUp(pos)
	cfg.CatchUp = c
	rctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		select {
		case <-c.Reached():
			stop()
		case <-rctx.Done():
		}
	}()
	began := time.Now()
	err := replicate.Run(rctx, replicate.Options{
		Source: src, Target: kafkasink.NewEngine(cfg), Stream: cfg.Stream, Include: o.Include, Exclude: o.Exclude,
		Workers: 1, MaxTxnMemory: o.MaxTxnMemory, Log: log, StatusEvery: o.StatusEvery, RowPolicy: o.RowPolicy,
	})
	select {
	case <-c.Reached():
	default:
		if err == nil {
			err = ctx.Err()
		}
		if err == nil {
			err = errors.New("the replay stopped before the consistent point")
		}
		return fmt.Errorf("stream: resume the snapshot: catch up to %s: %w", pos, err)
	}
	if err != nil && !errors.Is(err, kafkasink.ErrCaughtUp) && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("stream: resume the snapshot: catch up to %s: %w", pos, err)
	}
	log.Info("stream: snapshot catch-up done", "position", pos.String(),
		"seconds", strconv.FormatFloat(time.Since(began).Seconds(), 'f', 1, 64))
	return nil
}
