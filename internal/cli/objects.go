package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/objects"
	"github.com/sluice-db/sluice/internal/snapshot"
	engines "github.com/sluice-db/sluice/internal/target"
)

const objectsFlag = "objects-sql"

// objectsFlagUsage is --objects-sql's help in snapshot; migrate, which has
// no dry run, shows objectsMigrateUsage.
const (
	objectsUsage = "write the views, triggers, routines, events and uncomputed generated columns in scope to FILE: " +
		"MySQL definitions and best-effort PostgreSQL translations, each marked 'translated, review' or 'NEEDS A HUMAN'; " +
		"runs under psql -v ON_ERROR_STOP=1"
	objectsFlagUsage    = objectsUsage + " (with --dry-run: nothing else is written), e.g. --objects-sql objects.sql"
	objectsMigrateUsage = objectsUsage + ", e.g. --objects-sql objects.sql"
)

// checkObjectsFile fails before any copying when --objects-sql names a
// directory that does not exist.
func checkObjectsFile(s *Settings) error {
	path := s.K.String(objectsFlag)
	if path == "" {
		return nil
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || !fi.IsDir() {
		return exitcode.ConfigError(fmt.Errorf("--%s %s: directory %s does not exist", objectsFlag, path, filepath.Dir(path)))
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return exitcode.ConfigError(fmt.Errorf("--%s %s: is a directory", objectsFlag, path))
	}
	return nil
}

// writeObjectsSQL writes --objects-sql after the snapshot (nil when the
// flag is not set). A dry run's target has no tables yet, so its
// translations are not tried there.
func writeObjectsSQL(ctx context.Context, s *Settings, opts snapshot.Options) (*objects.Summary, error) {
	path := s.K.String(objectsFlag)
	if path == "" {
		return nil, nil
	}
	o := objects.Options{Source: opts.Source, Include: opts.Include, Exclude: opts.Exclude,
		SchemaMap: opts.SchemaMap, Naming: opts.NamingOptions(), File: path, Log: s.Log}
	if !opts.DryRun {
		// The translations are PostgreSQL's; a MySQL target has its own rules.
		pg, ok := engines.PostgresOf(opts.Target)
		if !ok {
			return nil, exitcode.ConfigError(fmt.Errorf("--%s: the translations are for a postgres:// target", objectsFlag))
		}
		o.Target = &pg
	}
	res, err := objects.Run(ctx, o)
	if err != nil {
		return nil, fmt.Errorf("--%s: %w", objectsFlag, err)
	}
	sum := res.Summary(path)
	return &sum, nil
}

// printObjectsSummary prints the text report's objects section.
func printObjectsSummary(w io.Writer, sum *objects.Summary) error {
	if sum == nil {
		return nil
	}
	checked := "checked on the target"
	if !sum.Checked {
		checked = "not checked on the target: dry run"
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "objects for review in %s: %d translated, %d need a human (%s)\n", sum.File, sum.Translated, sum.NeedHuman, checked)
	for _, h := range sum.Human {
		fmt.Fprintf(&b, "  needs a human: %s\n", h)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// printSnapshotWithObjects prints the snapshot report and, with
// --objects-sql, its objects: a section of the text, or an "objects" member
// added to the report's JSON object.
func printSnapshotWithObjects(w io.Writer, rep *snapshot.Report, sum *objects.Summary, asJSON bool) error {
	if sum == nil || !asJSON {
		if err := printSnapshotReport(w, rep, asJSON); err != nil {
			return err
		}
		return printObjectsSummary(w, sum)
	}
	var buf bytes.Buffer
	if err := rep.WriteJSON(&buf); err != nil {
		return fmt.Errorf("print report: %w", err)
	}
	// Splice the member in before the closing brace, so the report's own
	// members keep their order.
	doc := bytes.TrimRight(buf.Bytes(), "\n")
	if !bytes.HasSuffix(doc, []byte("}")) {
		return fmt.Errorf("print report: unexpected JSON %q", tail(doc))
	}
	raw, err := json.MarshalIndent(sum, "  ", "  ")
	if err != nil {
		return fmt.Errorf("print report: %w", err)
	}
	doc = bytes.TrimRight(doc[:len(doc)-1], "\n")
	out := append(append(append(doc, []byte(",\n  \"objects\": ")...), raw...), []byte("\n}\n")...)
	if _, err := w.Write(out); err != nil {
		return fmt.Errorf("print report: %w", err)
	}
	return nil
}

// tail is the end of a byte slice for an error message.
func tail(b []byte) string {
	if len(b) > 40 {
		b = b[len(b)-40:]
	}
	return string(b)
}

// errObjectsAfterReport joins the objects error after the report was printed.
func errObjectsAfterReport(printErr, objErr error) error { return errors.Join(printErr, objErr) }
