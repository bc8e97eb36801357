package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/replicate"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlog"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/source/postgres/logical"
	"github.com/sluice-db/sluice/internal/source/postgres/lsnpos"
	engines "github.com/sluice-db/sluice/internal/target"
	"github.com/sluice-db/sluice/internal/typemap"
)

func newStatusCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show a stream's checkpoint in the target: position, schema version, age, and lag behind the source",
		Long: `status reads the target's "sluice" schema (on a MySQL target: database) and prints the stream's applied binlog
position, its schema-history version, when it was last written and the source
commit time it covers. With --source it also reads the source's current binlog
position and reports the lag: 0 when the checkpoint is at the source's position,
else the time since the source committed the last applied transaction.

On PostgreSQL, status also reads the stream's replication slots (the way back's,
sluice_<stream>_reverse on the target; a reverse stream's own on its --source):
an inactive slot that retains more WAL than --warn-slot-wal keeps PostgreSQL
from recycling it (its disk fills) and is warned about, naming 'sluice drop'.

--serve ADDR serves the status page (the same page long-running commands serve
on --metrics-addr) of every stream recorded in the target until stopped.

Exit codes: 0 printed (or --serve stopped by a signal), 1 the stream has no
checkpoint, 2 configuration error.`,
		Example: `  sluice status --target postgres://sluice@pg1:5432/shop --target-password-file /etc/sluice/pg1.pw
  SLUICE_TARGET_PASSWORD=… sluice status --target mysql://sluice@db2:3306/replica --stream shop
  sluice status --config sluice.yaml --json   # with --source: the lag too
  sluice status --target postgres://sluice@pg1:5432/shop --source mysql://sluice@db1:3306/shop --serve 127.0.0.1:9188`,
		Args: cobra.NoArgs,
		RunE: runStatus,
	}
	addSourceOrReverseFlag(cmd)
	addTargetFlag(cmd)
	addStreamFlag(cmd)
	addJSONFlag(cmd)
	cmd.Flags().String("warn-slot-wal", "1GiB", "warn when an inactive replication slot of the stream retains more WAL than this, e.g. --warn-slot-wal 10GiB")
	cmd.Flags().String("serve", "", "serve the status page (/ and /api/status) of every stream recorded in the target on this address "+
		"until stopped, read again every 5 s (without --stream; with it, that stream), e.g. --serve 127.0.0.1:9188")
	addStatusTokenFlag(cmd)
	return cmd
}

// streamStatus is what status prints.
type streamStatus struct {
	Stream         string              `json:"stream"`
	Position       binlogpos.Position  `json:"position"`
	SchemaVersion  int64               `json:"schema_version"`
	UpdatedAt      time.Time           `json:"updated_at"`
	AgeSeconds     float64             `json:"age_seconds"`
	SourceTime     *time.Time          `json:"source_time,omitempty"`
	SourcePosition *binlogpos.Position `json:"source_position,omitempty"`
	// LagSeconds is set with --source: 0 when caught up.
	LagSeconds *float64 `json:"lag_seconds,omitempty"`
	CaughtUp   *bool    `json:"caught_up,omitempty"`
	// Replicator names the sluice replicating the stream now ("" when none
	// is connected).
	Replicator string `json:"replicator"`
	// Values a policy (--zero-date, --nul-char) changed: in the snapshot,
	// and while replicating (cumulative, at least).
	SnapshotPolicyChanges  []typemap.ChangeCount `json:"snapshot_policy_changes"`
	ReplicatePolicyChanges []typemap.ChangeCount `json:"replicate_policy_changes"`
	// Naming is the stream's recorded mapping of names (PostgreSQL targets).
	Naming *schema.NamingOptions `json:"naming,omitempty"`
	// ColumnOrder lists the tables whose target column order differs from
	// the source's ("db.t: source (a, b) target (b, a)"; PostgreSQL cannot
	// reorder columns after FIRST/AFTER on the source).
	ColumnOrder []string `json:"column_order,omitempty"`
	// Reverse is set for a reverse stream (PostgreSQL → MySQL) instead of
	// the binlog positions.
	Reverse *reverseStatus `json:"reverse,omitempty"`
	// Slots are the stream's replication slots on PostgreSQL (the way
	// back's on the target, a reverse stream's own on its source).
	Slots []logical.Slot `json:"slots,omitempty"`
	// Warnings are what needs the operator (an inactive slot retaining WAL).
	Warnings []string `json:"warnings,omitempty"`
}

