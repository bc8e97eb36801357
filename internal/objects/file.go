package objects

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Write prints the file: a header with the counts and how to run it, then
// one block per object. Translated statements run inside one transaction;
// everything of an object that needs a human is commented out, so the file
// runs under psql -v ON_ERROR_STOP=1 as it is.
func (r *Result) Write(w io.Writer) error {
	s := r.Summary("")
	var b strings.Builder
	fmt.Fprintf(&b, "-- sluice: views, triggers, routines, events and generated columns for review\n")
	fmt.Fprintf(&b, "-- %d translated (review them), %d need a human (commented out below).\n", s.Translated, s.NeedHuman)
	if r.Checked {
		b.WriteString("-- The translated statements were run on the target in a transaction that was rolled back.\n")
	} else {
		b.WriteString("-- The translated statements were not run on the target (dry run): PostgreSQL may still refuse one.\n")
	}
	b.WriteString("-- Run it with: psql -v ON_ERROR_STOP=1 -f this_file.sql\n")
	b.WriteString("-- Triggers are created DISABLED: enable them at cut-over (ENABLE TRIGGER, never ALWAYS or REPLICA:\n")
	b.WriteString("-- sluice's sessions run with session_replication_role = replica, which only those fire in).\n")
	b.WriteString("-- While sluice replicates, PostgreSQL refuses a replicated ALTER … TYPE or DROP COLUMN of a\n")
	b.WriteString("-- column a view reads (replication stops) and a replicated DROP TABLE drops its views (CASCADE):\n")
	b.WriteString("-- create the views at cut-over, or re-run this file after such DDL.\n")
	for _, h := range s.Human {
		fmt.Fprintf(&b, "--   needs a human: %s\n", oneLine(h))
	}
	b.WriteString("\nBEGIN;\n")
	for _, sc := range r.schemas {
		fmt.Fprintf(&b, "CREATE SCHEMA IF NOT EXISTS %s;\n", sc)
	}
	for _, o := range r.Objects {
		b.WriteString("\n" + blockHeader(o) + "\n")
		for _, n := range o.Notes {
			fmt.Fprintf(&b, "-- note: %s\n", oneLine(n))
		}
		b.WriteString("-- MySQL:\n")
		b.WriteString(commented(o.MySQL, "--   "))
		if len(o.PG) == 0 {
			continue
		}
		if o.Translated() {
			for _, st := range o.PG {
				b.WriteString(st + ";\n")
			}
			continue
		}
		b.WriteString("-- PostgreSQL (to complete, then uncomment):\n")
		for _, st := range o.PG {
			b.WriteString(commented(st+";", "-- "))
		}
	}
	b.WriteString("\nCOMMIT;\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// commented prefixes every line of s.
func commented(s, prefix string) string {
	if strings.TrimSpace(s) == "" {
		return prefix + "(definition not available)\n"
	}
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(strings.ReplaceAll(s, "\r\n", "\n"), "\n"), "\n") {
		b.WriteString(strings.TrimRight(prefix+l, " ") + "\n")
	}
	return b.String()
}

// WriteFile writes the file through a temporary file renamed into place,
// so a reader never sees half of it.
func (r *Result) WriteFile(path string) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".sluice-objects-*.sql")
	if err != nil {
		return fmt.Errorf("--objects-sql %s: %w", path, err)
	}
	defer os.Remove(f.Name())
	if err := r.Write(f); err != nil {
		f.Close()
		return fmt.Errorf("--objects-sql %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("--objects-sql %s: %w", path, err)
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return fmt.Errorf("--objects-sql %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("--objects-sql %s: %w", path, err)
	}
	return nil
}
