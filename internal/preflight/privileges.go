package preflight

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/sluice-db/sluice/internal/config"
)

// grantee is CURRENT_USER() in information_schema's 'user'@'host' form.
const grantee = `CONCAT('''', SUBSTRING_INDEX(CURRENT_USER(), '@', 1), '''@''', SUBSTRING_INDEX(CURRENT_USER(), '@', -1), '''')`

func checkPrivileges(ctx context.Context, conn *sql.Conn, m config.MySQL, needs Needs) []Problem {
	global, err := privilegeSet(ctx, conn, `SELECT PRIVILEGE_TYPE FROM information_schema.USER_PRIVILEGES WHERE GRANTEE = `+grantee)
	if err != nil {
		return []Problem{Warningf("source", "", "cannot read the user's privileges (%v); continuing, missing privileges will fail later", err)}
	}
	user := strings.Trim(strings.SplitN(currentUser(ctx, conn), "@", 2)[0], "'")
	var probs []Problem
	dbPriv := map[string]bool{}
	if m.Database != "" {
		dbPriv, _ = privilegeSet(ctx, conn, `SELECT PRIVILEGE_TYPE FROM information_schema.SCHEMA_PRIVILEGES
			WHERE GRANTEE = `+grantee+` AND TABLE_SCHEMA = ?`, m.Database)
	}
	if !global["SELECT"] {
		if !dbPriv["SELECT"] {
			scope := "*.*"
			if m.Database != "" {
				scope = "`" + m.Database + "`.*"
			}
			probs = append(probs, Problemf("source", fmt.Sprintf("GRANT SELECT ON %s TO '%s'", scope, user),
				"user %q lacks the SELECT privilege on %s", user, scope))
		}
	}
	if needs.Binlog {
		if !global["REPLICATION SLAVE"] {
			probs = append(probs, Problemf("source", fmt.Sprintf("GRANT REPLICATION SLAVE ON *.* TO '%s'", user),
				"user %q lacks REPLICATION SLAVE, needed to read the binlog", user))
		}
		// MariaDB 10.5 renamed REPLICATION CLIENT to BINLOG MONITOR.
		if !global["REPLICATION CLIENT"] && !global["BINLOG MONITOR"] {
			probs = append(probs, Problemf("source", fmt.Sprintf("GRANT REPLICATION CLIENT ON *.* TO '%s'", user),
				"user %q lacks REPLICATION CLIENT (BINLOG MONITOR on MariaDB), needed to read binlog positions", user))
		}
	}
	// cutover records its boundary in the source's sluice.cutover (the way
	// back's state): create the database and table, write and delete it.
	if needs.SourceState {
		want := []string{"SELECT", "INSERT", "DELETE", "CREATE", "ALTER"}
		if missing := missingOn(ctx, conn, global, stateDatabase, want); len(missing) > 0 {
			probs = append(probs, Problemf("source", fmt.Sprintf("GRANT %s ON `%s`.* TO '%s'", strings.Join(missing, ", "), stateDatabase, user),
				"user %q lacks %s on database %q of the source, where the cut-over records its boundary for the way back",
				user, strings.Join(missing, ", "), stateDatabase))
		}
	}
	if needs.SourceFlushLock && !global["RELOAD"] && !global["FLUSH_TABLES"] {
		probs = append(probs, Problemf("source", fmt.Sprintf("run without --lock (the cut-over then requires that no write reaches the migrated "+
			"tables for --quiet-for), or GRANT RELOAD ON *.* TO '%s' where the server allows it", user),
			"user %q lacks RELOAD, which --lock needs for FLUSH TABLES … WITH READ LOCK (managed services such as RDS, Aurora and Cloud SQL do not grant it)", user))
	}
	// The snapshot's brief lock: of the tables in scope (LOCK TABLES, what
	// auto takes) or global (RELOAD).
	if needs.Snapshot && !global["RELOAD"] && !global["LOCK TABLES"] && !dbPriv["LOCK TABLES"] {
		scope := "*.*"
		if m.Database != "" {
			scope = "`" + m.Database + "`.*"
		}
		probs = append(probs, Warningf("source", fmt.Sprintf("GRANT LOCK TABLES ON %s TO '%s' for a parallel snapshot", scope, user),
			"user %q lacks LOCK TABLES and RELOAD: the snapshot cannot take its brief lock of the tables in scope (or the global read lock) "+
				"and reads with one session on MariaDB; on MySQL it stops", user))
	}
	return probs
}

// missingOn is what of want the user lacks on database dbName, neither
// granted globally nor on the database (a pattern grant such as `shop%`.*
// counts).
func missingOn(ctx context.Context, conn *sql.Conn, global map[string]bool, dbName string, want []string) []string {
	have, err := privilegeSet(ctx, conn, `SELECT PRIVILEGE_TYPE FROM information_schema.SCHEMA_PRIVILEGES
		WHERE GRANTEE = `+grantee+` AND ? LIKE TABLE_SCHEMA`, dbName)
	if err != nil {
		have = map[string]bool{}
	}
	var missing []string
	for _, p := range want {
		if !global[p] && !have[p] {
			missing = append(missing, p)
		}
	}
	return missing
}

func privilegeSet(ctx context.Context, conn *sql.Conn, query string, args ...any) (map[string]bool, error) {
	rows, err := conn.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	set := map[string]bool{}
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, err
		}
		set[strings.ToUpper(p)] = true
	}
	return set, rows.Err()
}

func currentUser(ctx context.Context, conn *sql.Conn) string {
	var u string
	_ = conn.QueryRowContext(ctx, "SELECT CURRENT_USER()").Scan(&u)
	return u
}
