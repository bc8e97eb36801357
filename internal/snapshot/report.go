package snapshot

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	mysnap "github.com/sluice-db/sluice/internal/source/mysql/consistent"
	"github.com/sluice-db/sluice/internal/typemap"
)

// Report is the outcome of a snapshot run, printed as text or as one JSON
// object (--json).
type Report struct {
	Stream string `json:"stream"`
	// Position is the source binlog position the target now matches; replicate
	// continues from it. Zero with --schema-only or without a source binlog.
	Position binlogpos.Position `json:"position"`
	Mode     string             `json:"mode"` // "full", "schema-only" or "data-only"
	// Method is how the reader sessions were brought to one instant.
	Method     string `json:"method,omitempty"`
	LockHeldMS int64  `json:"lock_held_ms"`
	Sessions   int    `json:"sessions,omitempty"`

	Tables int   `json:"tables"`
	Rows   int64 `json:"rows"`  // rows in the target, over all runs of this snapshot
	Bytes  int64 `json:"bytes"` // source text bytes, over all runs
	// Seconds, CopiedBytes and MBPerSec describe this run only.
	Seconds     float64 `json:"seconds"`
	CopiedRows  int64   `json:"copied_rows"`
	CopiedBytes int64   `json:"copied_bytes"`
	MBPerSec    float64 `json:"mb_per_sec"`

	// Resume bookkeeping: a resumed run re-reads the chunks an earlier run
	// copied at another instant and copies them again if they changed.
	Resumed         bool `json:"resumed"`
	AlreadyComplete bool `json:"already_complete,omitempty"`
	Pass            int  `json:"pass,omitempty"`
	ChunksCopied    int  `json:"chunks_copied"`
	ChunksKept      int  `json:"chunks_kept"`
	ChunksRecopied  int  `json:"chunks_recopied"`

	Warnings    []string              `json:"warnings"`
	Changes     []typemap.ChangeCount `json:"values_changed"`
	NotMigrated []string              `json:"not_migrated"`
	// Created are the views and routines copied into a MySQL target.
	Created  []string      `json:"created,omitempty"`
	PerTable []TableReport `json:"per_table"`
	// Plan is what --dry-run would do: nothing else is set then.
	Plan []PlannedTable `json:"plan,omitempty"`
}

// PlannedTable is one table of a --dry-run: the source's size estimate and
// the complete DDL the snapshot would run, in order.
type PlannedTable struct {
	Source   string   `json:"source"`
	Target   string   `json:"target"`
	Rows     int64    `json:"estimated_rows"`
	Bytes    int64    `json:"estimated_bytes"`
	DDL      []string `json:"ddl"`
	Warnings []string `json:"warnings,omitempty"`
	// Where and Masks are the table's --where condition and --mask columns.
	Where string   `json:"where,omitempty"`
	Masks []string `json:"masks,omitempty"`
}

// ChangedValues is the total of values a policy changed.
func (r *Report) ChangedValues() int64 {
	var n int64
	for _, c := range r.Changes {
		n += c.Count
	}
	return n
}

