package verifydb

import (
	"slices"
	"strings"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/rowpolicy"
	"github.com/sluice-db/sluice/internal/schema"
)

// RefuseRowPolicies refuses when any stream recorded on the target (not
// only --stream's: a wrong or default name must not get around it)
// filters or masks one of the tables to compare. verify does not apply
// row filters and masks: it would compare their tables in clear, and
// --repair would write the clear values into the target.
func RefuseRowPolicies(policies map[string][]string, tables []*schema.Table) error {
	streams := make([]string, 0, len(policies))
	for s := range policies {
		streams = append(streams, s)
	}
	slices.Sort(streams)
	for _, s := range streams {
		for _, t := range tables {
			if rowpolicy.Covers(policies[s], t.TableID) {
				return exitcode.ConfigError(checkpoint.RowPolicyRefusal(s, strings.Join(policies[s], "; ")))
			}
		}
	}
	return nil
}
