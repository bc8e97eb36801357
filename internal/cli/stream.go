package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/replicate"
	kafkasink "github.com/sluice-db/sluice/internal/sink/kafka"
	"github.com/sluice-db/sluice/internal/stream"
)

func newStreamCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "stream",
		Short: "Stream MySQL/MariaDB shards into Kafka as Debezium MySQL connector events, exactly once",
		Long: `stream writes every change of one or more MySQL/MariaDB sources (shards) into
Kafka in the Debezium MySQL connector's JSON format: topic <prefix>.<db>.<table>,
key = the primary key columns (null without one), value = the Debezium envelope
(before, after, source, op c/u/d/r, ts_ms). With several shards every key also
names its shard (__dbz__physicalTableIdentifier), or with --shard-layout topic
each shard has its own topics <prefix>.<host>_<port>.<db>.<table>. A new stream first writes a consistent
snapshot of every table as op "r" events (--no-snapshot starts at the current
position), then follows the binlog; schema changes go to the topic <prefix>.

Exactly once: a transactional producer commits each group of events together
with the stream's position in the compacted topic <prefix>.sluice.offsets, in one
Kafka transaction; a restart (after kill -9 too) fences the old producer and
continues from the committed position, so a read_committed consumer sees every
change once. See docs/kafka.md.

A new stream refuses (exit 2) topics that already hold another history
(another stream's, an earlier run's): --reuse-topics writes into them anyway.

Exit codes: 0 stopped (SIGINT/SIGTERM) or caught up, 1 failure, 2 configuration
error (Kafka or a source unreachable at start), 130 (SIGINT) or 143 (SIGTERM)
stopped before --until-caught-up was reached.`,
		Example: `  sluice stream --source mysql://sluice@db1:3306/shop --source-password-file /etc/sluice/db1.pw --kafka 127.0.0.1:9092 --topic-prefix shop
  SLUICE_SOURCE_PASSWORD=… sluice stream --source mysql://sluice@shard1:3306/shop --source mysql://sluice@shard2:3306/shop --kafka k1:9092,k2:9092 --topic-prefix shop --schemas`,
		Args: cobra.NoArgs,
		RunE: runStream,
	}
	f := cmd.Flags()
	addMinRetentionFlag(cmd)
	f.StringArray("source", nil, "source URL, one per shard (repeatable): mysql://user@host:3306/database; env SLUICE_SOURCE for one, a list in the config file; "+
		"the password of the URLs without one from --source-password-file or SLUICE_SOURCE_PASSWORD")
	addPasswordFileFlag(cmd, "source")
	f.String("kafka", "", "Kafka bootstrap brokers host:port[,host:port], e.g. --kafka 127.0.0.1:9092")
	f.String("topic-prefix", "", "topic prefix (Debezium's topic.prefix, source.name), e.g. --topic-prefix shop")
	f.Bool("schemas", false, "add the Kafka Connect JsonConverter schema block to keys and values (schemas.enable=true)")
	f.Bool("no-tombstones", false, "leave out the null-valued record Debezium writes after each delete")
	f.Bool("transaction-metadata", false, "add Debezium's transaction metadata: a transaction block in each event and BEGIN/END records on the topic <prefix>.transaction")
	f.Bool("no-snapshot", false, "start a new stream at the sources' current positions instead of with a snapshot")
	f.Int64("chunk-rows", stream.DefaultChunkRows, "rows per snapshot chunk, each one Kafka transaction with its progress (the unit of resuming), e.g. --chunk-rows 50000")
	f.Int32("partitions", 1, "partitions of the table topics sluice creates, e.g. --partitions 6")
	f.Int("workers", 1, "apply workers per shard: 1 keeps every topic partition in source commit order; more encode in parallel and keep only each key's order (Kafka transactions commit one at a time either way)")
	f.String("max-txn-memory", "256MB", "memory for decoded changes per shard; a larger source transaction is written in fragments inside one Kafka transaction")
	f.Bool("until-caught-up", false, "exit 0 once every shard has written everything its source had when it first went idle")
	f.String("merged-topic", "", "also write every shard's transactions into this single-partition topic in one global order (per shard in commit order, across shards by commit time, released once every shard's watermark passed it), exactly once; needs --workers 1 (docs/kafka.md)")
	f.String("shard-layout", "", "how events name their shard: key (the default with several --source: shared topics <prefix>.<db>.<table>, every key with the field __dbz__physicalTableIdentifier, as Debezium's ByLogicalTableRouter), topic (a topic per shard, <prefix>.<host>_<port>.<db>.<table>, keys the primary key alone), none (the default with one --source: Debezium's layout; refused with several)")
	f.Bool("reuse-topics", false, "let a new stream write into topics that already hold another history (another stream's, an earlier run's); a consumer of them then sees both histories")
	f.Bool("standby", false, "wait while another process of the stream leads (a Kafka consumer group), and take over within seconds when it dies or freezes; "+
		"the one taken over from is fenced by its transactional.id and exits 2, e.g. --standby")
	f.StringSlice("include", nil, "tables to include as db.table patterns, e.g. --include 'shop.order*'; default: the source URL's database")
	f.StringSlice("exclude", nil, "tables to leave out, same patterns as --include")
	addStreamFlag(cmd)
	addRowPolicyFlags(cmd)
	addMetricsFlag(cmd)
	cmd.AddCommand(newStreamStatusCmd())
	return cmd
}

func newStreamStatusCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Print the committed position of every stream (shard) of a topic prefix",
		Long: `status reads <prefix>.sluice.offsets (read_committed) and prints, per stream
(one per shard), the committed binlog position, the source commit time of the
last change written and how long ago the state was written.`,
		Example: `  sluice stream status --kafka 127.0.0.1:9092 --topic-prefix shop`,
		Args:    cobra.NoArgs,
		RunE:    runStreamStatus,
	}
	cmd.Flags().String("kafka", "", "Kafka bootstrap brokers host:port[,host:port]")
	cmd.Flags().String("topic-prefix", "", "topic prefix of the stream")
	addJSONFlag(cmd)
	return cmd
}

func runStreamStatus(cmd *cobra.Command, _ []string) error {
	s, err := loadSettings(cmd)
	if err != nil {
		return err
	}
	brokers := splitBrokers(s.K.String("kafka"))
	prefix := s.K.String("topic-prefix")
	if len(brokers) == 0 || prefix == "" {
		return exitcode.ConfigError(fmt.Errorf("stream status: --kafka and --topic-prefix are required"))
	}
	all, err := kafkasink.ReadAllStatus(cmd.Context(), brokers, prefix)
	if err != nil {
		return err
	}
	sts := all.Streams
	out := cmd.OutOrStdout()
	if s.K.Bool("json") {
		if len(all.Merged) == 0 {
			return json.NewEncoder(out).Encode(sts)
		}
		return json.NewEncoder(out).Encode(all)
	}
	defer printMerged(out, all.Merged)
	if len(sts) == 0 {
		fmt.Fprintf(out, "no stream has committed into %s.sluice.offsets\n", prefix)
		return nil
	}
	for _, st := range sts {
		lag := "-"
		if !st.SourceTime.IsZero() {
			lag = st.UpdatedAt.Sub(st.SourceTime).Round(time.Millisecond).String()
		}
		layout := st.Layout
		if st.Shard != "" {
			layout += ", shard " + st.Shard
		}
		if st.Copying != "" {
			layout += "; snapshot not complete (it resumes at the next run): " + st.Copying
		}
		fmt.Fprintf(out, "stream %s: position %s, schema version %d, last source commit %s (delay at write %s), state written %s ago, shard layout %s\n",
			st.Stream, st.Position, st.SchemaVersion, st.SourceTime.Format(time.RFC3339), lag,
			time.Since(st.UpdatedAt).Round(time.Second), layout)
	}
	return nil
}

