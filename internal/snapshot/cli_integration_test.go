package snapshot

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/testenv"
)

// baseArgs are the flags of a snapshot of database db into a test stream.
func baseArgs(t *testing.T, env *testenv.Env, db, stream string) []string {
	return []string{"snapshot", "--source", env.SourceURL(db), "--target", env.TargetURL(), "--include", db,
		"--stream", stream, "--log-format", "text"}
}

func testStream(t *testing.T, env *testenv.Env) string {
	stream := testenv.UniqueName("st")
	pg := env.PG(t)
	t.Cleanup(func() {
		for _, tbl := range []string{"snapshot_chunk", "snapshot_table", "snapshot_run", "checkpoint", "schema_history"} {
			pg.Exec(context.Background(), "DELETE FROM sluice."+tbl+" WHERE stream = $1", stream)
		}
	})
	return stream
}

// TestKillDashNineAndResume kills the sluice process (SIGKILL, by PID) in the
// middle of a multi-table snapshot, runs the same command again, and
// compares every table (row count and checksum) with an uninterrupted run.
func TestKillDashNineAndResume(t *testing.T) {
	env := testenv.Get(t)
	db := env.NewDatabase(t, "snap_kill")
	my := env.MySQL(t, db)
	for i := 1; i <= 4; i++ {
		mustExec(t, my, fmt.Sprintf(`CREATE TABLE t%d (id INT PRIMARY KEY, k VARCHAR(20) NOT NULL, v DOUBLE, d DATETIME(6), b BLOB, UNIQUE KEY (k));
			INSERT INTO t%d SELECT seq, CONCAT('k', seq), seq / 7, '2020-01-01' + INTERVAL seq SECOND, REPEAT(x'00ff', seq %% 50)
			FROM seq_1_to_%d`, i, i, 2000+i*500))
	}
	pg := env.PG(t)
	stream := testStream(t, env)
	args := append(baseArgs(t, env, db, stream), "--chunk-rows", "50", "--workers", "2")

	cmd, _, errOut := sluiceCmd(t, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var done, total int
	deadline := time.Now().Add(2 * time.Minute)
	for done < 25 {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("no progress in 2 minutes:\n%s", errOut)
		}
		time.Sleep(3 * time.Millisecond)
		pg.QueryRow(context.Background(), `SELECT count(*) FILTER (WHERE done), count(*) FROM sluice.snapshot_chunk WHERE stream = $1`, stream).Scan(&done, &total)
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL to this PID only
		t.Fatal(err)
	}
	cmd.Wait()
	pg.QueryRow(context.Background(), `SELECT count(*) FILTER (WHERE done), count(*) FROM sluice.snapshot_chunk WHERE stream = $1`, stream).Scan(&done, &total)
	var complete bool
	pg.QueryRow(context.Background(), `SELECT status = 'complete' FROM sluice.snapshot_run WHERE stream = $1`, stream).Scan(&complete)
	t.Logf("killed with %d of %d planned chunks copied", done, total)
	if complete || done == 0 {
		t.Fatalf("kill landed outside the copy (complete=%v, %d chunks done)", complete, done)
	}

	code, out, stderr := runSluice(t, append(args, "--json")...)
	if code != 0 {
		t.Fatalf("resumed run: exit %d\n%s", code, stderr)
	}
	var rep Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, out)
	}
	if !rep.Resumed || rep.Pass != 2 || rep.Tables != 4 {
		t.Errorf("resumed report: resumed=%v pass=%d tables=%d", rep.Resumed, rep.Pass, rep.Tables)
	}

	refStream := testStream(t, env)
	refArgs := append(baseArgs(t, env, db, refStream), "--schema-map", db+"="+db+"_ref", "--workers", "2")
	if code, _, stderr := runSluice(t, refArgs...); code != 0 {
		t.Fatalf("reference run: exit %d\n%s", code, stderr)
	}
	for i := 1; i <= 4; i++ {
		var srcCount int64
		if err := my.QueryRow(fmt.Sprintf("SELECT COUNT(*) FROM t%d", i)).Scan(&srcCount); err != nil {
			t.Fatal(err)
		}
		got, want := tableChecksum(t, pg, db, i), tableChecksum(t, pg, db+"_ref", i)
		if got != want || !strings.HasPrefix(got, fmt.Sprint(srcCount)+" ") {
			t.Errorf("t%d: resumed %s, uninterrupted %s, source %d rows", i, got, want, srcCount)
		}
	}
}