func runStatus(cmd *cobra.Command, _ []string) error {
	s, err := loadSettings(cmd)
	if err != nil {
		return err
	}
	k := s.K
	// The engine applies the --target-ssl-* flags itself; no I/O.
	engine, err := engines.Open(k.String("target"), engines.Options{TLS: tlsFlags(s, "target"), Tables: true})
	if err != nil {
		return exitcode.ConfigError(err)
	}
	var source *config.MySQL
	var pgSource *config.Postgres
	if isPostgresSource(s) {
		src, err := config.ParseTarget(k.String("source"))
		if err == nil {
			err = src.ApplyTLSFlags(tlsFlags(s, "source"))
		}
		if err != nil {
			return exitcode.ConfigError(err)
		}
		pgSource = &src
	} else if k.String("source") != "" {
		src, err := mysqlSourceFlag(s)
		if err != nil {
			return err
		}
		source = &src
	}
	warnAt, err := replicate.ParseSize(k.String("warn-slot-wal"))
	if err != nil {
		return exitcode.ConfigError(fmt.Errorf("--warn-slot-wal: %w", err))
	}
	if addr := k.String("serve"); addr != "" {
		return serveStatus(cmd, s, engine, statusSource{mysql: source, pg: pgSource}, addr)
	}
	if k.String("status-token-file") != "" {
		return exitcode.ConfigError(fmt.Errorf("--status-token-file guards the page of --serve: give one, e.g. --serve 127.0.0.1:9188"))
	}
	st, err := readStatus(cmd.Context(), engine, source, pgSource, k.String("stream"))
	if err != nil {
		return err
	}
	if err := checkSlots(cmd.Context(), st, engine, pgSource, warnAt); err != nil {
		return err
	}
	for _, w := range st.Warnings {
		s.Log.Warn("status: " + w)
	}
	if k.Bool("json") {
		enc := json.NewEncoder(cmd.OutOrStdout())
		enc.SetIndent("", "  ")
		return enc.Encode(st)
	}
	printStatus(cmd.OutOrStdout(), st)
	return nil
}

func readStatus(ctx context.Context, engine engines.Engine, source *config.MySQL, pgSource *config.Postgres, stream string) (*streamStatus, error) {
	ts, where, err := readTargetState(ctx, engine, stream)
	if err != nil {
		return nil, err
	}
	cp := ts.Checkpoint
	if cp == nil {
		return nil, fmt.Errorf("stream %q has no checkpoint in %s: run `sluice snapshot` or `sluice migrate` first", stream, where)
	}
	if lsn, ok := cp.Position.(lsnpos.Position); ok {
		st := &streamStatus{Stream: stream, SchemaVersion: cp.SchemaVersion, UpdatedAt: cp.UpdatedAt,
			AgeSeconds: time.Since(cp.UpdatedAt).Round(time.Millisecond).Seconds(), Replicator: ts.Replicator,
			Reverse: &reverseStatus{AppliedLSN: lsn.LSN.String()}}
		if !cp.SourceTime.IsZero() {
			t := cp.SourceTime
			st.SourceTime = &t
		}
		if pgSource != nil {
			if err := readReverseSource(ctx, *pgSource, stream, lsn, st.Reverse); err != nil {
				return nil, err
			}
		}
		return st, nil
	}
	if pgSource != nil {
		return nil, exitcode.ConfigError(fmt.Errorf("stream %q is not a reverse stream: its --source is a mysql:// URL", stream))
	}
	applied, err := binlogpos.From(cp.Position)
	if err != nil {
		return nil, err
	}

	st := &streamStatus{Stream: stream, Position: applied, SchemaVersion: cp.SchemaVersion,
		UpdatedAt: cp.UpdatedAt, AgeSeconds: time.Since(cp.UpdatedAt).Round(time.Millisecond).Seconds(),
		Replicator: ts.Replicator, SnapshotPolicyChanges: ts.SnapshotPolicy, ReplicatePolicyChanges: ts.ReplicatePolicy,
		Naming: ts.Naming, ColumnOrder: ts.ColumnOrder}
	if !cp.SourceTime.IsZero() {
		t := cp.SourceTime
		st.SourceTime = &t
	}
	if source == nil {
		return st, nil
	}
	src, err := binlog.OpenSource(*source)
	if err != nil {
		return nil, exitcode.ConfigError(err)
	}
	defer src.Close()
	info, err := src.Info(ctx)
	if err != nil {
		return nil, exitcode.ConfigError(fmt.Errorf("source %s: %w", source.Redacted(), err))
	}
	pos, err := src.MasterStatus(ctx, info)
	if err != nil {
		return nil, err
	}
	st.SourcePosition = &pos
	caught := applied.File != "" && applied.Compare(pos) >= 0
	st.CaughtUp = &caught
	switch {
	case caught:
		lag := 0.0
		st.LagSeconds = &lag
	case !cp.SourceTime.IsZero():
		lag := time.Since(cp.SourceTime).Round(time.Millisecond).Seconds()
		st.LagSeconds = &lag
	}
	return st, nil
}

