package consistent

import (
	"log/slog"
	"sort"
	"strings"

	"github.com/sluice-db/sluice/internal/schema"
)

// NonTransactional lists (sorted, as db.table) the tables whose engine is not
// InnoDB: MyISAM, Aria, MEMORY, CSV... have no transactions, so no consistent
// snapshot covers them, whatever the method: the global read lock does not
// help either, it is released before the copy reads them.
func NonTransactional(tables []*schema.Table) []string {
	var out []string
	for _, t := range tables {
		if e := strings.ToLower(t.Engine); e != "" && e != "innodb" {
			out = append(out, t.TableID.String()+" ("+t.Engine+")")
		}
	}
	sort.Strings(out)
	return out
}

// warnNonTransactional logs, when the point is open and before anything is
// copied, the tables the point does not cover and what that means.
func warnNonTransactional(log *slog.Logger, tables []string, m Method) {
	if len(tables) == 0 {
		return
	}
	log.Warn("NOT COVERED by the consistent snapshot: these tables are not InnoDB, so their rows are read as they are "+
		"at the moment each chunk is read; rows written to them during the copy may be missing or extra in the target "+
		"and replication may then fail or duplicate them. Stop writes to them during the snapshot, or convert them "+
		"(ALTER TABLE ... ENGINE=InnoDB), or --exclude them",
		"tables", strings.Join(tables, ", "), "count", len(tables), "method", string(m))
}