func splitBrokers(s string) []string {
	var out []string
	for _, b := range strings.Split(s, ",") {
		if b = strings.TrimSpace(b); b != "" {
			out = append(out, b)
		}
	}
	return out
}

func runStream(cmd *cobra.Command, _ []string) error {
	s, err := loadSettings(cmd)
	if err != nil {
		return err
	}
	k := s.K
	urls := config.List(k, "source")
	if len(urls) == 0 {
		return exitcode.ConfigError(fmt.Errorf("stream: --source is required (one per shard), e.g. --source mysql://sluice@db1:3306/shop"))
	}
	var srcs []config.MySQL
	for _, u := range urls {
		m, err := config.ParseSource(u)
		if err != nil {
			return exitcode.ConfigError(err)
		}
		srcs = append(srcs, m)
	}
	brokers := splitBrokers(k.String("kafka"))
	if len(brokers) == 0 {
		return exitcode.ConfigError(fmt.Errorf("stream: --kafka is required, e.g. --kafka 127.0.0.1:9092"))
	}
	prefix := k.String("topic-prefix")
	if prefix == "" {
		return exitcode.ConfigError(fmt.Errorf("stream: --topic-prefix is required, e.g. --topic-prefix shop"))
	}
	maxMem, err := replicate.ParseSize(k.String("max-txn-memory"))
	if err != nil {
		return exitcode.ConfigError(fmt.Errorf("--max-txn-memory: %w", err))
	}
	policy, err := rowPolicy(k)
	if err != nil {
		return err
	}
	mon, err := serveRuntimeMetrics(cmd, s)
	if err != nil {
		return err
	}
	o := stream.Options{Sources: srcs, Brokers: brokers, Prefix: prefix, Stream: k.String("stream"), MinBinlogRetention: minBinlogRetention(s),
		Schemas: k.Bool("schemas"), NoTombstones: k.Bool("no-tombstones"), TxnMetadata: k.Bool("transaction-metadata"), NoSnapshot: k.Bool("no-snapshot"), ChunkRows: k.Int64("chunk-rows"),
		UntilCaughtUp: k.Bool("until-caught-up"), Include: k.Strings("include"), Exclude: k.Strings("exclude"),
		Workers: k.Int("workers"), MaxTxnMemory: maxMem, Partitions: int32(k.Int("partitions")),
		Version: Version, Log: s.Log, MergedTopic: k.String("merged-topic"), Layout: k.String("shard-layout"), ReuseTopics: k.Bool("reuse-topics"), Standby: k.Bool("standby"),
		RowPolicy: policy}
	if mon.Registry != nil {
		o.Registry = mon.Registry
	}
	o.Board = mon.Board
	return stoppedEarly(cmd.Context(), o.UntilCaughtUp, stream.Run(cmd.Context(), o))
}

// printMerged prints each merged topic's progress and the shard whose
// watermark holds it back, with that watermark's age.
func printMerged(out io.Writer, ms []kafkasink.MergedStatus) {
	for _, m := range ms {
		fmt.Fprintf(out, "merged topic %s: %d transactions merged, up to commit time %s, state written %s ago\n",
			m.Topic, m.Txns, m.Released.Format(time.RFC3339), time.Since(m.UpdatedAt).Round(time.Second))
		for _, sh := range m.Shards {
			age := "no watermark yet"
			if !sh.Watermark.IsZero() {
				age = "watermark age " + time.Since(sh.Watermark).Round(100*time.Millisecond).String()
			}
			held := ""
			if sh.Stream == m.HeldBy {
				held = " (holds the merged topic back)"
			}
			fmt.Fprintf(out, "  shard %s: %s%s\n", sh.Stream, age, held)
		}
	}
}
