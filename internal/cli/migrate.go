package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/sluice-db/sluice/internal/board"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/objects"
	"github.com/sluice-db/sluice/internal/replicate"
	"github.com/sluice-db/sluice/internal/snapshot"
)

func newMigrateCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Snapshot, then replicate from the snapshot's position: one command from MySQL/MariaDB to a live PostgreSQL copy",
		Long: `migrate runs 'sluice snapshot' and then 'sluice replicate' from the binlog position
the snapshot recorded. Writes that happen on the source during the snapshot reach
the target exactly once: the snapshot reads one consistent instant, replication
starts right after it and applies each change once.

Phase 1 shows the snapshot's progress and prints its report; phase 2 logs the
replication status every 5 seconds. Running migrate again after an interruption
resumes the snapshot if it did not finish, else continues replicating.
--until-caught-up ends phase 2 once the target has everything the source had
written when the stream went idle (for scripts and cut-overs).

Exit codes: 0 caught up (--until-caught-up), or replication stopped by SIGINT/
SIGTERM after the snapshot completed; 1 failure; 2 configuration or pre-flight
error; 130 (SIGINT) or 143 (SIGTERM) stopped during the snapshot, or before it
caught up with --until-caught-up: run the same command again to resume.`,
		Example: `  sluice migrate --source mysql://sluice@db1:3306/shop --source-password-file /etc/sluice/db1.pw --target postgres://sluice@pg1:5432/shop --target-password-file /etc/sluice/pg1.pw
  sluice migrate --include 'shop.*' --workers 8 --until-caught-up
  sluice migrate --restart --drop-existing --metrics-addr 127.0.0.1:9187`,
		Args: cobra.NoArgs,
		RunE: runMigrate,
	}
	addSourceFlag(cmd)
	addTargetFlag(cmd)
	addScopeFlags(cmd)
	addTypeFlags(cmd)
	addWorkersFlag(cmd, "snapshot readers and COPY streams, then apply sessions")
	addStreamFlag(cmd)
	addJSONFlag(cmd)
	addMetricsFlag(cmd)
	addSnapshotFlags(cmd)
	addReplicateFlags(cmd)
	addTargetEngineFlag(cmd)
	// Flags of the shared groups that migrate refuses (runMigrate names the
	// command that has them): accepted, so the refusal explains itself, but
	// not listed in its help.
	for _, name := range migrateRefuses {
		_ = cmd.Flags().MarkHidden(name)
	}
	cmd.Flags().Lookup(objectsFlag).Usage = objectsMigrateUsage
	return cmd
}

// migrateRefuses are the snapshot and replicate flags migrate does not take
// (--on-error is the way back's).
var migrateRefuses = []string{"dry-run", "schema-only", "start-gtid", "start-position", "on-error"}

func runMigrate(cmd *cobra.Command, _ []string) error {
	s, err := loadSettings(cmd)
	if err != nil {
		return err
	}
	k := s.K
	if k.Bool("dry-run") {
		return exitcode.ConfigError(errors.New("migrate has no dry run: 'sluice snapshot --dry-run' shows what the snapshot would create"))
	}
	if k.Bool("schema-only") {
		return exitcode.ConfigError(errors.New("migrate copies data: --schema-only is for 'sluice snapshot'"))
	}
	if k.String("start-gtid") != "" || k.String("start-position") != "" {
		return exitcode.ConfigError(errors.New("migrate starts replication where its snapshot ends: --start-gtid/--start-position are for 'sluice replicate'"))
	}
	// Check the binlog settings before copying anything: a source that
	// cannot be replicated should fail now, not after hours of copying.
	ropts, err := replicateOptions(cmd, s)
	if err != nil {
		return err
	}
	sopts, err := snapshotOptions(cmd, s)
	if err != nil {
		return err
	}
	if err := checkObjectsFile(s); err != nil {
		return err
	}
	asJSON := k.Bool("json")
	// The status page serves both phases: the snapshot's progress, then the stream.
	if err := serveMetrics(cmd, s, &ropts); err != nil {
		return err
	}
	sopts.Board = ropts.Board
	ropts.BoardCard().SetPhase(board.PhaseSnapshot)
	s.Log.Info("migrate phase 1/2: snapshot", "stream", sopts.Stream)
	rep, err := snapshot.Run(cmd.Context(), sopts)
	if err != nil {
		return fmt.Errorf("migrate phase 1/2 (snapshot): %w", err)
	}
	objs, err := writeObjectsSQL(cmd.Context(), s, sopts)
	if err != nil {
		return err
	}
	if !asJSON {
		if err := printSnapshotWithObjects(cmd.OutOrStdout(), rep, objs, false); err != nil {
			return err
		}
	}
	out := migrateReport{Stream: ropts.Stream, Snapshot: rep, Objects: objs, Replicate: replicatePhase{Result: "not started"}}
	if cmd.Context().Err() == nil { // not stopped by a signal after the snapshot
		s.Log.Info("migrate phase 2/2: replicate from the snapshot's position", "stream", ropts.Stream)
		start := time.Now()
		err = replicate.Run(cmd.Context(), ropts)
		out.Replicate = replicatePhase{Seconds: time.Since(start).Seconds(), Result: "stopped"}
		switch {
		case err != nil:
			out.Replicate.Result, out.Replicate.Error = "failed", err.Error()
			err = fmt.Errorf("migrate phase 2/2 (replicate): %w", err)
		case ropts.UntilCaughtUp && cmd.Context().Err() == nil:
			out.Replicate.Result = "caught up"
		}
	}
	if err == nil {
		err = stoppedEarly(cmd.Context(), ropts.UntilCaughtUp, nil)
	}
	if asJSON {
		enc := json.NewEncoder(cmd.OutOrStdout())
		enc.SetIndent("", "  ")
		if jerr := enc.Encode(out); jerr != nil && err == nil {
			err = fmt.Errorf("print report: %w", jerr)
		}
	}
	return err
}

// migrateReport is migrate --json: both phases in one document.
type migrateReport struct {
	Stream    string           `json:"stream"`
	Snapshot  *snapshot.Report `json:"snapshot"`
	Objects   *objects.Summary `json:"objects,omitempty"` // --objects-sql
	Replicate replicatePhase   `json:"replicate"`
}

// replicatePhase is how the replication phase ended: "caught up"
// (--until-caught-up), "stopped" (a signal), "failed" (with the error) or
// "not started" (stopped during the snapshot).
type replicatePhase struct {
	Result  string  `json:"result"`
	Error   string  `json:"error,omitempty"`
	Seconds float64 `json:"seconds"`
}
