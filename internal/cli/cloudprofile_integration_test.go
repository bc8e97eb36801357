package cli

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestCloudUserProfile: with only a managed service's privileges, migrate
// (snapshot, then replicate) copies a source under write load, replicate
// continues, verify finds both sides equal, and every row read back is the
// source's. MariaDB needs no lock privilege (the lock-free snapshot); MySQL
// needs LOCK TABLES on the database (what RDS and Cloud SQL grant), and
// without it the snapshot refuses, exit 2, naming that grant. A user
// without REPLICATION SLAVE is refused before anything is written.
func TestCloudUserProfile(t *testing.T) { testenv.Flavors(t, testCloudUserProfile) }

func testCloudUserProfile(t *testing.T, env *testenv.Env) {
	db := env.NewDatabase(t, "cli_cloud")
	my := env.MySQL(t, db)
	if _, err := my.Exec(env.SQL(`CREATE TABLE acct (id INT PRIMARY KEY, balance BIGINT NOT NULL, note VARCHAR(50));
		CREATE TABLE log (id BIGINT AUTO_INCREMENT PRIMARY KEY, acct INT, delta INT, at DATETIME(6));
		INSERT INTO acct SELECT seq, 1000, CONCAT('n', seq) FROM seq_1_to_2000`)); err != nil {
		t.Fatal(err)
	}
	global, extra := env.CloudGrants()
	_, cloud := env.CloudUser(t, my, db, global, extra...)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	pg := env.PG(t)

	refuseWithoutReplicationSlave(ctx, t, env, my, db)
	if env.IsMySQL() {
		refuseWithoutLockTables(ctx, t, env, my, db)
	}

	stream := testenv.UniqueName("cloud")
	forgetStream(t, env, stream)
	stop, writes, waitLoad := cloudLoad(t, my)
	type result struct {
		code        int
		out, errOut string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errOut := runCLI(ctx, "migrate", "--source", cloud, "--target", env.TargetURL(),
			"--include", db, "--stream", stream, "--workers", "2", "--chunk-rows", "300", "--until-caught-up", "--log-level", "warn")
		done <- result{code, out, errOut}
	}()
	// The load goes on until replication has applied some of it.
	for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		var n int
		_ = pg.QueryRow(ctx, `SELECT count(*) FROM sluice.checkpoint WHERE stream = $1 AND schema_version >= 1`, stream).Scan(&n)
		if n == 1 {
			break
		}
	}
	time.Sleep(1500 * time.Millisecond)
	stop.Store(true)
	waitLoad()
	res := <-done
	code, out, errOut := res.code, res.out, res.errOut
	if code != 0 {
		t.Fatalf("migrate as a cloud user: exit %d:\n%s\n%s", code, out, errOut)
	}
	if strings.Contains(errOut, "cloud-pw") {
		t.Errorf("the output shows the password:\n%s", errOut)
	}
	if code, out, errOut := runCLI(ctx, "replicate", "--source", cloud, "--target", env.TargetURL(),
		"--include", db, "--stream", stream, "--workers", "2", "--until-caught-up", "--log-level", "warn"); code != 0 {
		t.Fatalf("replicate as a cloud user: exit %d:\n%s\n%s", code, out, errOut)
	}
	if code, out, errOut := runCLI(ctx, "verify", "--source", cloud, "--target", env.TargetURL(),
		"--include", db, "--stream", stream, "--log-level", "warn"); code != 0 {
		t.Fatalf("verify as a cloud user: exit %d:\n%s\n%s", code, out, errOut)
	}
	t.Logf("%d write transactions during the migration", writes.Load())
	// Every value of both tables (PostgreSQL prints microseconds without
	// trailing zeros: both sides format them).
	for _, c := range []struct {
		my, pg  string
		minRows int
	}{
		{"SELECT id, balance, note FROM acct ORDER BY id", "SELECT id, balance, note FROM %s.acct ORDER BY id", 2000},
		{"SELECT id, acct, delta, DATE_FORMAT(at, '%Y-%m-%d %H:%i:%s.%f') FROM log ORDER BY id",
			"SELECT id, acct, delta, to_char(at, 'YYYY-MM-DD HH24:MI:SS.US') FROM %s.log ORDER BY id", int(min(writes.Load(), 20))},
	} {
		src := testenv.MySQLRows(t, my, c.my)
		dst := testenv.PGRows(t, pg, strings.Replace(c.pg, "%s", pgx.Identifier{db}.Sanitize(), 1))
		if len(src) < c.minRows || !reflect.DeepEqual(src, dst) {
			t.Errorf("%s: source %d rows, target %d rows, equal=%v", c.my, len(src), len(dst), reflect.DeepEqual(src, dst))
			for i := range min(len(src), len(dst)) {
				if src[i] != dst[i] {
					t.Errorf("first difference: source %q, target %q", src[i], dst[i])
					break
				}
			}
		}
	}
}

// cloudLoad moves balances and logs each move until stop is set.
func cloudLoad(t *testing.T, my *sql.DB) (*atomic.Bool, *atomic.Int64, func()) {
	var stop atomic.Bool
	var writes atomic.Int64
	var wg sync.WaitGroup
	var loadErr atomic.Value
	wg.Add(1)
	go func() {
		defer wg.Done()
		rng := rand.New(rand.NewPCG(24, 2))
		for !stop.Load() {
			a, b, d := rng.IntN(2000)+1, rng.IntN(2000)+1, rng.IntN(100)
			tx, err := my.Begin()
			if err == nil {
				_, err = tx.Exec("UPDATE acct SET balance = balance - ?, note = ? WHERE id = ?", d, fmt.Sprint("to ", b), a)
			}
			if err == nil {
				_, err = tx.Exec("UPDATE acct SET balance = balance + ? WHERE id = ?", d, b)
			}
			if err == nil {
				_, err = tx.Exec("INSERT INTO log (acct, delta, at) VALUES (?, ?, NOW(6))", a, d)
			}
			if err == nil {
				err = tx.Commit()
			} else {
				_ = tx.Rollback()
			}
			if err != nil {
				loadErr.Store(err)
				return
			}
			writes.Add(1)
			time.Sleep(2 * time.Millisecond)
		}
	}()
	time.Sleep(200 * time.Millisecond) // the load runs before the snapshot starts
	return &stop, &writes, func() {
		wg.Wait()
		if err, _ := loadErr.Load().(error); err != nil {
			t.Fatalf("write load: %v", err)
		}
	}
}

