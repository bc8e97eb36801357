package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/preflight"
	"github.com/sluice-db/sluice/internal/replicate"
	"github.com/sluice-db/sluice/internal/reverse"
	"github.com/sluice-db/sluice/internal/typemap"
)

func newReplicateCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "replicate",
		Short: "Stream the MySQL/MariaDB row binlog into PostgreSQL or MySQL/MariaDB, in parallel and exactly once",
		Long: `replicate reads the source's row binlog from the position recorded in the target
(by 'sluice snapshot' or an earlier replicate) and applies every change in
parallel where rows are independent, in source order where they are not. The
applied position and the schema history are written in the same PostgreSQL
transaction as the rows they cover, so a restart after any crash continues with
no missing and no duplicated change. Schema changes (CREATE/ALTER/DROP/RENAME/
TRUNCATE TABLE, indexes, CREATE/DROP DATABASE in scope) are translated and
applied in binlog order; an unsupported one stops replication with the statement,
its position and how to skip it (--skip-ddl).

With a mysql:// --target, the URL's database receives the tables of the one
source database in scope, byte for byte; the source's schema changes are
replayed there (database names rewritten, ENGINE= set by --target-engine), and
the state lives in the target server's database sluice.

A stream without a checkpoint needs --start-gtid or --start-position; the tables
are then assumed to be defined at that position as they are now.

With a postgres:// --source and a mysql:// --target, replicate runs the way back
(docs/reverse.md): the PostgreSQL schema named like the target database (or
what --schema-map maps it to) is read from the logical replication slot
sluice_<stream> that 'sluice cutover' armed and written into the MySQL tables it
came from, values converted for their columns; a value MySQL cannot hold stops
it (--on-error skip-and-log leaves such rows out). After a cut-over of stream S
the way back is --stream S_reverse; a stream with neither a checkpoint nor a slot
is refused (exit 2), naming the cut-over's reverse stream when there is one,
unless --start-at-current-lsn asks to create the slot and start at PostgreSQL's
current position, leaving out every write committed before it.

A status line is logged every 5 seconds (lag, throughput, queue, positions) and
--metrics-addr serves them to Prometheus. SIGINT/SIGTERM stop reading, commit
what was received and exit 0 (with --until-caught-up, before it caught up: 130
or 143). See docs/replication.md.

--standby (PostgreSQL and MySQL targets, and the way back from PostgreSQL): a second replicator of the same stream waits
instead of being refused, and takes over when the active one dies (its
sessions end) or stops answering for 5 s (frozen: the standby ends its
sessions); the one taken over from writes nothing more (fenced by the target)
and exits 2. See docs/operations.md.

Exit codes: 0 stopped or caught up, 1 failure while replicating, 2 configuration
or pre-flight error (including no start position and a purged binlog), 130
(SIGINT) or 143 (SIGTERM) stopped before --until-caught-up was reached.`,
		Example: `  sluice replicate --source mysql://sluice@db1:3306/shop --source-password-file /etc/sluice/db1.pw --target postgres://sluice@pg1:5432/shop --target-password-file /etc/sluice/pg1.pw
  sluice replicate --until-caught-up            # exit 0 once the target has everything the source had when it went idle
  sluice replicate --start-position mysql-bin.000042:4 --include 'shop.*'
  sluice replicate --skip-ddl 'ALTER TABLE shop.log*' --metrics-addr 127.0.0.1:9187
  SLUICE_SOURCE_PASSWORD=… SLUICE_TARGET_PASSWORD=… sluice replicate --source mysql://sluice@db1:3306/shop --target mysql://sluice@db2:3306/shop_copy --target-engine ROCKSDB
  sluice replicate --source postgres://sluice@pg1:5432/shop --source-password-file /etc/sluice/pg1.pw --target mysql://sluice@db1:3306/shop --target-password-file /etc/sluice/db1.pw --stream shop_reverse   # the way back after sluice cutover --stream shop (docs/reverse.md)`,
		Args: cobra.NoArgs,
		RunE: runReplicate,
	}
	addSourceOrReverseFlag(cmd)
	addTargetFlag(cmd)
	addScopeFlags(cmd)
	addTypeFlags(cmd)
	addWorkersFlag(cmd, "apply sessions (target connections writing rows)")
	// Apply sessions mostly wait on PostgreSQL: more of them than CPUs pay
	// off, so 0 lets apply choose (2 per CPU, at least 4; into a MySQL
	// target one fewer, at least 3: mysink.DefaultWorkers).
	w := cmd.Flags().Lookup("workers")
	w.Usage = "parallel apply sessions (target connections writing rows); 0 = 2 per CPU, at least 4 (into MySQL: 2 per CPU less one, at least 3); e.g. --workers 8"
	w.DefValue = "0"
	_ = w.Value.Set("0")
	addStreamFlag(cmd)
	addMetricsFlag(cmd)
	addReplicateFlags(cmd)
	// Not in addReplicateFlags: migrate registers it with its snapshot flags.
	addTargetEngineFlag(cmd)
	// The way back only (migrate has no reverse stream).
	cmd.Flags().Bool("start-at-current-lsn", false, "reverse stream (postgres:// --source) without a checkpoint or a slot: create the slot and start at PostgreSQL's current position, "+
		"leaving out every write committed before it (after sluice cutover, run the reverse stream it printed instead), e.g. --start-at-current-lsn")
	cmd.Flags().Bool("standby", false, "wait while another replicator of the stream runs, and take over within seconds when it dies or stops answering "+
		"(PostgreSQL and MySQL targets, and the way back from PostgreSQL; the one taken over from writes nothing more and exits 2), e.g. --standby")
	return cmd
}

