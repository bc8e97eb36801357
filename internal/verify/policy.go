package verify

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/sluice-db/sluice/internal/typemap"
)

// PolicyChange is a count of values a policy changed on their way into the
// target (zero dates → NULL or -infinity, NUL characters stripped or
// replaced). Verify compares such values as the policy says (a zero date
// equals the target's NULL), so an "equal" table may hold them: the report
// says how many and where, from what the stream's snapshot and replication
// recorded in the target.
type PolicyChange struct {
	Column string `json:"column"`
	Policy string `json:"policy"`
	Count  int64  `json:"count"`
	Phase  string `json:"phase"` // "snapshot" or "replication"
	table  string // source db.table
}

func policyList(cs []typemap.ChangeCount, phase string) []PolicyChange {
	out := make([]PolicyChange, 0, len(cs))
	for _, c := range cs {
		out = append(out, PolicyChange{Column: c.Column, Policy: c.Policy, Count: c.Count, Phase: phase, table: c.Table})
	}
	return out
}

// notePolicyChanges attaches the stream's policy counts to the tables of the
// report. A target without them (none recorded, a MySQL target) adds
// nothing; failing to read them is logged, not fatal: they annotate the
// comparison, they are not part of it.
func (e *engine) notePolicyChanges(ctx context.Context, rep *Report) {
	pcs, err := e.tgt.policyChanges(ctx, e.o.Stream)
	if err != nil {
		e.o.Log.Warn("verify: cannot read the values changed by policy from the target; the report leaves them out", "err", err)
		return
	}
	byTable := map[string][]PolicyChange{}
	for _, pc := range pcs {
		byTable[pc.table] = append(byTable[pc.table], pc)
	}
	for i := range rep.Tables {
		rep.Tables[i].PolicyChanges = byTable[rep.Tables[i].Table]
	}
}

// PolicyChanged is the number of values of the table a policy changed.
func (t *TableReport) PolicyChanged() int64 {
	var n int64
	for _, pc := range t.PolicyChanges {
		n += pc.Count
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
		}
		fmt.Fprintf(w, "\n%s: %d values changed by policy, compared as the policy says: %s\n",
			t.Table, t.PolicyChanged(), strings.Join(parts, "; "))
	}
}