// refuseWithoutReplicationSlave: migrate as a user who cannot read the
// binlog exits 2 naming the grant, and writes nothing to the target.
func refuseWithoutReplicationSlave(ctx context.Context, t *testing.T, env *testenv.Env, my *sql.DB, db string) {
	t.Helper()
	user, url := env.CloudUser(t, my, db, []string{env.ReplicationClient()}, "LOCK TABLES")
	stream := testenv.UniqueName("cloudno")
	forgetStream(t, env, stream)
	code, out, errOut := runCLI(ctx, "migrate", "--source", url, "--target", env.TargetURL(),
		"--include", db, "--stream", stream, "--until-caught-up", "--log-level", "warn")
	fix := "GRANT REPLICATION SLAVE ON *.* TO '" + user + "'"
	if code != 2 || !strings.Contains(errOut, fix) || !strings.Contains(errOut, "lacks REPLICATION SLAVE") {
		t.Errorf("migrate without REPLICATION SLAVE: want exit 2 naming %q, got %d:\n%s\n%s", fix, code, out, errOut)
	}
	assertNothingWritten(ctx, t, env, db, stream)
}

// refuseWithoutLockTables: on MySQL a snapshot needs the brief table lock
// (or RELOAD, which no managed service grants): refused, exit 2, naming
// GRANT LOCK TABLES, nothing written.
func refuseWithoutLockTables(ctx context.Context, t *testing.T, env *testenv.Env, my *sql.DB, db string) {
	t.Helper()
	_, url := env.CloudUser(t, my, db, []string{"REPLICATION SLAVE", env.ReplicationClient()})
	stream := testenv.UniqueName("cloudnl")
	forgetStream(t, env, stream)
	code, out, errOut := runCLI(ctx, "snapshot", "--source", url, "--target", env.TargetURL(),
		"--include", db, "--stream", stream, "--log-level", "warn")
	refusal := errOut[strings.LastIndex(errOut, "\nsluice: ")+1:] // the error, not the pre-flight's warning
	if code != 2 || !strings.Contains(refusal, "GRANT LOCK TABLES ON `"+db+"`.* TO the sluice user") {
		t.Errorf("snapshot on MySQL without LOCK TABLES: want exit 2 naming GRANT LOCK TABLES, got %d:\n%s\n%s", code, out, errOut)
	}
	assertNothingWritten(ctx, t, env, db, stream)
}

// assertNothingWritten: no table of db and no state of stream in the target.
func assertNothingWritten(ctx context.Context, t *testing.T, env *testenv.Env, db, stream string) {
	t.Helper()
	var tables, state int
	pg := env.PG(t)
	if err := pg.QueryRow(ctx, `SELECT count(*) FROM information_schema.tables WHERE table_schema = $1`, db).Scan(&tables); err != nil {
		t.Fatal(err)
	}
	// A refused command may not even have created sluice's state tables (a
	// fresh target): a table that does not exist holds no row of the stream.
	for _, tbl := range []string{"sluice.checkpoint", "sluice.snapshot_run"} {
		var exists bool
		if err := pg.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, tbl).Scan(&exists); err != nil {
			t.Fatal(err)
		}
		if !exists {
			continue
		}
		var n int
		if err := pg.QueryRow(ctx, `SELECT count(*) FROM `+tbl+` WHERE stream = $1`, stream).Scan(&n); err != nil {
			t.Fatal(err)
		}
		state += n
	}
	if tables != 0 || state != 0 {
		t.Errorf("a refused command wrote to the target: %d tables of %s, %d state rows of %s", tables, db, state, stream)
	}
}

// TestShortRetentionRefused: replicate and migrate refuse a source whose
// binlog retention (the sandbox's: two hours) is below
// --min-binlog-retention, exit 2 with the fix, before writing anything; the
// flag wins over SLUICE_MIN_BINLOG_RETENTION (testenv sets it for the
// sandbox).
func TestShortRetentionRefused(t *testing.T) {
	env := testenv.Get(t)
	db := env.NewDatabase(t, "cli_ret")
	my := env.MySQL(t, db)
	if _, err := my.Exec("CREATE TABLE t (id INT PRIMARY KEY); INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, cmd := range []string{"replicate", "migrate", "snapshot"} {
		stream := testenv.UniqueName("ret")
		forgetStream(t, env, stream)
		code, out, errOut := runCLI(ctx, cmd, "--source", env.SourceURL(db), "--target", env.TargetURL(),
			"--include", db, "--stream", stream, "--min-binlog-retention", "720h", "--log-level", "warn")
		for _, want := range []string{"shorter than --min-binlog-retention 720h", "binlog retention hours', 720)", "0 disables this check"} {
			if code != 2 || !strings.Contains(errOut, want) {
				t.Errorf("%s --min-binlog-retention 720h: want exit 2 naming %q, got %d:\n%s\n%s", cmd, want, code, out, errOut)
			}
		}
		assertNothingWritten(ctx, t, env, db, stream)
	}
}