// addReplicateFlags adds the flags of the replication itself (migrate reuses them).
func addReplicateFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	addMinRetentionFlag(cmd)
	f.Uint32("server-id", 0, "server id sluice reads the binlog with; must differ from the source's and every replica's (default: derived from --stream and the target), e.g. --server-id 4242")
	f.String("start-gtid", "", "GTID set to start from when the stream has no checkpoint, e.g. --start-gtid 0-1-42 (MariaDB) or --start-gtid 3e11fa47-71ca-11e1-9e33-c80aa9429562:1-77 (MySQL)")
	f.String("start-position", "", "binlog file:pos to start from when the stream has no checkpoint, e.g. --start-position mysql-bin.000042:4")
	f.String("max-txn-memory", "256MB", "memory for decoded changes; a larger source transaction is applied in fragments inside one target transaction, e.g. --max-txn-memory 1GiB")
	f.StringSlice("skip-ddl", nil, "skip source statements matching this glob (* and ?, case-insensitive) instead of stopping on them; repeatable, e.g. --skip-ddl 'ALTER TABLE shop.log*'")
	f.Duration("target-retry", 10*time.Minute, "how long to keep reconnecting after losing the target (a PostgreSQL restart or failover) before giving up; each attempt continues from the checkpoint, exactly once; 0s = never retry, e.g. --target-retry 1h")
	f.String("on-error", "stop", "reverse stream (postgres:// --source): a row whose value the MySQL column cannot hold stops the stream (stop) or is left out and logged (skip-and-log), e.g. --on-error skip-and-log")
	addRowPolicyFlags(cmd)
	f.Bool("until-caught-up", false, "exit 0 once everything the source had written when the stream first went idle is applied, e.g. --until-caught-up")
}

