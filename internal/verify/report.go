package verify

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/sluice-db/sluice/internal/verify/verifydb"
)

// Results of a table or of the whole run.
const (
	ResultEqual       = "equal"
	ResultDifferences = "differences"
	ResultError       = "error"
	// ResultRepaired: differences were found and --repair fixed them all
	// (a re-read of the repaired rows found them equal).
	ResultRepaired = "repaired"
	// ResultInFlight: online, rows still differed after every re-check
	// while the source kept changing them (or, keyless, the table): they
	// could not be compared at rest. Not a difference; run verify again
	// when the writes calm down (exit code 3).
	ResultInFlight = "in_flight"
)

// Report is the outcome of a verify run; --json prints it as is.
type Report struct {
	Result  string        `json:"result"`
	Online  bool          `json:"online"`
	Repair  string        `json:"repair,omitempty"` // "", "applied" or "sql"
	Tables  []TableReport `json:"tables"`
	Rows    int64         `json:"rows"`
	Bytes   int64         `json:"bytes"`
	Seconds float64       `json:"seconds"`
}

// TableReport is the outcome for one table.
type TableReport struct {
	Table   string  `json:"table"`  // source db.table
	Target  string  `json:"target"` // target schema.table
	Mode    string  `json:"mode"`   // range, bucket or keyless
	Rows    int64   `json:"rows"`   // source rows compared
	Chunks  int64   `json:"chunks"`
	Bytes   int64   `json:"bytes"` // source bytes covered (data_length share)
	Seconds float64 `json:"seconds"`
	Result  string  `json:"result"`
	Error   string  `json:"error,omitempty"`

	OnlyInSource int64 `json:"only_in_source"`
	OnlyInTarget int64 `json:"only_in_target"`
	Differing    int64 `json:"differing"`
	// Rows lists the differences found (at most --max-diffs per table;
	// Truncated says when there were more).
	Diffs     []RowDiff `json:"diffs,omitempty"`
	Truncated bool      `json:"truncated,omitempty"`
	// Keyless tables report row hashes present more often on one side.
	Multiset []MultisetDiff `json:"multiset,omitempty"`
	// Rechecked counts differences that went away on an online re-check
	// (changes that were in flight).
	Rechecked int64 `json:"rechecked,omitempty"`
	// InFlight counts rows (keyless: row copies) that still differed after
	// every re-check while the source kept changing them: not differences.
	InFlight int64 `json:"in_flight,omitempty"`
	Repaired int64 `json:"repaired,omitempty"`
	// PolicyChanges are values a policy changed on the way into the target
	// (policy.go): an equal table is "equal except" these.
	PolicyChanges []verifydb.PolicyChange `json:"policy_changes,omitempty"`
	// ColumnOrder is "source (a, b, c) target (a, c, b)" when the target's
	// columns are in another order (colorder.go): not a data difference.
	ColumnOrder string `json:"column_order,omitempty"`
}

// RowDiff is one row that is missing on a side or differs.
type RowDiff struct {
	sortKey string       // normalised key text: the report lists rows in key order
	Kind    string       `json:"kind"`
	Key     []KeyValue   `json:"key,omitempty"`
	Columns []ColumnDiff `json:"columns,omitempty"`
}

// KeyValue is one key column of a reported row.
type KeyValue struct {
	Column string `json:"column"`
	Value  string `json:"value"`
}

// ColumnDiff is one differing column with both values (truncated when long;
// NULL is shown as NULL).
type ColumnDiff struct {
	Column string `json:"column"`
	Source string `json:"source"`
	Target string `json:"target"`
}

// MultisetDiff is a row (by hash) of a keyless table that one side holds
// more often than the other.
type MultisetDiff struct {
	RowHash      string `json:"row_hash"`
	SourceCount  int64  `json:"source_count"`
	TargetCount  int64  `json:"target_count"`
	SampleSource string `json:"sample,omitempty"`
}

// Differences is the number of differing rows of the table.
func (t *TableReport) Differences() int64 { return t.OnlyInSource + t.OnlyInTarget + t.Differing }

