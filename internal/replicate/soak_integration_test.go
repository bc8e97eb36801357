package replicate

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestSourceSurvivesRestartsUnderDDLChurn: sluice starts and stops its
// replicator again and again (schema load, charset tables, binlog stream,
// catch-up) while other connections create, alter and drop tables, in
// another database and in scope. The source must stay up: the same server
// process throughout, answering after every round. (MariaDB 10.11 once
// crashed with signal 11 in information_schema temporary tables under such a
// churn, running sluice's unscoped charset scan of every column.)
func TestSourceSurvivesRestartsUnderDDLChurn(t *testing.T) {
	// Its own source server: should MariaDB crash after all, the shared one
	// the other tests use stays up.
	env := testenv.Get(t)
	u, err := url.Parse(testenv.StartMariaDB(t))
	if err != nil {
		t.Fatal(err)
	}
	open := func(db string) *sql.DB {
		conn, err := sql.Open("mysql", "root:root@tcp("+u.Host+")/"+db+"?multiStatements=true")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = conn.Close() })
		return conn
	}
	admin := open("")
	const db, other = "soak", "soakother"
	if _, err := admin.Exec("CREATE DATABASE " + db + "; CREATE DATABASE " + other + `;
		CREATE TABLE soak.t (id INT PRIMARY KEY, v VARCHAR(20) CHARACTER SET latin1);
		INSERT INTO soak.t VALUES (1, 'a')`); err != nil {
		t.Fatal(err)
	}
	g := &rig{t: t, env: env, db: db, my: open(db), pg: env.PG(t), stream: testenv.UniqueName("soak")}
	if g.src, err = config.ParseSource("mysql://sluice:sluice@" + u.Host + "/" + db); err != nil {
		t.Fatal(err)
	}
	if g.dst, err = config.ParseTarget(env.TargetURL()); err != nil {
		t.Fatal(err)
	}
	g.forgetStream(g.stream)
	t.Cleanup(func() { _, _ = g.pg.Exec(context.Background(), `DROP SCHEMA IF EXISTS "soak" CASCADE`) })
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
			time.Sleep(10 * time.Millisecond) // a busy application's DDL, not a flood
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
	go churn(other, open(other), "o")
	go churn(other, open(other), "p")

	o := g.options()
	for round := 1; round <= 5; round++ {
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
	if n := g.count("t"); n != 6 {
		t.Errorf("replicated %d rows of t, want 6", n)
	}
}
