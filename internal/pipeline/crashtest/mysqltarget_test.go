package crashtest

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestKillNineIntoMySQLTarget: while a mixed write load runs on the source
// (small transactions, keyless rows, a 20,000-row transaction every few
// seconds that apply receives in fragments, a schema change), `sluice
// replicate` into a MySQL target is killed with SIGKILL at random moments
// and restarted each time. At the end every table of the target equals the
// source byte for byte: nothing lost, nothing applied twice. MariaDB into
// the MariaDB target, and MySQL 9.7 into a MySQL 9.7 target.
func TestKillNineIntoMySQLTarget(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end crash test")
	}
	testenv.MariaDBAndMySQL9(t, testKillNineIntoMySQLTarget)
}

func testKillNineIntoMySQLTarget(t *testing.T, env *testenv.Env) {
	target := env.MySQLTarget(t)
	db := env.NewDatabase(t, "ms_crash")
	tdb := db + "_r"
	target.DropAtEnd(t, tdb)
	admin := target.Admin(t)
	stream := testenv.UniqueName("crash")
	t.Cleanup(func() { _ = mysqlstate.Delete(context.Background(), admin, stream) })
	src := env.MySQL(t, db)
	src.SetMaxOpenConns(6)
	status := testenv.MySQLTexts(t, src, env.BinlogStatusSQL())
	logPath := filepath.Join(t.TempDir(), "sluice.log")
	bin := testenv.SluiceBinary(t)
	args := []string{"replicate", "--source", env.SourceURL(db), "--target", target.URL(tdb), "--stream", stream,
		"--workers", "4", "--max-txn-memory", "16MB", "--log-level", "info"}
	run := func(extra ...string) *exec.Cmd {
		cmd := testenv.SluiceCommand(bin, append(append([]string{}, args...), extra...)...)
		f, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		cmd.Stdout, cmd.Stderr = f, f
		return cmd
	}
	tail := func() string { b, _ := os.ReadFile(logPath); return testenv.Tail(string(b), 30) }
	// Record the start while the database is empty.
	if out := run("--start-position", status[0][0].String+":"+status[0][1].String, "--until-caught-up"); out.Run() != nil {
		t.Fatalf("first run: %s", tail())
	}
	for _, q := range []string{
		"CREATE TABLE acct (id INT PRIMARY KEY, u INT, n INT NOT NULL DEFAULT 0, v VARCHAR(40), UNIQUE KEY (u))",
		"CREATE TABLE items (id BIGINT AUTO_INCREMENT PRIMARY KEY, grp INT, payload TEXT, amount DECIMAL(12,2))",
		"CREATE TABLE logs (a INT, b VARCHAR(10), c INT)",
	} {
		if _, err := src.Exec(q); err != nil {
			t.Fatal(err)
		}
	}

	ctx, stopLoad := context.WithCancel(context.Background())
	defer stopLoad()
	var committed atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, 9))
			for ctx.Err() == nil {
				if mysqlTargetLoadTxn(src, rng) == nil {
					committed.Add(1)
				}
			}
		}(uint64(w))
	}
	wg.Add(1)
	go func() { // a large transaction every few seconds, and one schema change
		defer wg.Done()
		for i := 0; ctx.Err() == nil; i++ {
			if i == 2 {
				_, _ = src.Exec("ALTER TABLE acct ADD COLUMN extra VARCHAR(10) DEFAULT 'e'")
			}
			_, _ = src.Exec(env.SQL("INSERT INTO items (grp, payload, amount) SELECT seq % 50, REPEAT('p', 900), seq FROM seq_1_to_20000"))
			select {
			case <-ctx.Done():
			case <-time.After(2 * time.Second):
			}
		}
	}()

	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 3))
	for k := 1; k <= 8; k++ {
		cmd := run()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		time.Sleep(time.Duration(1000+rng.IntN(2500)) * time.Millisecond)
		select {
		case err := <-exited:
			t.Fatalf("kill %d: sluice exited on its own: %v\n%s", k, err, tail())
		default:
		}
		_ = cmd.Process.Kill()
		<-exited
		st, err := mysqlstate.Load(context.Background(), admin, stream, binlogpos.Decode)
		if err != nil || st == nil {
			t.Fatalf("checkpoint: %v %v", st, err)
		}
		t.Logf("kill %d: checkpoint %s schema version %d, %d source transactions so far", k, st.Position, st.SchemaVersion, committed.Load())
	}
	stopLoad()
	wg.Wait()
	cmd := run("--until-caught-up")
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("replicate --until-caught-up: %v\n%s", err, tail())
		}
	case <-time.After(5 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatalf("replicate --until-caught-up did not finish\n%s", tail())
	}
	for _, table := range []string{"acct", "items", "logs"} {
		a, b := hexRows(t, src, db, table), hexRows(t, admin, tdb, table)
		if !slices.Equal(a, b) {
			t.Errorf("table %s: source %d rows, target %d rows differ", table, len(a), len(b))
		}
	}
}

func mysqlTargetLoadTxn(db *sql.DB, rng *rand.Rand) error {
	tx, err := db.Begin()
	if err != nil {
		time.Sleep(10 * time.Millisecond)
		return err
	}
	for n := 1 + rng.IntN(5); n > 0; n-- {
		id := 1 + rng.IntN(2000)
		var q string
		var args []any
		switch rng.IntN(10) {
		case 0, 1:
			q, args = "INSERT INTO acct (id, u, v) VALUES (?, ?, 'new')", []any{id, rng.IntN(40000)}
		case 2:
			q, args = "UPDATE acct SET n = n + 1, v = ? WHERE id = ?", []any{fmt.Sprint("v", rng.IntN(1e6)), id}
		case 3:
			q, args = "UPDATE acct SET id = ? WHERE id = ?", []any{1 + rng.IntN(2000), id}
		case 4:
			q, args = "DELETE FROM acct WHERE id = ?", []any{id}
		case 5:
			q, args = "INSERT INTO items (grp, payload, amount) VALUES (?, ?, ?)", []any{rng.IntN(50), strings.Repeat("x", rng.IntN(200)), rng.IntN(1e6)}
		case 6:
			q, args = "DELETE FROM items WHERE id = ?", []any{1 + rng.IntN(5000)}
		case 7:
			q, args = "INSERT INTO logs VALUES (?, ?, ?)", []any{rng.IntN(7), fmt.Sprint("b", rng.IntN(3)), rng.IntN(5)}
		case 8:
			q, args = "DELETE FROM logs WHERE a = ? LIMIT 1", []any{rng.IntN(7)}
		default:
			q, args = "UPDATE logs SET c = c + 1 WHERE a = ? LIMIT 1", []any{rng.IntN(7)}
		}
		if _, err := tx.Exec(q, args...); err != nil {
			_ = tx.Rollback()
			return err
		}
	}
	return tx.Commit()
}

// hexRows reads every row of db.table as the HEX of each column's bytes,
// sorted (a multiset).
func hexRows(t *testing.T, db *sql.DB, schema, table string) []string {
	t.Helper()
	cols := testenv.MySQLTexts(t, db, `SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`, schema, table)
	var exprs []string
	for _, c := range cols {
		exprs = append(exprs, "IFNULL(HEX(CAST(`"+c[0].String+"` AS BINARY)), 'NULL')")
	}
	var out []string
	for _, r := range testenv.MySQLTexts(t, db, "SELECT CONCAT_WS('|', "+strings.Join(exprs, ", ")+") FROM `"+schema+"`.`"+table+"`") {
		out = append(out, r[0].String)
	}
	slices.Sort(out)
	return out
}
