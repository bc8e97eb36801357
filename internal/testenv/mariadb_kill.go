package testenv

import (
	"database/sql"
	"fmt"
	"testing"
	"time"
)

// MariaDBServer is a throwaway mariadbd a test may kill (a source failover).
type MariaDBServer struct {
	URL  string // admin URL, mysql://root:root@127.0.0.1:PORT/
	Port int
	srv  *mariadbServer
}

// StartMariaDBServer is StartMariaDB returning the server, for a test that
// kills it.
func StartMariaDBServer(t testing.TB, extraArgs ...string) *MariaDBServer {
	t.Helper()
	srv := startMariaDB(t, extraArgs...)
	return &MariaDBServer{URL: srv.url(), Port: srv.port, srv: srv}
}

// Kill9 kills the server with SIGKILL (by its PID) and waits until it is
// gone: a crash, nothing flushed.
func (m *MariaDBServer) Kill9(t testing.TB) {
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

// ReplicateMariaDB makes replica a GTID replica of primary from primary's
// current position (the accounts each server created at start-up are not
// replayed): its own binlog is reset first, so that with gtid_strict_mode
// it holds the primary's transactions only (log_slave_updates).
func ReplicateMariaDB(t testing.TB, primary *MariaDBServer, replica *sql.DB) {
	t.Helper()
	p := primary.DB(t, "")
	var pos string
	if err := p.QueryRow("SELECT @@gtid_binlog_pos").Scan(&pos); err != nil {
		t.Fatalf("testenv: primary gtid_binlog_pos: %v", err)
	}
	for _, q := range []string{"STOP SLAVE", "RESET SLAVE ALL", "RESET MASTER",
		fmt.Sprintf("SET GLOBAL gtid_slave_pos = '%s'", pos),
		fmt.Sprintf("CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=%d, MASTER_USER='root', MASTER_PASSWORD='root', "+
			"MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1", primary.Port),
		"START SLAVE"} {
		if _, err := replica.Exec(q); err != nil {
			t.Fatalf("testenv: replica: %s: %v", q, err)
		}
	}
}

// DB opens database db on the server as root, closed when the test ends.
func (m *MariaDBServer) DB(t testing.TB, db string) *sql.DB {
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
