package preflight

import (
	"context"
	"fmt"
	"strings"

	"github.com/sluice-db/sluice/internal/config"
)

// stateDatabase is where sluice keeps a MySQL target's state (checkpoint,
// applied records, schema history, snapshot chunks), like the sluice schema
// of a PostgreSQL target.
const stateDatabase = "sluice"

// CheckMySQLTarget checks a MySQL/MariaDB target: reachable, the privileges
// to create and write the target database and sluice's state database, and a
// transactional storage engine (exactly once needs the rows and the applied
// record in one transaction). It is the MySQL engine's check
// (internal/sink/mysql); it lives here beside the source's checks, whose
// privilege readers it shares.
func CheckMySQLTarget(ctx context.Context, m config.MySQL, needs Needs) (TargetInfo, []Problem) {
	var info TargetInfo
	db, err := m.WithDatabase("").OpenDB()
	if err != nil {
		return info, []Problem{Problemf("target", "check the --target URL", "invalid connection settings: %v", err)}
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err == nil {
		err = conn.PingContext(ctx)
	}
	if err != nil {
		return info, []Problem{mysqlConnectProblem("target", m, err)}
	}
	defer conn.Close()
	if err := conn.QueryRowContext(ctx, "SELECT VERSION()").Scan(&info.Version); err != nil {
		return info, []Problem{Problemf("target", "", "cannot read the server version: %v", err)}
	}
	var probs []Problem
	global, err := privilegeSet(ctx, conn, `SELECT PRIVILEGE_TYPE FROM information_schema.USER_PRIVILEGES WHERE GRANTEE = `+grantee)
	if err != nil {
		probs = append(probs, Warningf("target", "", "cannot read the user's privileges (%v); continuing, missing privileges will fail later", err))
	} else {
		user := strings.Trim(strings.SplitN(currentUser(ctx, conn), "@", 2)[0], "'")
		want := []string{"SELECT", "INSERT", "UPDATE", "DELETE"}
		if needs.TargetCreate {
			want = append(want, "CREATE", "DROP", "ALTER", "INDEX", "REFERENCES")
		}
		dbs := []string{m.Database, stateDatabase}
		if needs.TargetReadOnly && !needs.TargetCreate {
			want, dbs = []string{"SELECT"}, dbs[:1]
		}
		for _, dbName := range dbs {
			if missing := missingOn(ctx, conn, global, dbName, want); len(missing) > 0 {
				probs = append(probs, Problemf("target",
					fmt.Sprintf("GRANT %s ON `%s`.* TO '%s'", strings.Join(missing, ", "), dbName, user),
					"user %q lacks %s on database %q of the target", user, strings.Join(missing, ", "), dbName))
			}
		}
	}
	if needs.TargetEngine != "" {
		var support, txn string
		err := conn.QueryRowContext(ctx, `SELECT SUPPORT, COALESCE(TRANSACTIONS, 'NO') FROM information_schema.ENGINES WHERE ENGINE = ?`,
			needs.TargetEngine).Scan(&support, &txn)
		switch {
		case err != nil || support == "NO" || support == "DISABLED":
			probs = append(probs, Problemf("target", "install or enable the engine on the target (MariaDB MyRocks: INSTALL SONAME 'ha_rocksdb'), or choose another --target-engine",
				"storage engine %s is not available on the target", needs.TargetEngine))
		case txn != "YES":
			probs = append(probs, Problemf("target", "choose a transactional --target-engine (InnoDB, ROCKSDB)",
				"storage engine %s has no transactions: sluice commits each group of rows together with its applied record, so it cannot apply exactly once into %s",
				needs.TargetEngine, needs.TargetEngine))
		}
	}
	return info, probs
}