func runReplicate(cmd *cobra.Command, _ []string) error {
	s, err := loadSettings(cmd)
	if err != nil {
		return err
	}
	if isPostgresSource(s) {
		if len(s.K.Strings("where")) > 0 || len(s.K.Strings("mask")) > 0 {
			return exitcode.ConfigError(errors.New("--where/--mask: the reverse stream (a postgres:// --source) does not apply row filters and column masks yet (docs/filters-masks.md)"))
		}
		ro, err := reverseOptions(s)
		if err != nil {
			return err
		}
		mon, err := serveRuntimeMetrics(cmd, s)
		if err != nil {
			return err
		}
		if mon.Registry != nil {
			ro.Registry = mon.Registry
		}
		ro.Board = mon.Board
		return stoppedEarly(cmd.Context(), ro.UntilCaughtUp, reverse.Run(cmd.Context(), ro))
	}
	opts, err := replicateOptions(cmd, s)
	if err != nil {
		return err
	}
	if err := serveMetrics(cmd, s, &opts); err != nil {
		return err
	}
	return stoppedEarly(cmd.Context(), opts.UntilCaughtUp, replicate.Run(cmd.Context(), opts))
}

// stoppedEarly is the outcome of a stream that returned err: a signal ends
// a continuous stream gracefully (nil: exit 0), but with --until-caught-up
// the promise is "caught up", so a signal before that is an interruption
// (Execute exits 128 + the signal's number).
func stoppedEarly(ctx context.Context, untilCaughtUp bool, err error) error {
	if err == nil && untilCaughtUp && ctx.Err() != nil {
		return errors.New("stopped before it caught up (--until-caught-up); everything received was committed: run it again to continue from the checkpoint")
	}
	return err
}

// replicateOptions reads the settings and runs the pre-flight checks. The
// server-id clash check is the stream's own (it recognises a stale
// connection of an earlier run of the same stream).
func replicateOptions(cmd *cobra.Command, s *Settings) (replicate.Options, error) {
	k := s.K
	maxMem, err := replicate.ParseSize(k.String("max-txn-memory"))
	if err != nil {
		return replicate.Options{}, exitcode.ConfigError(fmt.Errorf("--max-txn-memory: %w", err))
	}
	if k.Bool("start-at-current-lsn") {
		return replicate.Options{}, exitcode.ConfigError(fmt.Errorf("--start-at-current-lsn applies to the reverse stream (a postgres:// --source) only; " +
			"a binlog stream without a checkpoint starts at --start-gtid or --start-position"))
	}
	if oe := k.String("on-error"); oe != "" && oe != "stop" {
		return replicate.Options{}, exitcode.ConfigError(fmt.Errorf("--on-error %s applies to the reverse stream (a postgres:// --source) only", oe))
	}
	policy, err := rowPolicy(k)
	if err != nil {
		return replicate.Options{}, err
	}
	engine := k.String("target-engine")
	ep, err := checkEndpoints(cmd.Context(), s, preflight.Needs{Source: true, Binlog: true, Target: true, TargetCreate: true,
		TargetEngine: engine, MinBinlogRetention: minBinlogRetention(s)})
	if err != nil {
		return replicate.Options{}, err
	}
	if err := ep.refuseTargetEngine(engine); err != nil {
		return replicate.Options{}, err
	}
	return replicate.Options{
		Source: ep.Source, Target: ep.Engine, Stream: k.String("stream"),
		ServerID:  uint32(k.Int64("server-id")),
		StartGTID: k.String("start-gtid"), StartPosition: k.String("start-position"),
		Include: k.Strings("include"), Exclude: k.Strings("exclude"), SchemaMap: k.Strings("schema-map"),
		Identifiers: k.String("identifiers"), Renames: k.Strings("rename"), ExcludeColumns: k.Strings("exclude-columns"),
		ZeroDate: typemap.ZeroDatePolicy(k.String("zero-date")), Nul: typemap.NulPolicy(k.String("nul-char")),
		Workers: k.Int("workers"), MaxTxnMemory: maxMem, SkipDDL: k.Strings("skip-ddl"),
		UntilCaughtUp: k.Bool("until-caught-up"), Standby: k.Bool("standby"),
		TargetRetry: targetRetry(k.Duration("target-retry")),
		RowPolicy:   policy,
		Log:         s.Log,
	}, nil
}

// targetRetry maps --target-retry to the option (0 there: never retry).
func targetRetry(d time.Duration) time.Duration {
	if d <= 0 {
		return -1
	}
	return d
}
