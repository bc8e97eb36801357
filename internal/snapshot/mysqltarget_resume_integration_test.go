package snapshot

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/testenv"
)

func myDoneChunks(t *testing.T, admin *sql.DB, stream string) (done, total int) {
	t.Helper()
	err := admin.QueryRow(`SELECT COALESCE(SUM(done), 0), COUNT(*) FROM sluice.snapshot_chunk WHERE stream = ?`, stream).Scan(&done, &total)
	if err != nil {
		t.Fatal(err)
	}
	return done, total
}

// TestMySQLTargetResumeAfterSourceChanges interrupts a snapshot into the
// MySQL target, changes rows in chunks it already copied (an integer key
// and a case-insensitive text key), resumes, and checks that the target
// equals the source at the new position: changed chunks copied again by
// range, unchanged ones kept.
func TestMySQLTargetResumeAfterSourceChanges(t *testing.T) {
	env := testenv.Get(t)
	if env.IsMySQL() {
		t.Skip("MariaDB source only (seq tables)")
	}
	for _, engine := range engines(t, env) {
		t.Run("engine="+engine, func(t *testing.T) {
			db := env.NewDatabase(t, "mysnap_resume") // the run changes its rows
			mustExec(t, env.MySQL(t, db), resumeFixture)
			testMySQLTargetResume(t, env, db, engine)
		})
	}
}

func testMySQLTargetResume(t *testing.T, env *testenv.Env, db, engine string) {
	my := env.MySQL(t, db)
	dst := testenv.UniqueName("mysnap_resume_dst")
	opts, admin := myTestOptions(t, env, db, dst)
	opts.ChunkRows = 20
	opts.Workers = 1
	withStorage(&opts, engine)

	ctx, cancel := context.WithCancel(context.Background())
	var copied atomic.Int64
	interrupted := opts
	interrupted.afterChunk = func() {
		if copied.Add(1) >= 25 {
			cancel()
		}
	}
	if _, err := Run(ctx, interrupted); err == nil || !errors.Is(err, context.Canceled) && !strings.Contains(err.Error(), "cancel") {
		t.Fatalf("interrupted run: %v, want a cancellation", err)
	}
	cancel()
	done, total := myDoneChunks(t, admin, opts.Stream)
	t.Logf("interrupted with %d of %d planned chunks copied", done, total)
	if done < 25 {
		t.Fatalf("%d chunks done, want at least 25", done)
	}
	// Change rows the first chunks hold (copied before the interruption).
	mustExec(t, my, "UPDATE ints SET val = -1 WHERE id = 5")
	mustExec(t, my, "DELETE FROM ints WHERE id = 6")
	mustExec(t, my, "INSERT INTO ints VALUES (100000, 7, 'new')")
	mustExec(t, my, "UPDATE strs SET val = -1 WHERE k = 'K00001'")
	mustExec(t, my, "INSERT INTO strs VALUES ('kz', 1)")

	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Resumed || rep.Pass != 2 || rep.ChunksRecopied == 0 || rep.ChunksKept == 0 {
		t.Errorf("report: resumed=%v pass=%d recopied=%d kept=%d copied=%d; want a resumed second pass that kept and re-copied chunks",
			rep.Resumed, rep.Pass, rep.ChunksRecopied, rep.ChunksKept, rep.ChunksCopied)
	}
	for _, q := range []string{"SELECT id, val, pad FROM %s.ints", "SELECT HEX(k), val FROM %s.strs", "SELECT a, HEX(b) FROM %s.nokey"} {
		src := sortStrings(testenv.MySQLRows(t, my, fmt.Sprintf(q, "`"+db+"`")))
		got := sortStrings(testenv.MySQLRows(t, admin, fmt.Sprintf(q, "`"+dst+"`")))
		if strings.Join(src, "\n") != strings.Join(got, "\n") {
			t.Errorf("%s: target differs from source (%d vs %d rows)", q, len(got), len(src))
		}
	}
	var stale int
	if err := admin.QueryRow(`SELECT COUNT(*) FROM sluice.snapshot_chunk WHERE stream = ? AND (NOT done OR pass <> 2 OR position <> ?)`,
		opts.Stream, rep.Position.Encode()).Scan(&stale); err != nil || stale != 0 {
		t.Errorf("%d chunks are not done as of the final position (%v)", stale, err)
	}
	// --restart throws everything away and copies again.
	opts.Restart = true
	rep2, err := Run(context.Background(), opts)
	if err != nil || rep2.Resumed || rep2.AlreadyComplete || rep2.Rows != rep.Rows {
		t.Errorf("restart: %+v, %v", rep2, err)
	}
}

