package replicate

import (
	"context"
	"fmt"
	pgsink "github.com/sluice-db/sluice/internal/sink/postgres"
	"math/rand"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/snapshot"
	"github.com/sluice-db/sluice/internal/testenv"
	"github.com/sluice-db/sluice/internal/verify"
)

// recopyDDL: t is re-copied, other is only replicated; both change under
// the write load.
const recopyFixture = `CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v INT NOT NULL, s VARCHAR(40), j JSON);
CREATE TABLE other (id INT PRIMARY KEY, v INT NOT NULL);
INSERT INTO t (v, s, j) SELECT seq, CONCAT('row ', seq), JSON_OBJECT('n', seq) FROM seq_1_to_3000;
INSERT INTO other SELECT seq, seq FROM seq_1_to_500;`

// writeLoad changes t and other on the source until stop is closed: single
// statements and multi-statement transactions of inserts, updates and deletes.
func (g *rig) writeLoad(stop <-chan struct{}) *sync.WaitGroup {
	var wg sync.WaitGroup
	wg.Add(1)
	conn, err := g.my.Conn(context.Background()) // BEGIN ... COMMIT on one session
	if err != nil {
		g.t.Fatal(err)
	}
	go func() {
		defer wg.Done()
		defer conn.Close()
		rnd := rand.New(rand.NewSource(time.Now().UnixNano()))
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			// Rows 1501..3000 are left alone: damageT changes those, so
			// the replicator never meets the damage before the re-copy.
			id := 1 + rnd.Intn(1500)
			if rnd.Intn(2) == 0 {
				id += 3000
			}
			var stmts []string
			switch i % 5 {
			case 0:
				stmts = []string{fmt.Sprintf("INSERT INTO t (v, s, j) VALUES (%d, 'new %d', JSON_ARRAY(%d, 'x'))", i, i, i)}
			case 1:
				stmts = []string{fmt.Sprintf("UPDATE t SET v = v + 1, s = CONCAT('upd ', %d) WHERE id = %d", i, id)}
			case 2:
				stmts = []string{fmt.Sprintf("DELETE FROM t WHERE id = %d", id)}
			case 3:
				stmts = []string{"BEGIN", fmt.Sprintf("UPDATE other SET v = v + 1 WHERE id = %d", 1+id%500),
					fmt.Sprintf("UPDATE t SET j = JSON_OBJECT('i', %d) WHERE id BETWEEN %d AND %d", i, id, id+2), "COMMIT"}
			case 4:
				stmts = []string{fmt.Sprintf("INSERT INTO other VALUES (%d, 1) ON DUPLICATE KEY UPDATE v = v * 2 %% 1000", 500+i%50)}
			}
			for _, s := range stmts {
				if _, err := conn.ExecContext(context.Background(), s); err != nil {
					g.t.Errorf("write load: %s: %v", s, err)
					return
				}
			}
			time.Sleep(2 * time.Millisecond)
		}
	}()
	return &wg
}

// damageT changes the target's copy of t behind the replicator's back, in
// rows the write load does not touch.
func (g *rig) damageT() {
	g.t.Helper()
	q := pgx.Identifier{g.db, "t"}.Sanitize()
	for _, s := range []string{
		"DELETE FROM " + q + " WHERE id % 7 = 0 AND id BETWEEN 1501 AND 3000",
		"UPDATE " + q + " SET v = -1, s = 'damaged' WHERE id % 11 = 0 AND id BETWEEN 1501 AND 3000",
		"INSERT INTO " + q + " (id, v, s) VALUES (900000, 1, 'only in target')",
	} {
		if _, err := g.pg.Exec(context.Background(), s); err != nil {
			g.t.Fatalf("damage: %s: %v", s, err)
		}
	}
}

// recopyT runs sluice snapshot --include <db>.t --recopy in-process.
func (g *rig) recopyT() {
	g.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	rep, err := snapshot.Run(ctx, snapshot.Options{Source: g.src, Target: pgsink.NewEngine(g.dst), Include: []string{g.db + ".t"},
		Stream: g.stream, Recopy: true, Workers: 2, ChunkRows: 1000, Log: testenv.Logger()})
	if err != nil {
		g.t.Fatalf("recopy: %v", err)
	}
	if rep.Mode != "recopy" || rep.Rows == 0 {
		g.t.Fatalf("recopy report: mode %q rows %d", rep.Mode, rep.Rows)
	}
	g.forgetStream(g.stream + "/recopy")
}