func (k RowDiff) keyString() string {
	parts := make([]string, len(k.Key))
	for i, kv := range k.Key {
		parts[i] = kv.Column + "=" + kv.Value
	}
	return strings.Join(parts, ", ")
}

// WriteSummary prints the human summary: one line per table, then the
// differences of each table that has some.
func (r *Report) WriteSummary(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "TABLE\tMODE\tROWS\tCHUNKS\tMB\tSECONDS\tRESULT\t")
	for _, t := range r.Tables {
		res := t.Result
		if t.Result == ResultDifferences {
			res = plural(t.Differences(), "difference")
		}
		if t.InFlight > 0 && t.Result != ResultError {
			res += fmt.Sprintf(", %d in flight", t.InFlight)
			if t.Result == ResultInFlight {
				res = fmt.Sprintf("%d in flight", t.InFlight)
			}
		}
		if n := t.PolicyChanged(); n > 0 && t.Result == ResultEqual {
			res = fmt.Sprintf("equal except %d by policy", n)
		}
		if t.ColumnOrder != "" && t.Result == ResultEqual {
			res += ", column order differs"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.1f\t%.1f\t%s\t\n", t.Table, t.Mode, t.Rows, t.Chunks,
			float64(t.Bytes)/1e6, t.Seconds, res)
	}
	tw.Flush()
	for _, t := range r.Tables {
		if t.Error != "" {
			fmt.Fprintf(w, "\n%s: error: %s\n", t.Table, t.Error)
		}
		if t.Result != ResultDifferences {
			continue
		}
		fmt.Fprintf(w, "\n%s → %s: %d only in source, %d only in target, %d differing", t.Table, t.Target,
			t.OnlyInSource, t.OnlyInTarget, t.Differing)
		if t.Repaired > 0 {
			fmt.Fprintf(w, ", %d repaired", t.Repaired)
		}
		fmt.Fprintln(w)
		for _, d := range t.Diffs {
			fmt.Fprintf(w, "  %-15s %s\n", d.Kind, d.keyString())
			for _, c := range d.Columns {
				fmt.Fprintf(w, "      %s: source %s, target %s\n", c.Column, c.Source, c.Target)
			}
		}
		for _, m := range t.Multiset {
			fmt.Fprintf(w, "  row %s: %d in source, %d in target", m.RowHash, m.SourceCount, m.TargetCount)
			if m.SampleSource != "" {
				fmt.Fprintf(w, " (%s)", m.SampleSource)
			}
			fmt.Fprintln(w)
		}
		if t.Truncated {
			fmt.Fprintf(w, "  ... more differences not listed (raise --max-diffs)\n")
		}
	}
	r.writePolicyChanges(w)
	r.writeColumnOrders(w)
	fmt.Fprintf(w, "\n%d tables, %d rows, %.1f MB in %.1f s (%.1f MB/s): %s\n", len(r.Tables), r.Rows,
		float64(r.Bytes)/1e6, r.Seconds, mbps(r.Bytes, r.Seconds), r.Result)
}

func mbps(bytes int64, seconds float64) float64 {
	if seconds <= 0 {
		return 0
	}
	return float64(bytes) / 1e6 / seconds
}

// finish sets the overall result from the tables and sorts them.
func (r *Report) finish() {
	sort.Slice(r.Tables, func(i, j int) bool { return r.Tables[i].Table < r.Tables[j].Table })
	r.Result = ResultEqual
	r.Rows, r.Bytes = 0, 0
	for _, t := range r.Tables {
		r.Rows += t.Rows
		r.Bytes += t.Bytes
		switch {
		case t.Result == ResultError:
			r.Result = ResultError
		case t.Result == ResultDifferences && r.Result != ResultError:
			r.Result = ResultDifferences
		case t.Result == ResultInFlight && r.Result == ResultEqual:
			r.Result = ResultInFlight
		}
	}
}

// plural is "1 difference", "2 differences".
func plural(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
