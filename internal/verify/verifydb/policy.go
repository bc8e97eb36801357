package verifydb

import (
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
	// Count is how many values the policy changed, over every write the
	// stream carried (a row updated ten times counts ten times).
	Count int64  `json:"count"`
	Phase string `json:"phase"` // "snapshot" or "replication"
	// Now is how many of the table's values the policy changes at the
	// time of the comparison (source rows holding such a value in the
	// column); nil when sluice cannot tell for this policy.
	Now   *int64 `json:"now,omitempty"`
	Table string // source db.table
}

func PolicyList(cs []typemap.ChangeCount, phase string) []PolicyChange {
	out := make([]PolicyChange, 0, len(cs))
	for _, c := range cs {
		out = append(out, PolicyChange{Column: c.Column, Policy: c.Policy, Count: c.Count, Phase: phase, Table: c.Table})
	}
	return out
}
