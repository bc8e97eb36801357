package cli

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/preflight"
	"github.com/sluice-db/sluice/internal/replicate"
	"github.com/sluice-db/sluice/internal/snapshot"
	mysnap "github.com/sluice-db/sluice/internal/source/mysql/consistent"
	"github.com/sluice-db/sluice/internal/typemap"
)

func newSnapshotCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "snapshot",
		Short: "Copy schema and data from MySQL/MariaDB into PostgreSQL (or MySQL/MariaDB) at one consistent instant",
		Long: `snapshot creates the PostgreSQL tables for the selected MySQL/MariaDB tables and
copies their rows as of one instant of the source, in parallel key-range chunks
over binary COPY, without stopping writes on the source (a read lock of the
tables in scope is held for milliseconds; --snapshot-method chooses the global
read lock, or on MariaDB no lock). Indexes are built after
each table's data, foreign keys after all data. The binlog position of that
instant is recorded in the target's "sluice" schema, and 'sluice replicate'
continues from exactly there.

An interrupted snapshot (kill, lost connection) continues where it stopped when
the same command runs again; --restart starts over. The report lists the values
changed by --zero-date/--nul-char and the objects not migrated (views, triggers,
routines, events); --objects-sql FILE writes them with best-effort PostgreSQL
translations for review. See docs/snapshot.md.

With a mysql:// --target (MariaDB into MariaDB, MySQL into MySQL or MariaDB) the
tables are created from the source's own SHOW CREATE TABLE in the URL's database
(--target-engine rewrites ENGINE=, e.g. ROCKSDB; MySQL 8+ collations and syntax
are translated for MariaDB, see docs/mysql8.md) and the rows are written byte for
byte; the state is kept in the target's "sluice" database.

Exit codes: 0 done, 1 failure while copying (the message names the table, chunk
and cause), 2 configuration or pre-flight error (nothing copied), 130 (SIGINT)
or 143 (SIGTERM) interrupted: the chunks copied so far are kept and the same
command resumes.`,
		Example: `  sluice snapshot --source mysql://sluice@db1:3306/shop --source-password-file /etc/sluice/db1.pw --target postgres://sluice@pg1:5432/shop --target-password-file /etc/sluice/pg1.pw
  sluice snapshot --include 'shop.order*' --exclude 'shop.order_archive' --workers 8
  sluice snapshot --schema-only                      # tables, indexes, foreign keys; no rows
  sluice snapshot --restart --drop-existing --json   # start over, replace what is there
  sluice snapshot --include shop.orders --recopy     # copy one table of a replicated stream again
  sluice snapshot --config replica.yaml --target-engine ROCKSDB      # source:, target: and their passwords in a file of mode 0600`,
		RunE: runSnapshot,
	}
	addSourceFlag(cmd)
	addTargetFlag(cmd)
	addScopeFlags(cmd)
	addRowPolicyFlags(cmd)
	addTypeFlags(cmd)
	addWorkersFlag(cmd, "reader sessions and COPY streams")
	addStreamFlag(cmd)
	addJSONFlag(cmd)
	addMetricsFlag(cmd)
	addSnapshotFlags(cmd)
	addTargetEngineFlag(cmd)
	cmd.Flags().Bool("recopy", false, "copy the --include tables of an existing stream again (PostgreSQL target), while its replicator runs or is stopped; "+
		"the replicator pauses for the copy and then skips the tables' changes up to the copy's position (docs/replication.md), e.g. --include shop.orders --recopy")
	cmd.Flags().StringSlice("add", nil, addFlagUsage)
	return cmd
}

// addSnapshotFlags adds the flags of the copy itself (migrate reuses them).
func addSnapshotFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.Int64("chunk-rows", snapshot.DefaultChunkRows, "rows per key-range chunk (the unit of parallelism and of resuming), e.g. --chunk-rows 50000")
	f.Bool("dry-run", false, "connect, run the pre-flight checks and print the tables in scope with the source's size estimates and the complete PostgreSQL DDL; write nothing, e.g. --dry-run")
	f.Bool("schema-only", false, "create tables, indexes, foreign keys and sequences, copy no rows, e.g. --schema-only")
	f.Bool("data-only", false, "copy rows into tables that already exist (e.g. made by --schema-only), e.g. --data-only")
	f.Bool("drop-existing", false, "replace target tables that exist with other columns or hold rows (with --data-only: empty them), e.g. --drop-existing")
	f.Bool("restart", false, "forget an interrupted or finished snapshot of this stream: drop the tables it created and copy again, e.g. --restart")
	f.String("snapshot-method", string(mysnap.MethodAuto), "how the readers reach one instant: auto (a read lock of the tables in scope held for milliseconds; without LOCK TABLES the global read lock; on MariaDB without RELOAD either lock-free, else one session), table-lock (needs LOCK TABLES), global-read-lock (needs RELOAD), lock-free (MariaDB) or single-session (MariaDB), e.g. --snapshot-method global-read-lock")
	f.String("max-rate", "", "bound the bytes per second read from the source by all workers together (spares a production server's I/O and network; the copy, and its consistent read view on the source, then last longer), e.g. --max-rate 50MB; default: no limit")
	f.String(objectsFlag, "", objectsFlagUsage)
	f.Duration("lock-wait-timeout", 10*time.Second, "longest wait of one attempt of the snapshot's lock for running writes (the locked tables' writers queue behind it meanwhile), e.g. --lock-wait-timeout 5s")
	addMinRetentionFlag(cmd)
	f.Int("lock-attempts", 3, "how often the snapshot's lock is tried before it gives up; between two attempts the lock is released for half the wait (1-10 s) so queued writers go through, e.g. --lock-attempts 5")
}

