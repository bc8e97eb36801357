package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/preflight"
	"github.com/sluice-db/sluice/internal/typemap"
	"github.com/sluice-db/sluice/internal/verify"
)

func newVerifyCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Prove the target equals the source: chunked checksums, row diff, repair",
		Long: `verify compares every selected table of the source with its copy in the target.
Both databases compute checksums of key ranges (chunks) themselves, so only
hashes cross the network; a differing chunk is narrowed down to its rows, which
are listed: rows only in the source, rows only in the target, and rows whose
columns differ (with both values). Tables without a key are compared as
multisets of rows. Values are compared after the same conversions the snapshot
applies (--zero-date, --nul-char must match the snapshot's).

With a MySQL/MariaDB --target (mysql://…/db), source table app.t is compared
with db.t byte for byte (no conversion policies apply), e.g. a primary and its
replica; --repair writes the source's stored bytes. --online is off unless given.

While 'sluice replicate' runs (--online, on by default while a replicator of
the stream is connected to the target), a differing row is read again after
the replicator has applied everything the source read saw, up to --recheck
times, and only rows that still differ are reported. A row (for a table
without a key: the table) that the source changed between the last two
readings is "in flight", not a difference.

Exit codes: 0 equal (or every difference repaired), 1 differences found,
2 error, 3 no difference but rows still in flight (run again when the writes
calm down), 130 (SIGINT) or 143 (SIGTERM) interrupted (nothing concluded).
See docs/verify.md.`,
		Example: `  sluice verify --source mysql://sluice@db1:3306/shop --source-password-file /etc/sluice/db1.pw --target postgres://sluice@pg1:5432/shop --target-password-file /etc/sluice/pg1.pw
  SLUICE_SOURCE_PASSWORD=… SLUICE_TARGET_PASSWORD=… sluice verify --source mysql://sluice@db1:3306/app --target mysql://sluice@db2:3306/replica
  sluice verify --include 'shop.orders' --json > report.json
  sluice verify --repair-sql fix.sql        # write the statements, change nothing
  sluice verify --repair --max-rate 50      # fix the target, read at most 50 MB/s`,
		Args: cobra.NoArgs,
		RunE: runVerify,
	}
	addSourceFlag(cmd)
	addTargetFlag(cmd)
	addScopeFlags(cmd)
	addTypeFlags(cmd)
	addWorkersFlag(cmd, "chunk comparisons (each holds one connection per side)")
	addStreamFlag(cmd)
	addJSONFlag(cmd)
	addMetricsFlag(cmd)
	f := cmd.Flags()
	f.Int("chunk-rows", 0, "rows per chunk; 0 adapts the size so a chunk takes about half a second, e.g. --chunk-rows 50000")
	f.Int("fetch-rows", 1000, "a differing chunk of at most this many rows is compared row by row, larger ones are split first, e.g. --fetch-rows 5000")
	f.Float64("max-rate", 0, "read at most this many MB of source data per second over all workers (0 = no limit), e.g. --max-rate 50")
	f.Int("max-diffs", 100, "differing rows listed per table in the report (all are counted and repaired), e.g. --max-diffs 1000")
	f.Bool("repair", false, "make the target equal to the source for every differing row (delete, insert or update by key, in transactions), e.g. --repair")
	f.String("repair-sql", "", "write the repair statements to this file instead of running them, e.g. --repair-sql fix.sql")
	f.String("online", verify.OnlineAuto, "re-check differing rows after the replicator's checkpoint passed them: auto (while a replicator of --stream is connected to the target), on, off; --online alone means on, --online=off to disable")
	f.Lookup("online").NoOptDefVal = verify.OnlineOn
	f.Int("recheck", 3, "online mode: how many times a differing row is read again before it is reported, e.g. --recheck 5")
	f.Duration("recheck-wait", 0, "online mode: longest wait for the replicator to reach the source position per re-check (default 30s), e.g. --recheck-wait 1m")
	return cmd
}

func runVerify(cmd *cobra.Command, _ []string) error {
	s, err := loadSettings(cmd)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	k := s.K
	if k.Bool("repair") && k.String("repair-sql") != "" {
		return exitcode.ConfigError(errors.New("--repair and --repair-sql exclude each other: run the statements, or write them"))
	}
	mon, err := serveRuntimeMetrics(cmd, s)
	if err != nil {
		return err
	}
	// Without repairs verify only reads the target: a read-only user of a
	// MySQL replica is enough.
	ep, err := checkEndpoints(ctx, s, preflight.Needs{Source: true, Target: true,
		TargetReadOnly: !k.Bool("repair")})
	if err != nil {
		return err
	}
	opts, err := verifyOptions(ctx, s, ep)
	if err != nil {
		return exitcode.WithCode(exitcode.Config, err)
	}
	if path := k.String("repair-sql"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			return exitcode.ConfigError(fmt.Errorf("--repair-sql: %w", err))
		}
		defer f.Close()
		opts.RepairSQL = f
	}
	errOut := cmd.ErrOrStderr()
	if file, ok := errOut.(*os.File); ok && isatty.IsTerminal(file.Fd()) && !k.Bool("json") {
		opts.Progress = &verify.BarProgress{Out: errOut}
	} else {
		opts.Progress = &verify.LogProgress{Log: s.Log}
	}
	card := mon.Board.Verify(k.String("stream"))
	opts.Progress = verify.BoardProgress{Inner: opts.Progress, Card: card}
	rep, err := verify.Run(ctx, *opts)
	opts.Progress.Stop()
	if rep != nil {
		card.Finish(rep.Result)
	} else {
		card.Finish(verify.ResultError)
	}
	if err != nil && rep == nil {
		return exitcode.WithCode(exitcode.Config, err)
	}
	if perr := printVerifyReport(cmd.OutOrStdout(), rep, k.Bool("json")); perr != nil {
		return perr
	}
	switch {
	case err != nil:
		return exitcode.WithCode(exitcode.Config, err)
	case rep.Result == verify.ResultError:
		return exitcode.WithCode(exitcode.Config, errSilent)
	case rep.Result == verify.ResultDifferences:
		return exitcode.WithCode(exitcode.Failure, errSilent)
	case rep.Result == verify.ResultInFlight:
		return exitcode.WithCode(exitcode.InFlight, errSilent)
	}
	return nil
}

func printVerifyReport(w io.Writer, rep *verify.Report, asJSON bool) error {
	if !asJSON {
		rep.WriteSummary(w)
		return nil
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// verifyOptions binds verify's flags; verify.LoadScope loads the tables in
// scope and the snapshot's conversion policies.
func verifyOptions(ctx context.Context, s *Settings, ep *Endpoints) (*verify.Options, error) {
	k := s.K
	o := &verify.Options{
		Source: ep.Source, Engine: ep.Engine,
		Workers:   k.Int("workers"),
		ChunkRows: k.Int("chunk-rows"), FetchRows: k.Int("fetch-rows"),
		MaxRateMB: k.Float64("max-rate"), MaxDiffs: k.Int("max-diffs"),
		Repair: k.Bool("repair"),
		Online: k.String("online"), Stream: k.String("stream"),
		Recheck: k.Int("recheck"), RecheckWait: k.Duration("recheck-wait"),
		Log: s.Log,
	}
	if err := verify.LoadScope(ctx, o, verify.Scope{
		Include: k.Strings("include"), Exclude: k.Strings("exclude"), Naming: namingOptions(k),
		ZeroDate: typemap.ZeroDatePolicy(k.String("zero-date")), Nul: typemap.NulPolicy(k.String("nul-char")),
	}); err != nil {
		return nil, err
	}
	return o, nil
}
