package consistent

import (
	"slices"
	"strings"

	"github.com/sluice-db/sluice/internal/schema"
)

// lockGrantFix names the privilege a snapshot's brief lock needs: LOCK
// TABLES on each database in scope (which managed services such as RDS,
// Aurora and Cloud SQL grant, unlike RELOAD), or RELOAD for the global read
// lock (--snapshot-method global-read-lock, or more than maxLockTables
// tables).
func lockGrantFix(o PointOptions) string {
	var dbs []string
	for _, t := range o.Tables {
		if !slices.Contains(dbs, t.Database) {
			dbs = append(dbs, t.Database)
		}
	}
	if o.Method == MethodGlobalLock || len(dbs) == 0 || len(o.Tables) > maxLockTables {
		return "GRANT RELOAD ON *.* TO the sluice user (managed services that do not allow RELOAD: the default --snapshot-method auto " +
			"with LOCK TABLES on the databases in scope, up to 1000 tables)"
	}
	grants := make([]string, len(dbs))
	for i, db := range dbs {
		grants[i] = "GRANT LOCK TABLES ON " + schema.QuoteMySQL(db) + ".* TO the sluice user"
	}
	fix := strings.Join(grants, "; ")
	if o.Method == MethodTableLock {
		return fix
	}
	return fix + " (what managed services allow), or GRANT RELOAD ON *.* for the global read lock"
}
