package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sluice-db/sluice/internal/cutover"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/preflight"
	"github.com/sluice-db/sluice/internal/replicate"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/typemap"
)

func newCutoverCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cutover",
		Short: "Switch from the MySQL/MariaDB source to PostgreSQL safely, with the way back armed and the boundary recorded",
		Long: `cutover makes the switch of a migrated database from MySQL/MariaDB to PostgreSQL,
in steps that each explain themselves when they fail:

  1. arm       the way back: a publication and a pgoutput logical slot for the
               migrated tables (REPLICA IDENTITY FULL on tables without a key),
               named after the reverse stream (--reverse-stream)
  2. quiet     no write reaches the migrated tables on the source: the binlog is
               watched for --quiet-for and until the end; or, with --lock, they
               are blocked (FLUSH TABLES … WITH READ LOCK on one session, held
               only for the switch and released on failure or SIGINT)
  3. catch-up  the forward stream (--stream) reaches the source's final position:
               a running replicator is waited for, else the final catch-up runs here
  4. verify    chunk-level comparison (--skip-verify to skip), and no unique key
               value that MySQL's collation would see twice ('a'/'A', 'a'/'a ')
  5. sequences identity sequences moved past the largest ids
  6. record    the boundary, source binlog position = PostgreSQL LSN where the
               reverse stream starts, in sluice.cutover on both sides
  7. next      what to do now, and the fallback command

Exit 0 only when the switch is safe. On failure what the run created (slot,
publication, replica identity, records) is dropped again and the forward stream
is left as it was. See docs/cutover.md.

Exit codes: 0 switched, 1 refused (the report says at which step and why),
2 configuration or pre-flight error (a stream cut over already included),
130 (SIGINT) or 143 (SIGTERM) interrupted (what the run created is dropped
again, as on a refusal).`,
		Example: `  sluice cutover --source mysql://sluice@db1:3306/shop --source-password-file /etc/sluice/db1.pw --target postgres://sluice@pg1:5432/shop --target-password-file /etc/sluice/pg1.pw --stream shop
  sluice cutover --lock --json > cutover.json          # block writes during the switch
  sluice cutover --quiet-for 30s --skip-verify`,
		Args: cobra.NoArgs,
		RunE: runCutover,
	}
	addSourceFlag(cmd)
	addTargetFlag(cmd)
	addScopeFlags(cmd)
	addTypeFlags(cmd)
	addWorkersFlag(cmd, "verify chunk comparisons and final catch-up apply sessions")
	addStreamFlag(cmd)
	addJSONFlag(cmd)
	addMetricsFlag(cmd)
	f := cmd.Flags()
	f.String("reverse-stream", "", "name of the way back (PostgreSQL → MySQL stream; its slot and publication are sluice_<name>); default: <stream>_reverse")
	f.Bool("lock", false, "block writes to the migrated tables on the source during the switch (FLUSH TABLES … WITH READ LOCK on one session) instead of checking they stopped")
	f.Duration("quiet-for", 0, "without --lock: how long no write may reach the migrated tables before the switch (default 5s), e.g. --quiet-for 30s")
	f.Duration("lock-wait", 0, "with --lock: longest wait for running transactions on the tables (default 30s)")
	f.Duration("catch-up-timeout", 0, "longest wait for a running replicator to reach the source's final position (default 5m)")
	f.Bool("skip-verify", false, "skip the chunk-level verification (the unique key collision check still runs)")
	return cmd
}

func runCutover(cmd *cobra.Command, _ []string) error {
	s, err := loadSettings(cmd)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	k := s.K
	ep, err := checkEndpoints(ctx, s, preflight.Needs{Source: true, Binlog: true, SourceState: true, SourceFlushLock: k.Bool("lock"),
		Target: true, TargetCreate: true})
	if err != nil {
		return err
	}
	if err := ep.postgresOnly("cutover"); err != nil {
		return err
	}
	mon, err := serveRuntimeMetrics(cmd, s)
	if err != nil {
		return err
	}
	filter, err := schema.NewFilter(k.Strings("include"), k.Strings("exclude"), ep.Source.Database)
	if err != nil {
		return exitcode.ConfigError(err)
	}
	// The forward stream's whole mapping (--identifiers, --rename,
	// --exclude-columns too): the catch-up, the checks and the arming name
	// the target's tables and columns as the stream did.
	nameOpts := namingOptions(k)
	naming, err := schema.NewNamingOptions(nameOpts)
	if err != nil {
		return exitcode.ConfigError(err)
	}
	stream := k.String("stream")
	o := cutover.Options{
		Source: ep.Source, Target: ep.Engine, Stream: stream, ReverseStream: k.String("reverse-stream"),
		Filter: filter, Naming: naming, Lock: k.Bool("lock"),
		QuietFor: k.Duration("quiet-for"), LockWait: k.Duration("lock-wait"), CatchUpTimeout: k.Duration("catch-up-timeout"),
		Replicate: replicate.Options{
			Source: ep.Source, Target: ep.Engine, Stream: stream,
			Include: k.Strings("include"), Exclude: k.Strings("exclude"), SchemaMap: nameOpts.SchemaMap,
			Identifiers: nameOpts.Identifiers, Renames: nameOpts.Renames, ExcludeColumns: nameOpts.ExcludeColumns,
			ZeroDate: typemap.ZeroDatePolicy(k.String("zero-date")), Nul: typemap.NulPolicy(k.String("nul-char")),
			Workers: k.Int("workers"), Board: mon.Board, Log: s.Log,
		},
		Board: mon.Board, Log: s.Log,
	}
	if !k.Bool("skip-verify") {
		if o.Verify, err = verifyOptions(ctx, s, ep); err != nil {
			return exitcode.WithCode(exitcode.Config, err)
		}
		o.Verify.Progress = nil
	}
	rep, err := cutover.Run(ctx, o)
	if perr := printCutoverReport(cmd.OutOrStdout(), rep, k.Bool("json")); perr != nil {
		return perr
	}
	if err != nil && k.Bool("json") {
		// The report says it; keep the exit code.
		return exitcode.WithCode(exitcode.Of(err), errSilent)
	}
	return err
}

func printCutoverReport(w io.Writer, rep *cutover.Report, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	fmt.Fprintf(w, "cutover of stream %s: %s\n", rep.Stream, rep.Result)
	for _, st := range rep.Steps {
		fmt.Fprintf(w, "  %-10s %-8s %s\n", st.Name, st.Result, st.Detail)
	}
	for _, c := range rep.Collisions {
		fmt.Fprintf(w, "  collision: %s\n", c)
	}
	if len(rep.Undone) > 0 {
		fmt.Fprintf(w, "undone: %s\n", strings.Join(rep.Undone, "; "))
	}
	if rep.Result == cutover.ResultSwitched {
		fmt.Fprintf(w, "boundary: source position %s = PostgreSQL LSN %s at %s\n", rep.Boundary.SourcePosition, rep.Boundary.LSN,
			rep.Boundary.At.Format("2006-01-02 15:04:05Z"))
		fmt.Fprintln(w, "next:")
		for i, n := range rep.Next {
			fmt.Fprintf(w, "  %d. %s\n", i+1, n)
		}
		fmt.Fprintf(w, "fallback: %s\n", rep.Fallback)
	}
	return nil
}
