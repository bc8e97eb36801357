package testenv

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"
)

// MySQLTarget is the sandbox's second MariaDB (SLUICE_TEST_MYSQL_TARGET_ADMIN, by default
// 127.0.0.1:13308): the target of MySQL→MySQL tests. It loads MyRocks when Debian's
// mariadb-plugin-rocksdb is installed (HasRocksDB). sluice keeps its state there in the
// database `sluice`.
type MySQLTarget struct {
	admin mysqlURL // root
	user  mysqlURL // the sluice account
}

var (
	targetOnce sync.Once
	targetErr  error
)

// MySQLTarget returns the MySQL target server. Without one it skips the test, or, when
// CI=true, fails it.
func (e *Env) MySQLTarget(t testing.TB) *MySQLTarget {
	t.Helper()
	fail := func(err error) {
		if InCI() {
			t.Fatalf("testenv: CI=true but no MySQL target server: %v", err)
		}
		t.Skipf("testenv: no MySQL target server (%v); `bash scripts/sandbox start` starts one on 127.0.0.1:13308", err)
	}
	if e.mysqlTgt == "" {
		fail(fmt.Errorf("SLUICE_TEST_MYSQL_TARGET_ADMIN is not set"))
	}
	admin, err := parseMySQLURL(e.mysqlTgt)
	if err != nil {
		fail(fmt.Errorf("SLUICE_TEST_MYSQL_TARGET_ADMIN: %w", err))
	}
	m := &MySQLTarget{admin: admin, user: mysqlURL{User: "sluice", Password: "sluice", Host: admin.Host, Port: admin.Port}}
	targetOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		db := m.open()
		defer db.Close()
		targetErr = db.PingContext(ctx)
	})
	if targetErr != nil {
		fail(fmt.Errorf("%s: %w", admin.Redacted(), targetErr))
	}
	return m
}

func (m *MySQLTarget) open() *sql.DB {
	db, _ := sql.Open("mysql", m.admin.DSN("", nil)) // only fails for an unknown driver name
	return db
}

// Admin opens a root connection pool on the target server (no default database); the test
// closes it when it ends.
func (m *MySQLTarget) Admin(t testing.TB) *sql.DB {
	db := m.open()
	t.Cleanup(func() { db.Close() })
	return db
}

// URL is the sluice account's mysql:// URL for database db: what --target takes.
func (m *MySQLTarget) URL(db string) string { return m.user.URL(db) }

// NewDatabase creates database name on the target (utf8mb4, empty) and drops it when the
// test ends (SLUICE_TEST_KEEP=1 keeps it). Most tests let sluice create it instead and only
// register the cleanup with DropAtEnd.
func (m *MySQLTarget) NewDatabase(t testing.TB, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db := m.open()
	defer db.Close()
	if _, err := db.ExecContext(ctx, "CREATE DATABASE `"+name+"` CHARACTER SET utf8mb4"); err != nil {
		t.Fatalf("testenv: create database %s on the MySQL target: %v", name, err)
	}
	m.DropAtEnd(t, name)
}

// DropAtEnd drops database name on the target when the test ends, and the test's rows of
// sluice's state there are left to the stream names, which are unique per test.
func (m *MySQLTarget) DropAtEnd(t testing.TB, name string) {
	t.Cleanup(func() {
		if truthy(os.Getenv("SLUICE_TEST_KEEP")) {
			t.Logf("testenv: SLUICE_TEST_KEEP set, keeping database %s on the MySQL target", name)
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		db := m.open()
		defer db.Close()
		if _, err := db.ExecContext(ctx, "DROP DATABASE IF EXISTS `"+name+"`"); err != nil {
			t.Errorf("testenv: cleanup: drop database %s on the MySQL target: %v", name, err)
		}
	})
}

// HasRocksDB reports whether the target server has the ROCKSDB storage engine.
func (m *MySQLTarget) HasRocksDB(t testing.TB) bool {
	t.Helper()
	db := m.open()
	defer db.Close()
	var n int
	err := db.QueryRow(`SELECT COUNT(*) FROM information_schema.ENGINES WHERE ENGINE = 'ROCKSDB' AND SUPPORT IN ('YES', 'DEFAULT')`).Scan(&n)
	if err != nil {
		t.Fatalf("testenv: MySQL target engines: %v", err)
	}
	return n > 0
}