// myArgs are the flags of a snapshot of source database db into target
// database dst in a test stream.
func myArgs(env *testenv.Env, tgt *testenv.MySQLTarget, db, dst, stream string) []string {
	return []string{"snapshot", "--source", env.SourceURL(db), "--target", tgt.URL(dst), "--include", db,
		"--stream", stream, "--log-format", "text", "--snapshot-method", "lock-free"}
}

// TestMySQLTargetKillDashNineAndResume kills the sluice process (SIGKILL,
// by PID) in the middle of a snapshot into the MySQL target, runs the same
// command again, and compares every table with the source.
func TestMySQLTargetKillDashNineAndResume(t *testing.T) {
	env := testenv.Get(t)
	if env.IsMySQL() {
		t.Skip("MariaDB source only (seq tables)")
	}
	db := env.NewDatabase(t, "mysnap_kill")
	my := env.MySQL(t, db)
	for i := 1; i <= 3; i++ {
		mustExec(t, my, fmt.Sprintf(`CREATE TABLE t%d (id INT PRIMARY KEY, k VARCHAR(20) NOT NULL, v DOUBLE, d DATETIME(6), b BLOB, UNIQUE KEY (k));
			INSERT INTO t%d SELECT seq, CONCAT('k', seq), seq / 7, '2020-01-01' + INTERVAL seq SECOND, REPEAT(x'00ff', seq %% 50)
			FROM seq_1_to_%d`, i, i, 2000+i*500))
	}
	dst := testenv.UniqueName("mysnap_kill_dst")
	opts, admin := myTestOptions(t, env, db, dst) // the stream's state cleanup
	args := append(myArgs(env, env.MySQLTarget(t), db, dst, opts.Stream), "--chunk-rows", "50", "--workers", "2")

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
		admin.QueryRow(`SELECT COALESCE(SUM(done), 0), COUNT(*) FROM sluice.snapshot_chunk WHERE stream = ?`, opts.Stream).Scan(&done, &total)
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL to this PID only
		t.Fatal(err)
	}
	cmd.Wait()
	done, total = myDoneChunks(t, admin, opts.Stream)
	var status string
	admin.QueryRow(`SELECT status FROM sluice.snapshot_run WHERE stream = ?`, opts.Stream).Scan(&status)
	t.Logf("killed with %d of %d planned chunks copied", done, total)
	if status == "complete" || done == 0 {
		t.Fatalf("kill landed outside the copy (status %q, %d chunks done)", status, done)
	}
	code, out, stderr := runSluice(t, append(args, "--json")...)
	if code != 0 {
		t.Fatalf("resumed run: exit %d\n%s", code, stderr)
	}
	var rep Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, out)
	}
	if !rep.Resumed || rep.Rows != 2500+3000+3500 || len(rep.PerTable) != 3 || rep.PerTable[0].Rows == 0 {
		t.Errorf("resumed report: resumed=%v rows=%d per table %+v", rep.Resumed, rep.Rows, rep.PerTable)
	}
	for i := 1; i <= 3; i++ {
		q := "SELECT id, HEX(k), CAST(v AS CHAR), CAST(d AS CHAR), HEX(b) FROM %s.t" + fmt.Sprint(i)
		src := sortStrings(testenv.MySQLRows(t, my, fmt.Sprintf(q, "`"+db+"`")))
		got := sortStrings(testenv.MySQLRows(t, admin, fmt.Sprintf(q, "`"+dst+"`")))
		if strings.Join(src, "\n") != strings.Join(got, "\n") {
			t.Errorf("t%d: target differs from source (%d vs %d rows)", i, len(got), len(src))
		}
	}
}