// recopyState lists the stream's rows of sluice.recopy.
func (g *rig) recopyState() []string {
	g.t.Helper()
	rows, err := g.pg.Query(context.Background(), "SELECT table_name || CASE WHEN requested THEN ' requested' ELSE '' END || CASE WHEN position <> '' THEN ' copied' ELSE '' END FROM sluice.recopy WHERE stream = $1 ORDER BY 1", g.stream)
	if err != nil {
		g.t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		g.t.Fatal(err)
	}
	return out
}

func (g *rig) forgetRecopy() {
	g.t.Cleanup(func() {
		_, _ = g.pg.Exec(context.Background(), "DELETE FROM sluice.recopy WHERE stream = $1", g.stream)
	})
}

// TestRecopyWhileReplicating: a replicator runs under a write load on t and
// other; t is damaged on the target and re-copied while the writes and the
// replicator go on. After catching up, both tables equal the source (rows
// and values compared), with no lost or doubled row.
func TestRecopyWhileReplicating(t *testing.T) { testenv.Flavors(t, testRecopyWhileReplicating) }

func testRecopyWhileReplicating(t *testing.T, env *testenv.Env) {
	g := newRigOn(t, env, "recopy_live", recopyFixture)
	g.forgetRecopy()
	g.snapshot(g.stream, "")
	b := g.start(g.options())
	stop := make(chan struct{})
	wg := g.writeLoad(stop)
	time.Sleep(2 * time.Second)
	g.damageT()
	g.recopyT()
	time.Sleep(2 * time.Second) // writes continue after the re-copy, replicated by the resumed run
	close(stop)
	wg.Wait()
	if err := b.stop(time.Minute); err != nil {
		t.Fatalf("replicate: %v", err)
	}
	g.catchUp(g.options())
	g.compare()
	for _, table := range []string{"t", "other"} {
		if rep := g.verifyTable(t, table); rep.Result != verify.ResultEqual {
			t.Errorf("verify %s: %s", table, rep.Result)
		}
	}
	if st := g.recopyState(); strings.Join(st, ",") != "" && strings.Join(st, ",") != "t copied" {
		t.Errorf("sluice.recopy: %v", st)
	}
}

