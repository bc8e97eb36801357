package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/testenv"
)

// runCLI runs the sluice command line in-process and returns its exit code
// and output. Its stdin is empty and not a terminal (sluice drop then needs
// --yes).
func runCLI(ctx context.Context, args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	root := NewRootCmd(&out, &errOut)
	root.SetIn(strings.NewReader(""))
	root.SetArgs(args)
	err := executeContext(ctx, root)
	if err != nil {
		fmt.Fprintln(&errOut, "sluice: "+err.Error())
	}
	return exitcode.Of(err), out.String(), errOut.String()
}

// forgetStream deletes a stream's state in the target when the test ends.
func forgetStream(t *testing.T, env *testenv.Env, stream string) {
	pg := env.PG(t)
	t.Cleanup(func() {
		for _, tbl := range []string{"snapshot_chunk", "snapshot_table", "snapshot_run", "checkpoint", "schema_history", "applied", "policy_changes"} {
			_, _ = pg.Exec(context.Background(), "DELETE FROM sluice."+tbl+" WHERE stream = $1", stream)
		}
	})
}

// TestMigrateUnderWriteLoad runs `sluice migrate --until-caught-up` while a
// write load runs on the source from before the snapshot until well into
// replication, and then compares every row of both sides.
func TestMigrateUnderWriteLoad(t *testing.T) { testenv.Flavors(t, testMigrateUnderWriteLoad) }

func testMigrateUnderWriteLoad(t *testing.T, env *testenv.Env) {
	db := env.NewDatabase(t, "cli_migrate")
	my := env.MySQL(t, db)
	if _, err := my.Exec(env.SQL(`CREATE TABLE acct (id INT PRIMARY KEY, balance BIGINT NOT NULL, note VARCHAR(50));
		CREATE TABLE log (id BIGINT AUTO_INCREMENT PRIMARY KEY, acct INT, delta INT);
		INSERT INTO acct SELECT seq, 1000, CONCAT('n', seq) FROM seq_1_to_5000`)); err != nil {
		t.Fatal(err)
	}
	stream := testenv.UniqueName("mig")
	forgetStream(t, env, stream)

	var stop atomic.Bool
	var writes atomic.Int64
	var wg sync.WaitGroup
	var loadErr atomic.Value
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, 7))
			for !stop.Load() {
				a, b, d := rng.IntN(5000)+1, rng.IntN(5000)+1, rng.IntN(100)
				tx, err := my.Begin()
				if err == nil {
					_, err = tx.Exec("UPDATE acct SET balance = balance - ? WHERE id = ?", d, a)
				}
				if err == nil {
					_, err = tx.Exec("UPDATE acct SET balance = balance + ?, note = ? WHERE id = ?", d, fmt.Sprint("moved ", d), b)
				}
				if err == nil {
					_, err = tx.Exec("INSERT INTO log (acct, delta) VALUES (?, ?), (?, ?)", a, -d, b, d)
				}
				if err == nil && rng.IntN(10) == 0 {
					_, err = tx.Exec("DELETE FROM log WHERE id = ?", rng.IntN(int(writes.Load())+1)+1)
				}
				if err == nil {
					err = tx.Commit()
				} else {
					_ = tx.Rollback()
				}
				if err != nil && !strings.Contains(err.Error(), "Deadlock") {
					loadErr.Store(err)
					return
				}
				writes.Add(1)
			}
		}(uint64(w))
	}
	time.Sleep(300 * time.Millisecond) // the load runs before the snapshot starts

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	type result struct {
		code     int
		out, err string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errOut := runCLI(ctx, "migrate", "--source", env.SourceURL(db), "--target", env.TargetURL(),
			"--include", db, "--stream", stream, "--workers", "2", "--chunk-rows", "500", "--until-caught-up",
			"--json", "--log-level", "warn")
		done <- result{code, out, errOut}
	}()
	// Keep writing until replication has applied some of the load.
	pg := env.PG(t)
	deadline := time.Now().Add(90 * time.Second)
	for {
		var n int64
		_ = pg.QueryRow(ctx, `SELECT count(*) FROM sluice.checkpoint WHERE stream = $1 AND schema_version >= 1
			AND updated_at > now() - interval '1 minute'`, stream).Scan(&n)
		if n == 1 || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(2 * time.Second) // replication under load
	stop.Store(true)
	wg.Wait()
	if err, _ := loadErr.Load().(error); err != nil {
		t.Fatalf("write load: %v", err)
	}
	res := <-done
	if res.code != 0 {
		t.Fatalf("migrate exit %d:\n%s\n%s", res.code, res.out, res.err)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(res.out), &rep); err != nil {
		t.Errorf("snapshot report is not JSON: %v\n%s", err, res.out)
	}
	t.Logf("%d write transactions during the migration", writes.Load())
	// --until-caught-up may end at an idle moment of a starved writer, before
	// the load stopped: what came after is for a replicate run, which must
	// continue exactly where migrate stopped.
	if code, out, errOut := runCLI(ctx, "replicate", "--source", env.SourceURL(db), "--target", env.TargetURL(),
		"--include", db, "--stream", stream, "--workers", "2", "--until-caught-up", "--log-level", "warn"); code != 0 {
		t.Fatalf("replicate after migrate: exit %d:\n%s\n%s", code, out, errOut)
	}

	// acct holds its 5,000 preloaded rows; log gains two rows per write transaction.
	for q, minRows := range map[string]int{
		"SELECT id, balance, note FROM acct ORDER BY id": 5000,
		"SELECT id, acct, delta FROM log ORDER BY id":    int(min(writes.Load(), 100)),
	} {
		src := testenv.MySQLRows(t, my, q)
		dst := testenv.PGRows(t, pg, strings.Replace(q, "FROM ", "FROM "+pgx.Identifier{db}.Sanitize()+".", 1))
		if len(src) < minRows || !reflect.DeepEqual(src, dst) {
			t.Errorf("%s: source %d rows, target %d rows, equal=%v", q, len(src), len(dst), reflect.DeepEqual(src, dst))
		}
	}
}

// TestMigrateJSONReportsBothPhases: migrate --json prints one document
// with the snapshot's report and how replication ended.
func TestMigrateJSONReportsBothPhases(t *testing.T) {
	env := testenv.Get(t)
	db := env.NewDatabase(t, "cli_migjson")
	my := env.MySQL(t, db)
	if _, err := my.Exec("CREATE TABLE t (id INT PRIMARY KEY); INSERT INTO t VALUES (1), (2), (3)"); err != nil {
		t.Fatal(err)
	}
	stream := testenv.UniqueName("migj")
	forgetStream(t, env, stream)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code, out, errOut := runCLI(ctx, "migrate", "--source", env.SourceURL(db), "--target", env.TargetURL(),
		"--stream", stream, "--until-caught-up", "--json", "--log-level", "warn")
	if code != 0 {
		t.Fatalf("migrate --json: exit %d: %s", code, errOut)
	}
	var rep struct {
		Stream   string `json:"stream"`
		Snapshot struct {
			Rows int64 `json:"rows"`
		} `json:"snapshot"`
		Replicate struct {
			Result string `json:"result"`
		} `json:"replicate"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("not one JSON document: %v\n%s", err, out)
	}
	if rep.Stream != stream || rep.Snapshot.Rows != 3 || rep.Replicate.Result != "caught up" {
		t.Errorf("migrate --json: %+v\n%s", rep, out)
	}
}
