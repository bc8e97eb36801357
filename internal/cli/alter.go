package cli

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/sluice-db/sluice/internal/alter"
	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
)

func newAlterCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "alter",
		Short: "Change a live MySQL/MariaDB table's definition online: INSTANT when the server can, else a copy swapped in atomically",
		Long: `alter runs an ALTER TABLE on a busy table without blocking its writers.

With --method auto it first asks the server for ALGORITHM=INSTANT (metadata
only); when the server cannot, it builds a copy <table>_new with the new
definition: a parallel key-range copy (INSERT IGNORE ... SELECT on the server)
while the row binlog's changed keys are collected in a de-duplicating set and
re-read from the table into the copy, a chunked checksum of copy vs table on
the shared columns, and an atomic RENAME under a table lock held for
milliseconds (waited for at most --cutover-lock-timeout, with retries).

The copy is paced by default so that the application's write rate to the
table stays at 0.9 of its rate without the copy (--keep-write-rate); the
summary says the rate measured, and every table lock the application waited
on (the checksum point's, the swap's) with its wait and hold.

Operator controls: --dry-run, --max-load / --critical-load (status variables),
--max-lag with --replica (pause while a replica lags; the swap waits too),
--nice-ratio, and a control file (--control-file) whose last command word is
pause, resume, abort or cutover (with --postpone-cutover) and whose setting
lines ("chunk-rows 1000", "workers 2", "max-load Threads_running=40") change
those flags while the run goes on; "sluice alter status" prints the progress.
A killed run resumes when started again with the same clauses; --cleanup
removes what it left. --revert-window 30m keeps the old table current after
the swap, and "sluice alter --table T --revert" swaps it back within it.

Exit codes: 0 done, 1 failure or abort (checksum difference, critical load),
2 refused, every reason at once (no shared key, triggers, a self-referencing
or cascading foreign key the binlog does not log, renamed or dropped columns,
binlog settings, disk, a --replica unreachable or without the privilege),
130 (SIGINT) or 143 (SIGTERM) interrupted: the same command resumes.`,
		Example: `  sluice alter --source mysql://root@db1:3306/shop --source-password-file /etc/sluice/db1.pw --table orders --alter "ADD COLUMN note VARCHAR(200), ADD INDEX (created_at)"
  sluice alter --source ... --table orders --alter "MODIFY amount DECIMAL(14,2)" --dry-run
  sluice alter --source ... --table orders --alter "ADD COLUMN note TEXT" --table order_lines --alter "MODIFY qty BIGINT NOT NULL"   # one swap (MySQL)
  sluice alter --source ... --table orders --alter "DROP COLUMN legacy" --allow-drop-column --control-file /tmp/alter.ctl --postpone-cutover
  sluice alter --source ... --table orders --alter "ADD INDEX (created_at)" --max-lag 1500ms --replica mysql://mon@db2:3306 --replica mysql://mon@db3:3306 --replica-password-file /etc/sluice/mon.pw`,
		Args: cobra.NoArgs,
		RunE: runAlter,
	}
	addSourceFlag(cmd)
	addMetricsFlag(cmd)
	f := cmd.Flags()
	f.StringArray("table", nil, "the table to alter, in the --source URL's database; repeated with an --alter each, the tables are swapped in together by one RENAME (MySQL 8.0.13+)")
	f.StringArray("alter", nil, `the ALTER TABLE clauses, e.g. "ADD COLUMN c INT, ADD INDEX (c)"; one per --table, in the same order`)
	f.String("method", alter.MethodAuto, "auto (INSTANT when the server can, else copy), instant (refuse otherwise) or copy")
	f.Int("workers", 4, "parallel copy, apply and checksum sessions")
	f.Int64("chunk-rows", 5000, "rows per copied chunk")
	f.Duration("cutover-lock-timeout", 2*time.Second, "longest wait for the swap's table lock (writes queue behind it); retried with backoff")
	f.Int("cutover-retries", 30, "attempts at the swap's lock before giving up (the table stays unchanged)")
	f.Bool("dry-run", false, "print the plan, the copy's DDL, estimates and every check; write nothing")
	f.String("max-load", "", "pause the copy while a global status variable is above, e.g. Threads_running=50 (resumes after 1 s below 80% of it)")
	f.String("critical-load", "", "abort (and clean up) when a global status variable is above, e.g. Threads_running=200")
	f.Duration("max-lag", 0, "pause the copy, and hold the swap, while a --replica is further behind than this (or not replicating), e.g. 1500ms")
	f.StringArray("replica", nil, "a replica whose lag --max-lag watches: mysql://user@host:port (repeatable; the user needs SLAVE MONITOR on MariaDB, REPLICATION CLIENT on MySQL); "+
		"the password of the URLs without one from --replica-password-file or SLUICE_REPLICA_PASSWORD")
	addPasswordFileFlag(cmd, "replica")
	f.Float64("nice-ratio", 0, "sleep this fraction of each chunk's copy time after it (0.5: the copy runs 2/3 of the time)")
	f.Float64("keep-write-rate", 0.9, "pace the copy so that the application's write rate to the table (its row changes in the binlog) stays at or above this share of its rate without the copy; 0: copy at full speed")
	f.String("control-file", "", "file that steers the run: its last command word (pause, resume, abort, cutover), and setting lines that change a flag's value while it runs: "+
		"chunk-rows, workers, nice-ratio, max-load, critical-load, max-lag, keep-write-rate (e.g. \"chunk-rows 1000\"; docs/alter.md)")
	f.Bool("postpone-cutover", false, `keep the copy in sync and wait for "cutover" in the control file before the swap`)
	f.Bool("keep-old-table", false, "keep the old table as _<table>_old after the swap (with --revert-window: as <table>_old when the window ends; with --revert: the new layout as _<table>_reverted)")
	f.Bool("allow-drop-column", false, "allow a change that drops columns (their data is lost)")
	f.Bool("cleanup", false, "remove what an interrupted run left (the copy table and its state); alter nothing")
	f.Duration("revert-window", 0, "after the swap, keep the old table (as <table>_old) current from the binlog for this long, e.g. 30m, so that --revert can swap it back; "+
		"sluice keeps running until the window ends (killed: the same command resumes it), then drops the old table (unless --keep-old-table)")
	f.Bool("revert", false, "swap back the old table of an open --revert-window (with --source and --table only): the same short lock, no write made since the swap lost")
	cmd.AddCommand(newAlterStatusCmd())
	return cmd
}

