package testenv

import (
	"database/sql"
	"fmt"
	"testing"
	"time"
)

// MySQLServer is a throwaway mariadbd or MySQL 9 mysqld a test may kill (a
// source failover).
type MySQLServer struct {
	URL   string // admin URL, mysql://root:root@127.0.0.1:PORT/
	Port  int
	srv   *mariadbServer
	mysql bool // MySQL 9, not MariaDB
}

// StartMariaDBServer is StartMariaDB returning the server, for a test that
// kills it.
func StartMariaDBServer(t testing.TB, extraArgs ...string) *MySQLServer {
	t.Helper()
	srv := startMariaDB(t, extraArgs...)
	return &MySQLServer{URL: srv.url(), Port: srv.port, srv: srv}
}

// Kill9 kills the server with SIGKILL (by its PID) and waits until it is
// gone: a crash, nothing flushed.
func (m *MySQLServer) Kill9(t testing.TB) {
	t.Helper()
	if err := m.srv.cmd.Process.Kill(); err != nil {
		t.Fatalf("testenv: kill -9 mariadbd pid %d: %v", m.srv.cmd.Process.Pid, err)
	}
	select {
	case err := <-m.srv.exited:
		m.srv.exited <- err // for stop at cleanup
	case <-time.After(30 * time.Second):
		t.Fatalf("testenv: mariadbd pid %d still runs 30 s after SIGKILL", m.srv.cmd.Process.Pid)
	}
}

// MySQL says the server is MySQL 9, not MariaDB.
func (m *MySQLServer) MySQL() bool { return m.mysql }

// ReplicateFrom makes m a GTID replica of primary from primary's current
// position (the accounts each server created at start-up are not
// replayed). m's own binlog is reset first, so that it holds the primary's
// transactions only (log_slave_updates; gtid_strict_mode on MariaDB).
func (m *MySQLServer) ReplicateFrom(t testing.TB, primary *MySQLServer) {
	t.Helper()
	var pos string
	if err := primary.DB(t, "").QueryRow("SELECT " + m.gtidVar()).Scan(&pos); err != nil {
		t.Fatalf("testenv: primary %s: %v", m.gtidVar(), err)
	}
	stmts := []string{"STOP SLAVE", "RESET SLAVE ALL", "RESET MASTER",
		fmt.Sprintf("SET GLOBAL gtid_slave_pos = '%s'", pos),
		fmt.Sprintf("CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=%d, MASTER_USER='root', MASTER_PASSWORD='root', "+
			"MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1", primary.Port),
		"START SLAVE"}
	if m.mysql {
		stmts = []string{"STOP REPLICA", "RESET REPLICA ALL", "RESET BINARY LOGS AND GTIDS",
			fmt.Sprintf("SET GLOBAL gtid_purged = '%s'", pos),
			fmt.Sprintf("CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT=%d, SOURCE_USER='root', SOURCE_PASSWORD='root', "+
				"SOURCE_AUTO_POSITION=1, SOURCE_CONNECT_RETRY=1, GET_SOURCE_PUBLIC_KEY=1", primary.Port),
			"START REPLICA"}
	}
	m.exec(t, stmts...)
}

// WaitCaughtUp waits until m applied every transaction primary has.
func (m *MySQLServer) WaitCaughtUp(t testing.TB, primary *MySQLServer) {
	t.Helper()
	var pos string
	if err := primary.DB(t, "").QueryRow("SELECT " + m.gtidVar()).Scan(&pos); err != nil {
		t.Fatal(err)
	}
	q := "SELECT MASTER_GTID_WAIT(?, 60)"
	if m.mysql {
		q = "SELECT WAIT_FOR_EXECUTED_GTID_SET(?, 60)"
	}
	var res int
	if err := m.DB(t, "").QueryRow(q, pos).Scan(&res); err != nil || res != 0 {
		t.Fatalf("testenv: replica did not reach %s: %d %v", pos, res, err)
	}
}

// StopReplica stops m's replication threads.
func (m *MySQLServer) StopReplica(t testing.TB) {
	t.Helper()
	if m.mysql {
		m.exec(t, "STOP REPLICA")
		return
	}
	m.exec(t, "STOP SLAVE")
}

// Promote makes the replica m a primary, as an operator would.
func (m *MySQLServer) Promote(t testing.TB) {
	t.Helper()
	if m.mysql {
		m.exec(t, "STOP REPLICA", "RESET REPLICA ALL")
		return
	}
	m.exec(t, "STOP SLAVE", "RESET SLAVE ALL")
}

func (m *MySQLServer) gtidVar() string {
	if m.mysql {
		return "@@gtid_executed"
	}
	return "@@gtid_binlog_pos"
}

func (m *MySQLServer) exec(t testing.TB, stmts ...string) {
	t.Helper()
	db := m.DB(t, "")
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("testenv: %s: %v", q, err)
		}
	}
}

// DB opens database db on the server as root, closed when the test ends.
func (m *MySQLServer) DB(t testing.TB, db string) *sql.DB {
	t.Helper()
	u, err := parseMySQLURL(m.URL)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := sql.Open("mysql", u.DSN(db, nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}
