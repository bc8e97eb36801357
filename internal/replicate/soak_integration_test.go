package replicate

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"testing"
)

// TestSourceSurvivesRestartsUnderDDLChurn: sluice starts and stops its
// replicator again and again (schema load, charset tables, binlog stream,
// catch-up) while other connections create, alter and drop tables, in
// another database and in scope. The source must stay up: the same server
// process throughout, answering after every round. (MariaDB 10.11 once
// crashed with signal 11 in information_schema temporary tables under such a
// churn, running sluice's unscoped charset scan of every column.)
func TestSourceSurvivesRestartsUnderDDLChurn(t *testing.T) {
	g := newRig(t, "soak", `CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20) CHARACTER SET latin1);
		INSERT INTO t VALUES (1, 'a')`)
	other := g.env.NewDatabase(t, "soakother")
	admin := g.env.MySQL(t, "")
	serverID := func() (pid string, uptime int64) {
		t.Helper()
		var name string
		if err := admin.QueryRow(`SHOW GLOBAL STATUS LIKE 'Uptime'`).Scan(&name, &uptime); err != nil {
			t.Fatalf("the source does not answer: %v", err)
		}
		if err := admin.QueryRow(`SELECT @@pid_file`).Scan(&pid); err != nil {
			t.Fatalf("the source does not answer: %v", err)
		}
		return pid, uptime
	}
	pid0, up0 := serverID()
	g.snapshot(g.stream, "")

	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	churn := func(db string, conn *sql.DB, tag string) {
		defer wg.Done()
		for i := 0; ctx.Err() == nil && i < 2000; i++ {
			name := fmt.Sprintf("churn_%s_%d", tag, i%5)
			for _, q := range []string{
				"CREATE TABLE IF NOT EXISTS `" + db + "`.`" + name + "` (id INT PRIMARY KEY, c VARCHAR(10) CHARACTER SET cp1251)",
				"ALTER TABLE `" + db + "`.`" + name + "` ADD COLUMN x INT",
				"DROP TABLE IF EXISTS `" + db + "`.`" + name + "`",
			} {
				if _, err := conn.ExecContext(ctx, q); err != nil && ctx.Err() == nil {
					t.Errorf("churn %s: %v", q, err)
					return
				}
			}
		}
	}
	wg.Add(2)
	go churn(other, g.env.MySQL(t, other), "o")
	go churn(other, g.env.MySQL(t, other), "p")

	o := g.options()
	for round := 1; round <= 6; round++ {
		g.exec(fmt.Sprintf("INSERT INTO t VALUES (%d, 'r%d')", round+1, round))
		g.catchUp(o)
		if _, up := serverID(); up < up0 {
			t.Fatalf("round %d: the source restarted (uptime %d < %d)", round, up, up0)
		}
	}
	stop()
	wg.Wait()
	if pid, up := serverID(); pid != pid0 || up < up0 {
		t.Fatalf("the source restarted during the soak (pid file %s, uptime %d, was %s, %d)", pid, up, pid0, up0)
	}
	if n := g.count("t"); n != 7 {
		t.Errorf("replicated %d rows of t, want 7", n)
	}
}