// readTargetState reads the stream's state through the target engine's
// StatusReader; where is the target for messages.
func readTargetState(ctx context.Context, e engines.Engine, stream string) (*engines.StreamState, string, error) {
	r, ok := e.(engines.StatusReader)
	if !ok {
		return nil, "", exitcode.ConfigError(fmt.Errorf("target: sluice status does not read a %s target", e.Name()))
	}
	ts, err := r.ReadStatus(ctx, stream)
	return ts, e.Redacted(), err
}

func printStatus(w io.Writer, st *streamStatus) {
	fmt.Fprintf(w, "stream:          %s\n", st.Stream)
	if st.Reverse != nil {
		printReverse(w, st.Reverse)
	} else {
		fmt.Fprintf(w, "position:        %s\n", st.Position)
	}
	fmt.Fprintf(w, "schema version:  %d\n", st.SchemaVersion)
	if n := st.Naming; n != nil && (n.Identifiers != schema.IdentPreserve || len(n.SchemaMap)+len(n.Renames)+len(n.ExcludeColumns) > 0) {
		fmt.Fprintf(w, "names:           --identifiers %s, --schema-map %v, --rename %v, --exclude-columns %v\n",
			n.Identifiers, n.SchemaMap, n.Renames, n.ExcludeColumns)
	}
	if n := st.Naming; n != nil {
		for _, p := range n.RowPolicy { // --where, --mask and the key's fingerprint
			fmt.Fprintf(w, "policy:          %s\n", p)
		}
	}
	fmt.Fprintf(w, "updated:         %s (%.0fs ago)\n", st.UpdatedAt.UTC().Format(time.RFC3339), st.AgeSeconds)
	if st.Replicator != "" {
		fmt.Fprintf(w, "replicator:      connected (%s)\n", st.Replicator)
	} else {
		fmt.Fprintf(w, "replicator:      not connected\n")
	}
	for _, sl := range st.Slots {
		fmt.Fprintf(w, "slot:            %s\n", slotLine(sl))
	}
	for _, warn := range st.Warnings {
		fmt.Fprintf(w, "WARNING:         %s\n", warn)
	}
	printPolicyChanges(w, "snapshot", st.SnapshotPolicyChanges)
	printPolicyChanges(w, "replication", st.ReplicatePolicyChanges)
	if len(st.ColumnOrder) > 0 {
		fmt.Fprintf(w, "column order differs (not a data difference):\n")
		for _, c := range st.ColumnOrder {
			fmt.Fprintf(w, "  %s\n", c)
		}
	}
	if st.SourceTime != nil {
		fmt.Fprintf(w, "source time:     %s\n", st.SourceTime.UTC().Format(time.RFC3339))
	}
	if st.SourcePosition != nil {
		fmt.Fprintf(w, "source position: %s\n", *st.SourcePosition)
		switch {
		case *st.CaughtUp:
			fmt.Fprintf(w, "lag:             0s (caught up)\n")
		case st.LagSeconds != nil:
			fmt.Fprintf(w, "lag:             %.1fs\n", *st.LagSeconds)
		default:
			fmt.Fprintf(w, "lag:             unknown (no source time recorded yet)\n")
		}
	}
}

// printPolicyChanges lists the values a policy changed in one phase.
func printPolicyChanges(w io.Writer, phase string, cs []typemap.ChangeCount) {
	if len(cs) == 0 {
		return
	}
	fmt.Fprintf(w, "changed by policy during %s:\n", phase)
	for _, c := range cs {
		fmt.Fprintf(w, "  %s.%s: %d (%s)\n", c.Table, c.Column, c.Count, c.Policy)
	}
}