func runSnapshot(cmd *cobra.Command, _ []string) error {
	s, err := loadSettings(cmd)
	if err != nil {
		return err
	}
	if len(s.K.Strings("add")) > 0 {
		return runSnapshotAdd(cmd, s)
	}
	opts, err := snapshotOptions(cmd, s)
	if err != nil {
		return err
	}
	if err := checkObjectsFile(s); err != nil {
		return err
	}
	mon, err := serveRuntimeMetrics(cmd, s)
	if err != nil {
		return err
	}
	opts.Board = mon.Board
	rep, err := snapshot.Run(cmd.Context(), opts)
	if err != nil {
		return err
	}
	objs, oerr := writeObjectsSQL(cmd.Context(), s, opts)
	return errObjectsAfterReport(printSnapshotWithObjects(cmd.OutOrStdout(), rep, objs, s.K.Bool("json")), oerr)
}

// snapshotOptions reads the settings and runs the pre-flight checks.
func snapshotOptions(cmd *cobra.Command, s *Settings) (snapshot.Options, error) {
	k := s.K
	method, err := mysnap.ParseMethod(k.String("snapshot-method"))
	if err != nil {
		return snapshot.Options{}, exitcode.ConfigError(err)
	}
	var maxRate int64
	if v := k.String("max-rate"); v != "" {
		// Below 256 KiB/s a reader could pause long enough for the source to
		// give up on it (net_write_timeout, 60 s by default).
		if maxRate, err = replicate.ParseSize(v); err != nil || maxRate < 256<<10 {
			return snapshot.Options{}, exitcode.ConfigError(fmt.Errorf("--max-rate %q: want bytes per second of at least 256KB, e.g. 50MB", v))
		}
	}
	policy, err := rowPolicy(k)
	if err != nil {
		return snapshot.Options{}, err
	}
	ep, err := checkEndpoints(cmd.Context(), s, preflight.Needs{
		Source: true, Snapshot: true, Target: true, TargetCreate: !k.Bool("data-only"),
		TargetEngine: k.String("target-engine"), MinBinlogRetention: snapshotMinRetention(s),
	})
	if err != nil {
		return snapshot.Options{}, err
	}
	if err := ep.refuseTargetEngine(k.String("target-engine")); err != nil {
		return snapshot.Options{}, err
	}
	opts := snapshot.Options{
		Source: ep.Source, Target: ep.Engine, MaxRate: maxRate, MinBinlogRetention: snapshotMinRetention(s),
		Include: k.Strings("include"), Exclude: k.Strings("exclude"), SchemaMap: k.Strings("schema-map"),
		Identifiers: k.String("identifiers"), Renames: k.Strings("rename"), ExcludeColumns: k.Strings("exclude-columns"),
		ZeroDate: typemap.ZeroDatePolicy(k.String("zero-date")), Nul: typemap.NulPolicy(k.String("nul-char")),
		ChunkRows: k.Int64("chunk-rows"), Workers: k.Int("workers"), Stream: k.String("stream"),
		SchemaOnly: k.Bool("schema-only"), DataOnly: k.Bool("data-only"), DryRun: k.Bool("dry-run"),
		DropExisting: k.Bool("drop-existing"), Restart: k.Bool("restart"), Recopy: k.Bool("recopy"),
		Method: method, LockWaitTimeout: k.Duration("lock-wait-timeout"), LockAttempts: k.Int("lock-attempts"),
		Log: s.Log, Progress: cmd.ErrOrStderr(),
		RowPolicy: policy,
	}
	if file, ok := cmd.ErrOrStderr().(*os.File); ok && isatty.IsTerminal(file.Fd()) && !k.Bool("json") {
		opts.Terminal = true
	}
	return opts, nil
}

func printSnapshotReport(w io.Writer, rep *snapshot.Report, asJSON bool) error {
	var err error
	if asJSON {
		err = rep.WriteJSON(w)
	} else {
		err = rep.WriteText(w)
	}
	if err != nil {
		return fmt.Errorf("print report: %w", err)
	}
	return nil
}
