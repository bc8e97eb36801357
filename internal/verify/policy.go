package verify

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/verify/verifydb"
)

// notePolicyChanges attaches the stream's policy counts to the tables of the
// report. A target without them (none recorded, a MySQL target) adds
// nothing; failing to read them is logged, not fatal: they annotate the
// comparison, they are not part of it.
func (e *engine) notePolicyChanges(ctx context.Context, rep *Report, quoted map[string]string) {
	pcs, err := e.tgt.PolicyChanges(ctx, e.o.Stream)
	if err != nil {
		e.o.Log.Warn("verify: cannot read the values changed by policy from the target; the report leaves them out", "err", err)
		return
	}
	byTable := map[string][]verifydb.PolicyChange{}
	for _, pc := range pcs {
		byTable[pc.Table] = append(byTable[pc.Table], pc)
	}
	for i := range rep.Tables {
		t := &rep.Tables[i]
		t.PolicyChanges = byTable[t.Table]
		if len(t.PolicyChanges) > 0 && t.Error == "" && quoted[t.Table] != "" {
			if err := e.countPolicyNow(ctx, t, quoted[t.Table]); err != nil {
				e.o.Log.Warn("verify: cannot count the values a policy changes now; the report gives the counts the stream recorded", "table", t.Table, "err", err)
			}
		}
	}
}

// policyNowPredicate is the source-side condition under which a value of
// column q is one the policy changes, as typemap decides it; "" for a
// policy sluice cannot tell from the stored value.
func policyNowPredicate(policy, q string) string {
	switch {
	case strings.HasPrefix(policy, "zero-date→"):
		return verifydb.MySQLZeroInDate(q)
	case strings.HasPrefix(policy, "invalid-date→"):
		return "(NOT " + verifydb.MySQLZeroInDate(q) + " AND " + verifydb.MySQLPastMonthEnd(q) + ")"
	case strings.HasPrefix(policy, "NUL "):
		return "(LOCATE(X'00', CAST(" + q + " AS BINARY)) > 0)"
	}
	return ""
}

// countPolicyNow counts, in one scan of the source table, the values each
// recorded policy changes now: the figure a monitor can compare over time,
// unlike the stream's cumulative counts.
func (e *engine) countPolicyNow(ctx context.Context, t *TableReport, table string) error {
	var sums []string
	var idx []int
	for i, pc := range t.PolicyChanges {
		if p := policyNowPredicate(pc.Policy, schema.QuoteMySQL(pc.Column)); p != "" {
			sums = append(sums, "COALESCE(SUM("+p+"), 0)")
			idx = append(idx, i)
		}
	}
	if len(sums) == 0 {
		return nil
	}
	q := "SELECT " + strings.Join(sums, ", ") + " FROM " + table
	vals := make([]int64, len(sums))
	dest := make([]any, len(sums))
	for i := range vals {
		dest[i] = &vals[i]
	}
	if err := e.src.QueryRowContext(ctx, q).Scan(dest...); err != nil {
		return err
	}
	for k, i := range idx {
		n := vals[k]
		t.PolicyChanges[i].Now = &n
	}
	return nil
}

// PolicyChanged is the number of values of the table a policy changed:
// those it changes now where sluice can count them, else what the stream
// recorded.
func (t *TableReport) PolicyChanged() int64 {
	var n int64
	seen := map[string]bool{} // a column's value counts once, whichever phase recorded it
	for _, pc := range t.PolicyChanges {
		switch {
		case pc.Now == nil:
			n += pc.Count
		case !seen[pc.Column+"\x00"+pc.Policy]:
			seen[pc.Column+"\x00"+pc.Policy] = true
			n += *pc.Now
		}
	}
	return n
}

// writePolicyChanges lists, per table, the values equal only by a policy.
func (r *Report) writePolicyChanges(w io.Writer) {
	for _, t := range r.Tables {
		if len(t.PolicyChanges) == 0 {
			continue
		}
		parts := make([]string, len(t.PolicyChanges))
		for i, pc := range t.PolicyChanges {
			parts[i] = fmt.Sprintf("%s: %d %s (%s)", pc.Column, pc.Count, pc.Policy, pc.Phase)
			if pc.Now != nil {
				parts[i] += fmt.Sprintf(", %d now", *pc.Now)
			}
		}
		fmt.Fprintf(w, "\n%s: %d values changed by policy, compared as the policy says: %s\n",
			t.Table, t.PolicyChanged(), strings.Join(parts, "; "))
	}
}
