package snapshot

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"testing"

	"github.com/sluice-db/sluice/internal/config"
	mysink "github.com/sluice-db/sluice/internal/sink/mysql"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestMySQLTargetFreshRocksDB: a snapshot with --target-engine ROCKSDB into
// a server where sluice has never run, so that its state tables are created
// as MyRocks tables too. The load sessions run without unique checks, and
// MyRocks refuses INSERT … ON DUPLICATE KEY UPDATE without them (error
// 4058): the state writes must turn them on (the shared sandbox target,
// whose state tables were first created as InnoDB, cannot show this).
func TestMySQLTargetFreshRocksDB(t *testing.T) {
	if _, err := os.Stat("/usr/lib/mysql/plugin/ha_rocksdb.so"); err != nil {
		if testenv.InCI() {
			t.Fatalf("CI=true but MyRocks is not installed: %v", err)
		}
		t.Skip("MyRocks (mariadb-plugin-rocksdb) is not installed")
	}
	env := testenv.Get(t)
	if env.IsMySQL() {
		t.Skip("MariaDB source only")
	}
	db := env.NewDatabase(t, "mysnap_fresh_rocks")
	my := env.MySQL(t, db)
	mustExec(t, my, "CREATE TABLE a (id INT PRIMARY KEY, v VARCHAR(20), u INT, UNIQUE KEY uu (u))")
	mustExec(t, my, "INSERT INTO a SELECT seq, CONCAT('v', seq), seq FROM seq_1_to_3000")
	mustExec(t, my, "CREATE TABLE b (x INT, y VARCHAR(10))")
	mustExec(t, my, "INSERT INTO b VALUES (1, 'a'), (1, 'a'), (2, NULL)")

	admin := testenv.StartMariaDB(t, "--plugin-load-add=ha_rocksdb.so")
	m, err := config.ParseSource(admin + "copy")
	if err != nil {
		t.Fatal(err)
	}
	opts := testOptions(t, env, db)
	opts.Target = mysink.NewEngine(m, "ROCKSDB")
	opts.ChunkRows = 500
	if _, err := Run(context.Background(), opts); err != nil {
		t.Fatalf("snapshot into a fresh MyRocks target: %v", err)
	}
	dst, err := sql.Open("mysql", m.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	var engine string
	if err := dst.QueryRow("SELECT ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'sluice' AND TABLE_NAME = 'snapshot_chunk'").Scan(&engine); err != nil || engine != "ROCKSDB" {
		t.Fatalf("the state table's engine is %q (%v), want ROCKSDB: the test would not show the failure", engine, err)
	}
	for _, q := range []string{"SELECT id, v, u FROM %s.a ORDER BY id", "SELECT x, y, COUNT(*) FROM %s.b GROUP BY x, y ORDER BY x, y"} {
		a := fmt.Sprint(testenv.MySQLRows(t, my, fmt.Sprintf(q, "`"+db+"`")))
		b := fmt.Sprint(testenv.MySQLRows(t, dst, fmt.Sprintf(q, "copy")))
		if a != b {
			t.Errorf("%s: the copy differs from the source", q)
		}
	}
}
