package cli

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestCloudUserWithoutGTIDs: TestCloudUserProfile's managed-service user
// (SELECT and LOCK TABLES on the database, REPLICATION SLAVE and CLIENT; no
// SUPER, RELOAD, FILE, PROCESS) on a MySQL 9.7 source with gtid_mode=OFF,
// as many RDS and Cloud SQL instances run: migrate under a write load and
// replicate position by binlog file:pos, and the target equals the source
// value for value; verify agrees.
func TestCloudUserWithoutGTIDs(t *testing.T) {
	srv := testenv.StartMySQL9Server(t, "--gtid-mode=OFF", "--enforce-gtid-consistency=OFF")
	env := testenv.Get(t)
	db := testenv.UniqueName("cloud_nogtid")
	admin := srv.DB(t, "")
	const user, pw = "cloudnogtid", "cloud-pw"
	var values []string
	for i := 1; i <= 600; i++ {
		values = append(values, fmt.Sprintf("(%d, 1000, 'n%d')", i, i))
	}
	for _, q := range []string{
		"CREATE DATABASE " + db,
		"CREATE TABLE " + db + ".acct (id INT PRIMARY KEY, balance BIGINT NOT NULL, note VARCHAR(50))",
		"INSERT INTO " + db + ".acct VALUES " + strings.Join(values, ","),
		"CREATE USER '" + user + "'@'%' IDENTIFIED BY '" + pw + "'",
		"GRANT SELECT, LOCK TABLES ON `" + db + "`.* TO '" + user + "'@'%'",
		"GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO '" + user + "'@'%'",
	} {
		if _, err := admin.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var mode string
	if err := admin.QueryRow("SELECT @@gtid_mode").Scan(&mode); err != nil || mode != "OFF" {
		t.Fatalf("gtid_mode %q (%v), want OFF", mode, err)
	}
	src := fmt.Sprintf("mysql://%s:%s@127.0.0.1:%d/%s", user, pw, srv.Port, db)
	stream := testenv.UniqueName("nogtid")
	forgetStream(t, env, stream)
	my := srv.DB(t, db)
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // transfers and inserts until stopped
		defer wg.Done()
		rng := rand.New(rand.NewPCG(3, 4))
		for next := 601; !stop.Load(); next++ {
			a, b := 1+rng.IntN(600), 1+rng.IntN(600)
			_, _ = my.Exec("UPDATE acct SET balance = balance - 1 WHERE id = ?", a)
			_, _ = my.Exec("UPDATE acct SET balance = balance + 1, note = ? WHERE id = ?", fmt.Sprintf("t%d", next), b)
			_, _ = my.Exec("INSERT INTO acct VALUES (?, 0, 'new')", next)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	done := make(chan string, 1)
	go func() {
		code, out, errOut := runCLI(ctx, "migrate", "--source", src, "--target", env.TargetURL(), "--include", db,
			"--stream", stream, "--workers", "2", "--chunk-rows", "200", "--until-caught-up", "--log-level", "warn")
		done <- fmt.Sprintf("%d\n%s%s", code, out, errOut)
	}()
	time.Sleep(3 * time.Second)
	stop.Store(true)
	wg.Wait()
	if res := <-done; !strings.HasPrefix(res, "0\n") {
		t.Fatalf("migrate as a cloud user from a source without GTIDs: exit %s", res)
	}
	if code, out, errOut := runCLI(ctx, "replicate", "--source", src, "--target", env.TargetURL(), "--include", db,
		"--stream", stream, "--until-caught-up", "--log-level", "warn"); code != 0 {
		t.Fatalf("replicate --until-caught-up: exit %d\n%s%s", code, out, errOut)
	}
	want := testenv.MySQLRows(t, my, "SELECT CONCAT_WS('|', id, balance, note) FROM acct ORDER BY id")
	rows, err := env.PG(t).Query(ctx, `SELECT concat_ws('|', id, balance, note) FROM "`+db+`".acct ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	rows.Close()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("target differs from the source: %d vs %d rows", len(got), len(want))
	}
	t.Logf("%d rows equal (gtid_mode=OFF, positions by file:pos)", len(want))
	if code, out, errOut := runCLI(ctx, "verify", "--source", src, "--target", env.TargetURL(), "--include", db,
		"--stream", stream, "--log-level", "warn"); code != 0 {
		t.Fatalf("verify: exit %d\n%s%s", code, out, errOut)
	}
}