func runAlter(cmd *cobra.Command, _ []string) error {
	s, err := loadSettings(cmd)
	if err != nil {
		return err
	}
	k := s.K
	src, err := mysqlSourceFlag(s)
	if err != nil {
		return err
	}
	maxLoad, err := alter.ParseLoad(k.String("max-load"))
	if err != nil {
		return exitcode.ConfigError(fmt.Errorf("--max-load: %w", err))
	}
	critical, err := alter.ParseLoad(k.String("critical-load"))
	if err != nil {
		return exitcode.ConfigError(fmt.Errorf("--critical-load: %w", err))
	}
	var replicas []config.MySQL
	for _, u := range config.List(k, "replica") {
		m, err := config.ParseSource(u)
		if err != nil {
			return exitcode.ConfigError(fmt.Errorf("--replica: %w", err))
		}
		replicas = append(replicas, m)
	}
	if k.Duration("max-lag") > 0 && len(replicas) == 0 {
		return exitcode.ConfigError(fmt.Errorf("--max-lag needs --replica mysql://user@host:port (repeatable): the replicas whose lag to watch"))
	}
	if k.Bool("postpone-cutover") && k.String("control-file") == "" {
		return exitcode.ConfigError(fmt.Errorf("--postpone-cutover needs --control-file (write \"cutover\" into it to swap)"))
	}
	tables, alters := config.List(k, "table"), config.List(k, "alter")
	changes, err := tableChanges(tables, alters, k.Bool("cleanup") || k.Bool("revert"))
	if err != nil {
		return err
	}
	o := alter.Options{
		Source: src, Table: changes[0].Table, Alter: changes[0].Alter, More: changes[1:], Method: k.String("method"),
		Workers: k.Int("workers"), ChunkRows: k.Int64("chunk-rows"),
		CutoverLockTimeout: k.Duration("cutover-lock-timeout"), CutoverRetries: k.Int("cutover-retries"),
		DryRun: k.Bool("dry-run"), MaxLoad: maxLoad, CriticalLoad: critical,
		MaxLag: k.Duration("max-lag"), Replicas: replicas, NiceRatio: k.Float64("nice-ratio"),
		KeepWriteRate: k.Float64("keep-write-rate"),
		ControlFile:   k.String("control-file"), PostponeCutover: k.Bool("postpone-cutover"),
		KeepOldTable: k.Bool("keep-old-table"), AllowDropColumn: k.Bool("allow-drop-column"), Cleanup: k.Bool("cleanup"),
		RevertWindow: k.Duration("revert-window"), Revert: k.Bool("revert"),
		Log: s.Log, Progress: cmd.ErrOrStderr(),
	}
	if file, ok := cmd.ErrOrStderr().(*os.File); ok && isatty.IsTerminal(file.Fd()) {
		o.Terminal = true
	}
	mon, err := serveRuntimeMetrics(cmd, s)
	if err != nil {
		return err
	}
	o.Board = mon.Board
	// Measurement hooks (bench/alter_parts.sh): one part of the work only,
	// and a CPU profile of the run.
	o.Parts = os.Getenv("SLUICE_ALTER_PARTS")
	if f := os.Getenv("SLUICE_CPUPROFILE"); f != "" {
		pf, err := os.Create(f)
		if err != nil {
			return exitcode.ConfigError(fmt.Errorf("SLUICE_CPUPROFILE: %w", err))
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return fmt.Errorf("SLUICE_CPUPROFILE: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	rep, err := alter.Run(cmd.Context(), o)
	if err != nil {
		return err
	}
	printAlterResult(cmd.OutOrStdout(), o, rep, tables, changes)
	return nil
}

// printAlterResult is the command's summary of a finished run: what was
// done, and for a copy every lock the application waited on.
func printAlterResult(out io.Writer, o alter.Options, rep *alter.Report, tables []string, changes []alter.TableChange) {
	switch {
	case o.Cleanup:
		fmt.Fprintf(out, "cleaned up %s\n", strings.Join(tables, ", "))
	case o.Revert:
		fmt.Fprintf(out, "reverted %s in %s: %d changed keys applied, writes blocked %s at the swap (binlog %s)\n",
			strings.Join(tables, ", "), rep.Took.Round(time.Millisecond), rep.Keys, rep.CutoverLock.Round(time.Millisecond), rep.SwapPosition)
	case o.DryRun:
		fmt.Fprintf(out, "dry run of %s (nothing written):\n", dryRunTitle(changes))
		for _, l := range rep.Plan {
			fmt.Fprintf(out, "  %s\n", l)
		}
	default:
		fmt.Fprintf(out, "altered %s by %s (%s) in %s", strings.Join(tables, ", "), rep.Method, rep.Why, rep.Took.Round(time.Millisecond))
		if rep.Method == alter.MethodCopy {
			fmt.Fprintf(out, ": %d rows copied, %d changed keys applied (%d more read by the copy), writes blocked %s at the swap (binlog %s)", rep.Rows, rep.Keys, rep.KeysReadByCopy, rep.CutoverLock.Round(time.Millisecond), rep.SwapPosition)
			if rep.Resumed {
				fmt.Fprint(out, ", resumed")
			}
		}
		fmt.Fprintln(out)
		// Every lock the application waited on, not only the swap's.
		for _, l := range []string{rep.LockSummary(), rep.PacingSummary()} {
			if l != "" {
				fmt.Fprintf(out, "  %s\n", l)
			}
		}
	}
}

// tableChanges pairs the i-th --table with the i-th --alter.
func tableChanges(tables, alters []string, noAlter bool) ([]alter.TableChange, error) {
	if len(tables) == 0 {
		return nil, exitcode.ConfigError(fmt.Errorf("--table is required"))
	}
	if len(alters) != len(tables) && !(noAlter && len(alters) == 0) {
		return nil, exitcode.ConfigError(fmt.Errorf("%d --table and %d --alter: give each --table its own --alter, in the same order (--table a --alter \"...\" --table b --alter \"...\")", len(tables), len(alters)))
	}
	out := make([]alter.TableChange, len(tables))
	for i, t := range tables {
		out[i].Table = t
		if i < len(alters) {
			out[i].Alter = alters[i]
		}
	}
	return out, nil
}

// dryRunTitle names the statements a dry run plans.
func dryRunTitle(changes []alter.TableChange) string {
	var s []string
	for _, c := range changes {
		s = append(s, "ALTER TABLE "+c.Table+" "+c.Alter)
	}
	return strings.Join(s, "; ")
}