// WriteJSON prints the report as one JSON object.
func (r *Report) WriteJSON(w io.Writer) error {
	cp := *r
	if cp.Warnings == nil {
		cp.Warnings = []string{}
	}
	if cp.Changes == nil {
		cp.Changes = []typemap.ChangeCount{}
	}
	if cp.NotMigrated == nil {
		cp.NotMigrated = []string{}
	}
	if cp.PerTable == nil {
		cp.PerTable = []TableReport{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(cp)
}

// WriteText prints the report for people.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	switch {
	case r.Mode == "dry-run":
		writePlan(&b, r)
		_, err := io.WriteString(w, b.String())
		return err
	case r.AlreadyComplete:
		fmt.Fprintf(&b, "snapshot of stream %q was already complete; nothing copied (use --restart to copy again)\n", r.Stream)
	case r.Mode == "schema-only":
		fmt.Fprintf(&b, "schema created for %d tables (no data copied)\n", r.Tables)
	default:
		fmt.Fprintf(&b, "snapshot complete: %d tables, %d rows, %s in %.1fs (%.1f MB/s this run)\n",
			r.Tables, r.Rows, megabytes(r.Bytes), r.Seconds, r.MBPerSec)
	}
	if !r.Position.IsZero() {
		fmt.Fprintf(&b, "position: %s (replicate continues from here, stream %q)\n", r.Position, r.Stream)
	}
	if r.Method != "" && r.Sessions > 0 {
		fmt.Fprintf(&b, "consistent read: %s, %d sessions, %s\n", r.Method, r.Sessions, lockHeld(r.Method, r.LockHeldMS))
	}
	if r.Resumed {
		fmt.Fprintf(&b, "resumed (pass %d): %d chunks copied, %d earlier chunks unchanged and kept, %d re-copied because the source changed\n",
			r.Pass, r.ChunksCopied, r.ChunksKept, r.ChunksRecopied)
	}
	writePerTable(&b, r.PerTable)
	if len(r.Changes) > 0 {
		fmt.Fprintf(&b, "values changed by policy (%d):\n", r.ChangedValues())
		for _, c := range r.Changes {
			fmt.Fprintf(&b, "  %s.%s: %d × %s\n", c.Table, c.Column, c.Count, c.Policy)
		}
	}
	if len(r.Created) > 0 {
		fmt.Fprintf(&b, "created on the target (%d):\n", len(r.Created))
		for _, o := range r.Created {
			fmt.Fprintf(&b, "  %s\n", o)
		}
	}
	if len(r.NotMigrated) > 0 {
		fmt.Fprintf(&b, "not migrated (%d):\n", len(r.NotMigrated))
		for _, o := range r.NotMigrated {
			fmt.Fprintf(&b, "  %s\n", o)
		}
	}
	if len(r.Warnings) > 0 {
		fmt.Fprintf(&b, "warnings (%d):\n", len(r.Warnings))
		for _, wn := range r.Warnings {
			fmt.Fprintf(&b, "  %s\n", wn)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func megabytes(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }

// mergeChanges merges counts into the report's list.
func mergeChanges(into map[[3]string]int64, counts []typemap.ChangeCount) {
	for _, c := range counts {
		into[[3]string{c.Table, c.Column, c.Policy}] += c.Count
	}
}

func changeList(m map[[3]string]int64) []typemap.ChangeCount {
	out := make([]typemap.ChangeCount, 0, len(m))
	for k, n := range m {
		if n > 0 {
			out = append(out, typemap.ChangeCount{Table: k[0], Column: k[1], Policy: k[2], Count: n})
		}
	}
	typemap.SortChangeCounts(out)
	return out
}

// writePlan prints a --dry-run: the tables with their estimates, then every
// table's DDL.
func writePlan(b *strings.Builder, r *Report) {
	var rows, bytes int64
	for _, t := range r.Plan {
		rows += t.Rows
		bytes += t.Bytes
	}
	fmt.Fprintf(b, "dry run: %d tables in scope, about %d rows, %s (the source's estimates); nothing was written\n\n",
		len(r.Plan), rows, megabytes(bytes))
	for _, t := range r.Plan {
		fmt.Fprintf(b, "  %-40s -> %-40s ~%d rows, %s\n", t.Source, t.Target, t.Rows, megabytes(t.Bytes))
	}
	for _, t := range r.Plan {
		fmt.Fprintf(b, "\n-- %s\n", t.Source)
		for _, w := range t.Warnings {
			fmt.Fprintf(b, "-- warning: %s\n", w)
		}
		if t.Where != "" {
			fmt.Fprintf(b, "-- where: %s\n", t.Where)
		}
		for _, m := range t.Masks {
			fmt.Fprintf(b, "-- mask: %s\n", m)
		}
		for _, q := range t.DDL {
			fmt.Fprintf(b, "%s;\n", q)
		}
	}
	if len(r.NotMigrated) > 0 {
		fmt.Fprintf(b, "\nnot migrated (views, triggers, routines, events): %s\n", strings.Join(r.NotMigrated, ", "))
	}
}

// writePerTable lists the tables with their rows, bytes and this run's
// rate, when the run measured them (the MySQL target's snapshot).
func writePerTable(b *strings.Builder, tables []TableReport) {
	timed := false
	for _, t := range tables {
		timed = timed || t.Seconds > 0
	}
	if !timed {
		return
	}
	fmt.Fprintf(b, "tables (%d):\n", len(tables))
	for _, t := range tables {
		fmt.Fprintf(b, "  %s → %s: %d rows, %s, %d chunks, %.1f MB/s\n", t.Source, t.Target, t.Rows, megabytes(t.Bytes), t.Chunks, t.MBPerSec)
	}
}

// lockHeld says which lock the consistent read held on the source, and for
// how long: the method actually used (auto resolves to one of them).
func lockHeld(method string, ms int64) string {
	switch mysnap.Method(method) {
	case mysnap.MethodTableLock:
		return fmt.Sprintf("read lock of the tables in scope (LOCK TABLES … READ) held %d ms", ms)
	case mysnap.MethodGlobalLock:
		return fmt.Sprintf("global read lock (FLUSH TABLES WITH READ LOCK) held %d ms", ms)
	case mysnap.MethodLockFree, mysnap.MethodSingle:
		return "no lock"
	}
	return fmt.Sprintf("lock held %d ms", ms)
}