// tableChecksum is "rows md5" of a table's rows in key order.
func tableChecksum(t *testing.T, pg interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, schema string, i int) string {
	t.Helper()
	var n int64
	var sum *string
	q := fmt.Sprintf(`SELECT count(*), md5(string_agg(x::text, ',' ORDER BY id)) FROM %s.t%d x`, pgx.Identifier{schema}.Sanitize(), i)
	if err := pg.QueryRow(context.Background(), q).Scan(&n, &sum); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	if sum == nil {
		return fmt.Sprint(n)
	}
	return fmt.Sprintf("%d %s", n, *sum)
}

// TestBadInputExitsTwo checks the configuration errors: each exits 2 with a
// message naming the cause and the fix, and leaves nothing behind.
func TestBadInputExitsTwo(t *testing.T) {
	env := testenv.Get(t)
	db := env.NewDatabase(t, "snap_bad")
	my := env.MySQL(t, db)
	mustExec(t, my, "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10)); INSERT INTO t VALUES (1, 'a'), (2, 'b')")
	ctx := context.Background()
	pg := env.PG(t)
	stream := testStream(t, env)
	args := baseArgs(t, env, db, stream)

	t.Run("unknown include", func(t *testing.T) {
		code, _, stderr := runSluice(t, append(args, "--include", db+".nosuch")...)
		if code != 2 || !strings.Contains(stderr, "table "+db+".nosuch not found on the source") || !strings.Contains(stderr, "--include") {
			t.Errorf("exit %d, stderr:\n%s", code, stderr)
		}
		var n int
		pg.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname = $1`, db).Scan(&n)
		if n != 0 {
			t.Errorf("%d tables created in the target", n)
		}
	})

	t.Run("no privileges", func(t *testing.T) {
		user := testenv.UniqueName("nopriv")
		mustExec(t, my, "CREATE USER '"+user+"'@'%' IDENTIFIED BY 'pw'")
		t.Cleanup(func() { my.Exec("DROP USER '" + user + "'@'%'") })
		src := strings.Replace(env.SourceURL(db), "sluice:sluice@", user+":pw@", 1)
		a := append([]string{}, args...)
		a[2] = src
		code, _, stderr := runSluice(t, a...)
		if code != 2 || !strings.Contains(stderr, "GRANT SELECT") {
			t.Errorf("exit %d, stderr:\n%s", code, stderr)
		}
	})

	// A table the user made in the target, with other columns.
	target, err := pgx.Connect(ctx, env.TargetURL())
	if err != nil {
		t.Fatal(err)
	}
	defer target.Close(ctx)
	if _, err := target.Exec(ctx, `CREATE SCHEMA "`+db+`"; CREATE TABLE "`+db+`".t (x int)`); err != nil {
		t.Fatal(err)
	}
	t.Run("existing table with other columns", func(t *testing.T) {
		code, _, stderr := runSluice(t, args...)
		if code != 2 || !strings.Contains(stderr, "already exists with other columns") || !strings.Contains(stderr, "--drop-existing") {
			t.Errorf("exit %d, stderr:\n%s", code, stderr)
		}
		var runs int
		pg.QueryRow(ctx, `SELECT count(*) FROM sluice.snapshot_run WHERE stream = $1`, stream).Scan(&runs)
		if runs != 0 {
			t.Error("a run was recorded for a refused snapshot")
		}
	})
	t.Run("drop existing replaces it", func(t *testing.T) {
		code, _, stderr := runSluice(t, append(args, "--drop-existing")...)
		if code != 0 || pgCount(t, pg, `"`+db+`".t`) != 2 {
			t.Errorf("exit %d, stderr:\n%s", code, stderr)
		}
	})
	t.Run("same columns with rows and no run", func(t *testing.T) {
		other := testStream(t, env)
		a := baseArgs(t, env, db, other)
		code, _, stderr := runSluice(t, a...)
		if code != 2 || !strings.Contains(stderr, "already holds rows") {
			t.Errorf("exit %d, stderr:\n%s", code, stderr)
		}
	})
	t.Run("bad flag value", func(t *testing.T) {
		code, _, stderr := runSluice(t, append(args, "--zero-date", "maybe")...)
		if code != 2 || !strings.Contains(stderr, "--zero-date") {
			t.Errorf("exit %d, stderr:\n%s", code, stderr)
		}
	})
}