// TestMySQLTargetExistingTable: a target table with another definition is
// refused (exit 2, nothing written: no other table, no run state); with
// --drop-existing it is replaced. --dry-run prints the CREATE TABLEs and
// writes nothing.
func TestMySQLTargetExistingTable(t *testing.T) {
	env := testenv.Get(t)
	if env.IsMySQL() {
		t.Skip("MariaDB source only")
	}
	db := env.NewDatabase(t, "mysnap_exist")
	my := env.MySQL(t, db)
	mustExec(t, my, `CREATE TABLE a (id INT PRIMARY KEY, v VARCHAR(10)); INSERT INTO a VALUES (1, 'x'), (2, NULL);
		CREATE TABLE b (id INT PRIMARY KEY, w INT); INSERT INTO b VALUES (1, 10)`)
	tgt := env.MySQLTarget(t)
	dst := testenv.UniqueName("mysnap_exist_dst")
	opts, admin := myTestOptions(t, env, db, dst)
	tgt.NewDatabase(t, dst)
	mustExec(t, admin, "CREATE TABLE `"+dst+"`.a (id INT PRIMARY KEY, v VARCHAR(11))")
	args := myArgs(env, tgt, db, dst, opts.Stream)

	code, out, stderr := runSluice(t, append(args, "--dry-run")...)
	if code != 0 || !strings.Contains(out, "CREATE TABLE `"+dst+"`.`b`") || !strings.Contains(out, "ENGINE=InnoDB") {
		t.Errorf("--dry-run: exit %d\n%s\n%s", code, out, stderr)
	}
	code, out, stderr = runSluice(t, append(args, "--dry-run", "--target-engine", "ROCKSDB")...)
	if code != 0 || !strings.Contains(out, "ENGINE=ROCKSDB") || strings.Contains(out, "ENGINE=InnoDB") {
		t.Errorf("--dry-run --target-engine ROCKSDB: exit %d\n%s\n%s", code, out, stderr)
	}

	code, _, stderr = runSluice(t, args...)
	if code != 2 || !strings.Contains(stderr, "exists with another definition") || !strings.Contains(stderr, "varchar(11)") {
		t.Errorf("existing different table: exit %d, want 2 naming the difference\n%s", code, stderr)
	}
	tables := testenv.MySQLRows(t, admin, "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?", dst)
	var runs int
	admin.QueryRow("SELECT COUNT(*) FROM sluice.snapshot_run WHERE stream = ?", opts.Stream).Scan(&runs)
	if strings.Join(tables, ",") != "a" || runs != 0 {
		t.Errorf("refused run wrote something: tables %v, %d runs recorded", tables, runs)
	}

	code, out, stderr = runSluice(t, append(args, "--drop-existing", "--json")...)
	if code != 0 {
		t.Fatalf("--drop-existing: exit %d\n%s", code, stderr)
	}
	var rep Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, out)
	}
	if rep.Rows != 3 || rep.Tables != 2 || rep.Position.IsZero() {
		t.Errorf("report: %+v", rep)
	}
	for _, q := range []string{"SELECT id, v FROM %s.a", "SELECT id, w FROM %s.b"} {
		src := sortStrings(testenv.MySQLRows(t, my, fmt.Sprintf(q, "`"+db+"`")))
		got := sortStrings(testenv.MySQLRows(t, admin, fmt.Sprintf(q, "`"+dst+"`")))
		if strings.Join(src, "\n") != strings.Join(got, "\n") {
			t.Errorf("%s: target %v, source %v", q, got, src)
		}
	}
	var create string
	admin.QueryRow("SHOW CREATE TABLE `"+dst+"`.a").Scan(new(string), &create)
	if !strings.Contains(create, "varchar(10)") {
		t.Errorf("table a was not replaced:\n%s", create)
	}
}

// TestMySQLTargetSchemaOnlyThenDataOnly creates the tables with
// --schema-only (no run state, no checkpoint), then copies the rows with
// --data-only into them; a data-only run into tables holding rows is refused.
func TestMySQLTargetSchemaOnlyThenDataOnly(t *testing.T) {
	env := testenv.Get(t)
	if env.IsMySQL() {
		t.Skip("MariaDB source only (seq tables)")
	}
	db := env.NewDatabase(t, "mysnap_phases")
	my := env.MySQL(t, db)
	mustExec(t, my, myFKFixture)
	dst := testenv.UniqueName("mysnap_phases_dst")
	opts, admin := myTestOptions(t, env, db, dst)
	ctx := context.Background()
	schemaOnly := opts
	schemaOnly.SchemaOnly = true
	if _, err := Run(ctx, schemaOnly); err != nil {
		t.Fatal(err)
	}
	tables := testenv.MySQLRows(t, admin, "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE' ORDER BY 1", dst)
	if views := testenv.MySQLRows(t, admin, "SELECT TABLE_NAME FROM information_schema.VIEWS WHERE TABLE_SCHEMA = ?", dst); strings.Join(views, ",") != "parent_names" {
		t.Errorf("--schema-only: views %v, want the source's parent_names", views)
	}
	var rows, runs int
	admin.QueryRow("SELECT COALESCE(SUM(TABLE_ROWS), 0) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?", dst).Scan(&rows)
	admin.QueryRow("SELECT COUNT(*) FROM sluice.snapshot_run WHERE stream = ?", opts.Stream).Scan(&runs)
	if strings.Join(tables, ",") != "child,grandchild,nokey,parent" || runs != 0 {
		t.Fatalf("--schema-only: tables %v, %d runs recorded", tables, runs)
	}
	dataOnly := opts
	dataOnly.DataOnly = true
	rep, err := Run(ctx, dataOnly)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Rows != 240 || rep.Position.IsZero() {
		t.Errorf("--data-only report: %d rows at %s", rep.Rows, rep.Position)
	}
	compareTables(t, my, admin, db, dst)
	// The same data-only run into tables that hold rows is refused (exit 2).
	again := dataOnly
	again.Stream = testenv.UniqueName("st")
	if _, err := Run(ctx, again); err == nil || !strings.Contains(err.Error(), "already holds rows") {
		t.Errorf("--data-only into full tables: %v", err)
	}
}
