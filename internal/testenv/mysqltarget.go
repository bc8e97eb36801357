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
//
// Under WithMySQLTarget(MySQL) it is the flavor axis's MySQL 9.7 instead (SLUICE_TEST_MYSQL9_ADMIN,
// 127.0.0.1:13307): the same server as a MySQL source, whose target databases are other databases
// than the source's (the stream is scoped to the source's database, so the target's own writes in
// the same binlog are out of its scope).
type MySQLTarget struct {
	admin  mysqlURL // root
	user   mysqlURL // the sluice account
	flavor Flavor
}

var (
	targetOnce, target9Once sync.Once
	targetErr, target9Err   error
)

// WithMySQLTarget is a copy of e whose MySQLTarget is a server of flavor f: MariaDB (the
// second MariaDB, the default) or MySQL (the MySQL 9.7 server of the flavor axis).
func (e *Env) WithMySQLTarget(f Flavor) *Env {
	m := *e
	m.tgtFlavor = f
	return &m
}

// MySQLToMySQL9 runs fn with a MySQL 9.7 source and a MySQL 9.7 target (the same server, other
// databases), as the subtest "mysql-to-mysql". SLUICE_TEST_FLAVORS without mysql skips it.
func MySQLToMySQL9(t *testing.T, fn func(t *testing.T, env *Env)) {
	t.Helper()
	t.Run("mysql-to-mysql", func(t *testing.T) {
		fn(t, GetFlavor(t, MySQL).WithMySQLTarget(MySQL))
	})
}

// MySQLTargetFlavors runs fn as Flavors does (MariaDB and MySQL sources into the MariaDB
// target), then once more with a MySQL 9.7 source and target (MySQLToMySQL9).
func MySQLTargetFlavors(t *testing.T, fn func(t *testing.T, env *Env)) {
	t.Helper()
	Flavors(t, fn)
	MySQLToMySQL9(t, fn)
}

// MySQLTarget returns the MySQL target server. Without one it skips the test, or, when
// CI=true, fails it.
func (e *Env) MySQLTarget(t testing.TB) *MySQLTarget {
	t.Helper()
	fail := func(err error) {
		if InCI() {
			t.Fatalf("testenv: CI=true but no MySQL target server: %v", err)
		}
		t.Skipf("testenv: no MySQL target server (%v); `bash scripts/sandbox start` starts one on 127.0.0.1:13308 (MySQL 9.7: 13307)", err)
	}
	url, name, once, onceErr, flavor := e.mysqlTgt, "SLUICE_TEST_MYSQL_TARGET_ADMIN", &targetOnce, &targetErr, MariaDB
	if e.tgtFlavor == MySQL {
		url, name, once, onceErr, flavor = e.mysql9, "SLUICE_TEST_MYSQL9_ADMIN", &target9Once, &target9Err, MySQL
	}
	if url == "" {
		fail(fmt.Errorf("%s is not set", name))
	}
	admin, err := parseMySQLURL(url)
	if err != nil {
		fail(fmt.Errorf("%s: %w", name, err))
	}
	m := &MySQLTarget{admin: admin, user: mysqlURL{User: "sluice", Password: "sluice", Host: admin.Host, Port: admin.Port},
		flavor: flavor}
	once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		db := m.open()
		defer db.Close()
		*onceErr = db.PingContext(ctx)
	})
	if *onceErr != nil {
		fail(fmt.Errorf("%s: %w", admin.Redacted(), *onceErr))
	}
	return m
}

// IsMySQL reports whether the target is MySQL (not MariaDB).
func (m *MySQLTarget) IsMySQL() bool { return m.flavor == MySQL }

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

// MariaDBAndMySQL9 runs fn twice: a MariaDB source into the MariaDB target (subtest "mariadb",
// what Get gives) and a MySQL 9.7 source into a MySQL 9.7 target ("mysql-to-mysql").
func MariaDBAndMySQL9(t *testing.T, fn func(t *testing.T, env *Env)) {
	t.Helper()
	t.Run(string(MariaDB), func(t *testing.T) { fn(t, GetFlavor(t, MariaDB)) })
	MySQLToMySQL9(t, fn)
}
