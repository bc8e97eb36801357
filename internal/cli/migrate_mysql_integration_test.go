package cli

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestMigrateIntoMySQLTargetThenVerify is the MySQL→MySQL path end to end
// through the binary's commands, as the switchover runbook
// (docs/replication.md "Switching the application to the replica") does it:
// migrate (snapshot, then replicate) into another server's database while
// writes run on the source; writes stopped; a final catch-up; verify equal
// (exit 0); status says no replicator is connected; the AUTO_INCREMENT
// counters are the source's, so the application's next insert on the replica
// gets the id the source would have given. Then damage on the target is
// found (exit 1) and repaired (exit 0 after).
// It runs MariaDB into the MariaDB target and MySQL 9.7 into a MySQL 9.7
// target (another database of the same server).
func TestMigrateIntoMySQLTargetThenVerify(t *testing.T) {
	testenv.MariaDBAndMySQL9(t, testMigrateIntoMySQLTargetThenVerify)
}

func testMigrateIntoMySQLTargetThenVerify(t *testing.T, env *testenv.Env) {
	tgt := env.MySQLTarget(t)
	db := env.NewDatabase(t, "cli_mig_my")
	tdb := db + "_copy"
	tgt.DropAtEnd(t, tdb)
	admin := tgt.Admin(t)
	stream := testenv.UniqueName("migmy")
	t.Cleanup(func() { _ = mysqlstate.Delete(context.Background(), admin, stream) })
	my := env.MySQL(t, db)
	if _, err := my.Exec(env.SQL(`CREATE TABLE parent (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(30) CHARACTER SET utf8mb4 NOT NULL,
			amount DECIMAL(12,3), at DATETIME(6), doc JSON, UNIQUE KEY uname (name));
		CREATE TABLE child (id BIGINT UNSIGNED PRIMARY KEY, parent_id INT NOT NULL, note TEXT CHARACTER SET latin1, bin VARBINARY(16),
			kind ENUM('a','b','c'), KEY kp (parent_id), CONSTRAINT fk FOREIGN KEY (parent_id) REFERENCES parent (id) ON DELETE CASCADE);
		CREATE TABLE nokey (a INT, b VARCHAR(10));
		INSERT INTO parent (name, amount, at, doc) SELECT CONCAT('p', seq, 'ü'), seq * 1.5, '2024-01-02 03:04:05.123456' + INTERVAL seq MINUTE,
			JSON_OBJECT('n', seq) FROM seq_1_to_200;
		INSERT INTO child SELECT seq, 1 + seq % 200, REPEAT('é', seq % 7), UNHEX(LPAD(HEX(seq), 8, '0')), ELT(1 + seq % 3, 'a', 'b', 'c') FROM seq_1_to_1000;
		INSERT INTO nokey VALUES (1, 'x'), (1, 'x'), (NULL, NULL)`)); err != nil {
		t.Fatal(err)
	}

	// Writes on the source for 4 s, from before the snapshot until well into
	// replication (--until-caught-up needs the source to pause).
	ctx, stopWrites := context.WithTimeout(context.Background(), 4*time.Second)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		rng := rand.New(rand.NewSource(7))
		next := 2000
		for ctx.Err() == nil {
			var q string
			switch rng.Intn(4) {
			case 0:
				next++
				q = fmt.Sprintf("INSERT INTO child VALUES (%d, %d, 'new', NULL, 'b')", next, 1+rng.Intn(200))
			case 1:
				q = fmt.Sprintf("UPDATE parent SET amount = amount + 1, doc = JSON_SET(doc, '$.u', %d) WHERE id = %d", rng.Intn(100), 1+rng.Intn(200))
			case 2:
				q = fmt.Sprintf("DELETE FROM child WHERE id = %d", 1+rng.Intn(1000))
			default:
				q = fmt.Sprintf("INSERT INTO nokey VALUES (%d, 'w')", rng.Intn(5))
			}
			if _, err := my.Exec(q); err != nil {
				t.Errorf("write %q: %v", q, err)
				return
			}
			time.Sleep(2 * time.Millisecond)
		}
	}()
	time.Sleep(300 * time.Millisecond)
	runCtx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	method := "lock-free"
	if env.IsMySQL() {
		method = "auto" // MySQL has no lock-free consistent point
	}
	code, _, errOut := runCLI(runCtx, "migrate", "--source", env.SourceURL(db), "--target", tgt.URL(tdb), "--stream", stream,
		"--target-engine", "InnoDB", "--workers", "2", "--chunk-rows", "100", "--snapshot-method", method, "--until-caught-up", "--log-level", "warn")
	stopWrites()
	wg.Wait()
	if code != 0 || runCtx.Err() != nil {
		t.Fatalf("migrate into a MySQL target: exit %d (%v)\n%s", code, runCtx.Err(), errOut)
	}
	// Whatever the source wrote after migrate saw it caught up.
	code, _, errOut = runCLI(runCtx, "replicate", "--source", env.SourceURL(db), "--target", tgt.URL(tdb), "--stream", stream,
		"--until-caught-up", "--log-level", "warn")
	if code != 0 {
		t.Fatalf("final catch-up: exit %d\n%s", code, errOut)
	}
	code, out, errOut := runCLI(runCtx, "verify", "--source", env.SourceURL(db), "--target", tgt.URL(tdb), "--log-level", "warn")
	if code != 0 {
		t.Fatalf("verify after migrate: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut = runCLI(runCtx, "status", "--target", tgt.URL(tdb), "--stream", stream); code != 0 || !strings.Contains(out, "not connected") {
		t.Fatalf("status before the switch: exit %d, want a replicator not connected\n%s%s", code, out, errOut)
	}
	// The switch: the application writes to the replica now.
	autoInc := func(q *sql.DB, schema string) int64 {
		var n sql.NullInt64
		if err := q.QueryRow("SELECT AUTO_INCREMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'parent'", schema).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n.Int64
	}
	srcNext := autoInc(my, db)
	if got := autoInc(admin, tdb); got < srcNext {
		t.Fatalf("AUTO_INCREMENT of parent: replica %d, source %d: the application's next insert would reuse an id", got, srcNext)
	}
	res, err := admin.Exec("INSERT INTO `" + tdb + "`.parent (name) VALUES ('after the switch')")
	if err != nil {
		t.Fatalf("the application's first insert on the replica: %v", err)
	}
	if id, _ := res.LastInsertId(); id != srcNext {
		t.Fatalf("the application's first insert on the replica got id %d, the source would have given %d", id, srcNext)
	}
	if _, err := admin.Exec("DELETE FROM `" + tdb + "`.parent WHERE name = 'after the switch'"); err != nil {
		t.Fatal(err)
	}

	if _, err := admin.Exec("UPDATE `" + tdb + "`.parent SET doc = JSON_OBJECT('n', -1) WHERE id = 5; DELETE FROM `" + tdb + "`.child WHERE id = 10 OR id = 11; " +
		"INSERT INTO `" + tdb + "`.nokey VALUES (99, 'extra')"); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut = runCLI(runCtx, "verify", "--source", env.SourceURL(db), "--target", tgt.URL(tdb), "--log-level", "warn"); code != 1 {
		t.Fatalf("verify of a damaged target: exit %d, want 1\n%s%s", code, out, errOut)
	}
	if code, out, errOut = runCLI(runCtx, "verify", "--source", env.SourceURL(db), "--target", tgt.URL(tdb), "--repair", "--log-level", "warn"); code != 0 && code != 1 {
		t.Fatalf("verify --repair: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut = runCLI(runCtx, "verify", "--source", env.SourceURL(db), "--target", tgt.URL(tdb), "--log-level", "warn"); code != 0 {
		t.Fatalf("verify after the repair: exit %d\n%s%s", code, out, errOut)
	}
	// Byte for byte, independently of verify.
	for _, q := range []string{
		"SELECT id, HEX(name), amount, at, doc FROM %s.parent ORDER BY id",
		"SELECT id, parent_id, HEX(note), HEX(bin), kind FROM %s.child ORDER BY id",
		"SELECT a, b, COUNT(*) FROM %s.nokey GROUP BY a, b ORDER BY a, b",
	} {
		src := testenv.MySQLRows(t, my, fmt.Sprintf(q, "`"+db+"`"))
		dst := testenv.MySQLRows(t, admin, fmt.Sprintf(q, "`"+tdb+"`"))
		if fmt.Sprint(src) != fmt.Sprint(dst) {
			t.Errorf("%s: source and target differ (%d vs %d rows)", q, len(src), len(dst))
		}
	}
}