// TestRecopyReplicatorStopped: the replicator is stopped behind the source.
// A re-copy while a schema change of t is pending (not applied yet) is
// refused and changes nothing; after the replicator caught up, writes and
// a TRUNCATE of t it has not read yet, a re-copy, more writes, and
// replicate --until-caught-up ends with both tables equal to the source:
// t's changes up to the copy (the TRUNCATE too) were skipped, the later
// ones applied.
func TestRecopyReplicatorStopped(t *testing.T) {
	g := newRig(t, "recopy_stop", recopyFixture)
	g.forgetRecopy()
	g.snapshot(g.stream, "")
	g.catchUp(g.options())
	g.exec("ALTER TABLE t ADD COLUMN extra INT NOT NULL DEFAULT 7", "UPDATE t SET extra = id % 5 WHERE id < 100")
	_, err := snapshot.Run(context.Background(), snapshot.Options{Source: g.src, Target: pgsink.NewEngine(g.dst), Include: []string{g.db + ".t"},
		Stream: g.stream, Recopy: true, Workers: 2, Log: testenv.Logger()})
	g.forgetStream(g.stream + "/recopy")
	if err == nil || !strings.Contains(err.Error(), "schema change the replicator has not applied yet") {
		t.Fatalf("re-copy with a pending schema change of t: %v", err)
	}
	if st := g.recopyState(); len(st) != 0 {
		t.Fatalf("sluice.recopy after the refused re-copy: %v", st)
	}
	g.catchUp(g.options())

	stop := make(chan struct{})
	wg := g.writeLoad(stop)
	time.Sleep(time.Second)
	g.exec("TRUNCATE TABLE t", "INSERT INTO t (v, s, j, extra) SELECT seq, CONCAT('again ', seq), JSON_OBJECT('a', seq), seq % 3 FROM seq_1_to_800")
	time.Sleep(time.Second)
	g.damageT()
	g.recopyT()
	time.Sleep(time.Second)
	close(stop)
	wg.Wait()
	g.exec("UPDATE t SET extra = 42 WHERE id < 50")
	// A second re-copy that is refused (a schema change pending again)
	// must leave the first one's record: the replicator still has to skip
	// t's changes up to that copy.
	g.exec("ALTER TABLE t ADD COLUMN extra2 INT NULL", "UPDATE t SET extra2 = 1 WHERE id < 20")
	if _, err := snapshot.Run(context.Background(), snapshot.Options{Source: g.src, Target: pgsink.NewEngine(g.dst), Include: []string{g.db + ".t"},
		Stream: g.stream, Recopy: true, Workers: 2, Log: testenv.Logger()}); err == nil {
		t.Fatal("a second re-copy with a pending schema change was not refused")
	}
	if st := g.recopyState(); len(st) != 1 || st[0] != "t copied" {
		t.Fatalf("sluice.recopy after a refused second re-copy: %v", st)
	}
	g.catchUp(g.options())
	g.compare()
	if n := g.count("t"); n < 800 {
		t.Errorf("t has %d rows after catching up; the TRUNCATE before the copy ran on the copy?", n)
	}
	if st := g.recopyState(); len(st) != 1 || st[0] != "t copied" {
		t.Errorf("sluice.recopy after catching up: %v", st)
	}
	g.catchUp(g.options()) // a start past the copy's position forgets it
	if st := g.recopyState(); len(st) != 0 {
		t.Errorf("sluice.recopy after a start past the copy: %v", st)
	}
}

// TestRecopyKilled: a re-copy killed with -9 while it copies leaves the
// live table untouched and the waiting replicator free to continue; the
// same re-copy run again completes, and the stream ends equal.
func TestRecopyKilled(t *testing.T) {
	g := newRig(t, "recopy_kill", recopyFixture)
	g.forgetRecopy()
	g.exec("INSERT INTO t (v, s, j) SELECT seq, REPEAT('x', 40), JSON_OBJECT('k', seq) FROM seq_1_to_60000")
	g.snapshot(g.stream, "")
	g.forgetStream(g.stream + "/recopy")
	b := g.start(g.options())
	stop := make(chan struct{})
	wg := g.writeLoad(stop)
	g.damageT()

	cmd := testenv.SluiceCommand(testenv.SluiceBinary(t), "snapshot", "--source", g.env.SourceURL(g.db), "--target", g.env.TargetURL(),
		"--include", g.db+".t", "--recopy", "--stream", g.stream, "--workers", "1", "--chunk-rows", "2000", "--max-rate", "256KB")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitShadowRows(t, g, cmd)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	var left int64
	if err := g.pg.QueryRow(context.Background(), "SELECT count(*) FROM "+pgx.Identifier{g.db, "t"}.Sanitize()+" WHERE id = 900000").Scan(&left); err != nil || left != 1 {
		t.Fatalf("the killed re-copy changed the live t (the row only in the target: %d, %v)", left, err)
	}
	time.Sleep(2 * time.Second) // the replicator notices the dead re-copy and continues
	g.recopyT()
	time.Sleep(time.Second)
	close(stop)
	wg.Wait()
	if err := b.stop(time.Minute); err != nil {
		t.Fatalf("replicate: %v\nkilled re-copy's output:\n%s", err, out.String())
	}
	g.catchUp(g.options())
	g.compare()
}

// waitShadowRows waits until the killed-to-be re-copy has committed rows
// into its shadow table.
func waitShadowRows(t *testing.T, g *rig, cmd *exec.Cmd) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		var n int64
		err := g.pg.QueryRow(context.Background(), `SELECT coalesce(sum(rows), 0)::bigint FROM sluice.snapshot_chunk WHERE stream = $1 AND done`,
			g.stream+"/recopy").Scan(&n)
		if err == nil && n > 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	t.Fatal("the re-copy did not start copying within a minute")
}
