package testenv

import (
	"database/sql"
	"net/url"
	"strings"
	"testing"
)

// CloudUser creates a source user with what a managed service (RDS,
// Aurora, Cloud SQL, Azure) gives: SELECT on database db, the global
// privileges in global (e.g. REPLICATION SLAVE, ReplicationClient()) and the
// database privileges in extra (e.g. LOCK TABLES); no SUPER, RELOAD, FILE or
// PROCESS. admin creates it; it is dropped when the test ends. It returns
// the user's name and its --source URL for db.
func (e *Env) CloudUser(t testing.TB, admin *sql.DB, db string, global []string, extra ...string) (string, string) {
	t.Helper()
	user := UniqueName("cloud")
	if len(user) > 32 {
		user = user[:32]
	}
	const pw = "cloud-pw"
	stmts := []string{"CREATE USER '" + user + "'@'%' IDENTIFIED BY '" + pw + "'",
		"GRANT SELECT ON `" + db + "`.* TO '" + user + "'@'%'"}
	if len(global) > 0 {
		stmts = append(stmts, "GRANT "+strings.Join(global, ", ")+" ON *.* TO '"+user+"'@'%'")
	}
	for _, g := range extra {
		stmts = append(stmts, "GRANT "+g+" ON `"+db+"`.* TO '"+user+"'@'%'")
	}
	for _, s := range stmts {
		if _, err := admin.Exec(s); err != nil {
			t.Fatalf("testenv: %s: %v", s, err)
		}
	}
	t.Cleanup(func() { _, _ = admin.Exec("DROP USER '" + user + "'@'%'") })
	u, err := url.Parse(e.SourceURL(db))
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(user, pw)
	return user, u.String()
}

// ReplicationClient is REPLICATION CLIENT under the flavor's own name
// (MariaDB 10.5 renamed it BINLOG MONITOR).
func (e *Env) ReplicationClient() string {
	if e.IsMySQL() {
		return "REPLICATION CLIENT"
	}
	return "BINLOG MONITOR"
}

// CloudGrants are the grants of a managed service's replication user for
// CloudUser: REPLICATION SLAVE and REPLICATION CLIENT globally, and on MySQL
// LOCK TABLES on the database (a MySQL snapshot needs it without RELOAD; RDS
// and Cloud SQL grant it), none on MariaDB (its snapshot is lock-free).
func (e *Env) CloudGrants() (global, extra []string) {
	global = []string{"REPLICATION SLAVE", e.ReplicationClient()}
	if e.IsMySQL() {
		extra = []string{"LOCK TABLES"}
	}
	return global, extra
}
