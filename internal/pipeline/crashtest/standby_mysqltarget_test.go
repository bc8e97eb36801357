package crashtest

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestStandbyTakesOverIntoMySQLTarget is TestStandbyTakesOver into a MySQL
// target: MariaDB into the MariaDB target, MySQL 9.7 into a MySQL 9.7
// target; the fence there is GET_LOCK, a frozen replicator's connections
// are ended with KILL.
func TestStandbyTakesOverIntoMySQLTarget(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end standby test takes minutes")
	}
	testenv.MariaDBAndMySQL9(t, testStandbyIntoMySQLTarget)
}

func testStandbyIntoMySQLTarget(t *testing.T, env *testenv.Env) {
	target := env.MySQLTarget(t)
	db := env.NewDatabase(t, "ms_standby")
	tdb := db + "_r"
	target.DropAtEnd(t, tdb)
	admin := target.Admin(t)
	stream := testenv.UniqueName("standby")
	t.Cleanup(func() { _ = mysqlstate.Delete(context.Background(), admin, stream) })
	src := env.MySQL(t, db)
	src.SetMaxOpenConns(4)
	status := testenv.MySQLTexts(t, src, env.BinlogStatusSQL())
	logPath := logFile(t)
	common := []string{"--source", env.SourceURL(db), "--target", target.URL(tdb), "--stream", stream, "--workers", "2", "--log-level", "info"}
	// Record the start while the database is empty.
	first := append([]string{"replicate", "--start-position", status[0][0].String + ":" + status[0][1].String, "--until-caught-up"}, common...)
	if code := runToEnd(t, logPath, 2*time.Minute, first...); code != 0 {
		t.Fatalf("first run: exit %d\n%s", code, logTail(logPath, 30))
	}
	for _, q := range []string{
		"CREATE TABLE acct (id INT PRIMARY KEY, u INT, n INT NOT NULL DEFAULT 0, v VARCHAR(40), UNIQUE KEY (u))",
		"CREATE TABLE items (id BIGINT AUTO_INCREMENT PRIMARY KEY, grp INT, payload TEXT, amount DECIMAL(12,2))",
		"CREATE TABLE logs (a INT, b VARCHAR(10), c INT)",
	} {
		mustExec(t, src, q)
	}
	ctx, stopLoad := context.WithCancel(context.Background())
	defer stopLoad()
	var committed atomic.Int64
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, 11))
			for ctx.Err() == nil {
				if mysqlTargetLoadTxn(src, rng) == nil {
					committed.Add(1)
				}
			}
		}(uint64(w))
	}
	g := &standbyRig{t: t, logPath: logPath, committed: committed.Load,
		args: append([]string{"replicate", "--standby"}, common...),
		owner: func() string {
			var owner string
			_ = admin.QueryRow("SELECT run FROM sluice.stream_owner WHERE stream = ?", stream).Scan(&owner)
			return owner
		}}
	g.rounds(otherScope(db + ".logs"))
	stopLoad()
	wg.Wait()
	g.stop()
	catchUp := append([]string{"replicate", "--until-caught-up"}, common...)
	if code := runToEnd(t, logPath, 5*time.Minute, catchUp...); code != 0 {
		t.Fatalf("replicate --until-caught-up: exit %d\n%s", code, logTail(logPath, 40))
	}
	for _, table := range []string{"acct", "items", "logs"} {
		a, b := hexRows(t, src, db, table), hexRows(t, admin, tdb, table)
		if !slices.Equal(a, b) {
			t.Errorf("table %s: source %d rows, target %d rows differ", table, len(a), len(b))
		} else {
			t.Logf("%s: %d rows equal", table, len(a))
		}
	}
}
