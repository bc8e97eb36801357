package replicate

import (
	"context"
	"fmt"
	"math/rand"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/addtable"
	pgsink "github.com/sluice-db/sluice/internal/sink/postgres"
	engines "github.com/sluice-db/sluice/internal/target"
	"github.com/sluice-db/sluice/internal/testenv"
)

// addFixture: other is in the stream, t is added to it while it runs;
// both are changed by the write load (writeLoad: updates, deletes and
// inserts of t in its copied range, transactions over both tables).
const addFixture = `CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v INT NOT NULL, s VARCHAR(40), j JSON);
CREATE TABLE other (id INT PRIMARY KEY, v INT NOT NULL);
INSERT INTO t (v, s, j) SELECT seq, CONCAT('row ', seq), JSON_OBJECT('n', seq) FROM seq_1_to_6000;
INSERT INTO other SELECT seq, seq FROM seq_1_to_500;`

// addOptions are the stream's replicate options: other only.
func (g *rig) addOptions() Options {
	o := g.options()
	o.Include = []string{g.db + ".other"}
	return o
}

// snapshotOther starts the stream with other only.
func (g *rig) snapshotOther() {
	g.t.Helper()
	g.t.Cleanup(func() {
		_, _ = g.pg.Exec(context.Background(), "DELETE FROM sluice.add_table WHERE stream = $1", g.stream)
	})
	code, _, errOut := g.sluiceCLI("snapshot", "--include", g.db+".other")
	if code != 0 {
		g.t.Fatalf("snapshot: %s", errOut)
	}
}

// sluiceCLI runs the sluice binary against the rig's source, target and stream.
func (g *rig) sluiceCLI(args ...string) (int, string, string) {
	cmd := g.sluiceCmd(args...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		g.t.Fatal(err)
	}
	return code, out.String(), errOut.String()
}

func (g *rig) sluiceCmd(args ...string) *exec.Cmd {
	args = append(args, "--source", g.env.SourceURL(g.db), "--target", g.env.TargetURL(), "--stream", g.stream, "--log-level", "info")
	return testenv.SluiceCommand(testenv.SluiceBinary(g.t), args...)
}

// addRecord is t's add record.
func (g *rig) addRecord() engines.AddRecord {
	g.t.Helper()
	var r engines.AddRecord
	var state string
	err := g.pg.QueryRow(context.Background(), `SELECT state, last_key, rows_copied, chunks FROM sluice.add_table
		WHERE stream = $1 AND database = $2 AND table_name = 't'`, g.stream, g.db).Scan(&state, &r.LastKey, &r.Rows, &r.Chunks)
	if err != nil {
		return r
	}
	r.State = engines.AddState(state)
	return r
}

// addT runs sluice snapshot --add <db>.t in-process until the copy is done.
func (g *rig) addT(ctx context.Context) error {
	n := g.addOptions().NamingOptions()
	n.Identifiers = "preserve" // the CLI's default, which the snapshot recorded
	_, err := addtable.Run(ctx, addtable.Options{Source: g.src, Target: pgsink.NewEngine(g.dst), Stream: g.stream,
		Add: []string{g.db + ".t"}, Naming: n, Log: testenv.Logger()})
	return err
}

// frontierLoad changes t where its copy is, until stop is closed: rows of
// the next chunk after the add record's LastKey are updated, deleted and
// inserted again, so that windows see changes of their own chunk's keys
// between the locking read and the merge (a merge that kept such a row
// would write its older state over the stream's newer one).
func (g *rig) frontierLoad(stop <-chan struct{}, chunk int) *sync.WaitGroup {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		rnd := rand.New(rand.NewSource(time.Now().UnixNano()))
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			from := 0
			if b, err := addtable.DecodeBound(g.addRecord().LastKey); err == nil && len(b) == 1 {
				from, _ = strconv.Atoi(string(b[0]))
			}
			for k := 0; k < 20; k++ {
				id := from + 1 + rnd.Intn(chunk)
				var q string
				switch k % 4 {
				case 0, 1:
					q = fmt.Sprintf("UPDATE t SET v = v + 1, s = 'front %d' WHERE id = %d", i, id)
				case 2:
					q = fmt.Sprintf("DELETE FROM t WHERE id = %d", id)
				case 3:
					q = fmt.Sprintf("INSERT INTO t (id, v, s, j) VALUES (%d, %d, 'back', JSON_OBJECT('b', %d)) ON DUPLICATE KEY UPDATE v = -v", id-1, i, i)
				}
				if _, err := g.my.Exec(q); err != nil {
					g.t.Errorf("frontier load: %s: %v", q, err)
					return
				}
			}
		}
	}()
	return &wg
}

// TestAddTableWhileReplicating: a replicator runs under a write load on t
// and other, with only other in the stream; snapshot --add brings t in
// while both keep changing, in windows of 500 rows. After catching up,
// both tables equal the source, every value compared (a fresh snapshot of
// the source beside them), t's add record is done with every chunk, and
// t's later changes are applied exactly (a change the copy lost would be
// a divergence). MariaDB and MySQL 9.7 sources.
func TestAddTableWhileReplicating(t *testing.T) { testenv.Flavors(t, testAddTableWhileReplicating) }

func testAddTableWhileReplicating(t *testing.T, env *testenv.Env) {
	defer func(n int) { addChunkRows = n }(addChunkRows)
	addChunkRows = 500
	g := newRigOn(t, env, "add_live", addFixture)
	g.snapshotOther()
	b := g.start(g.addOptions())
	stop := make(chan struct{})
	wg := g.writeLoad(stop)
	front := g.frontierLoad(stop, addChunkRows)
	time.Sleep(time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	began := time.Now()
	if err := g.addT(ctx); err != nil {
		t.Fatalf("snapshot --add: %v (replicate: %v)", err, b.stop(time.Minute))
	}
	t.Logf("add of t took %s", time.Since(began).Round(time.Millisecond))
	rec := g.addRecord()
	if rec.State != engines.AddDone || rec.Chunks < 12 || rec.Rows < 5000 {
		t.Errorf("t's add record: %+v; want done, at least 12 chunks and 5000 rows", rec)
	}
	time.Sleep(2 * time.Second) // writes go on, applied exactly now
	close(stop)
	wg.Wait()
	front.Wait()
	if err := b.stop(time.Minute); err != nil {
		t.Fatalf("replicate: %v", err)
	}
	g.catchUp(g.addOptions())
	g.compare()
}

// TestAddTableKilled: the replicator (the sluice binary) is killed with -9
// twice while it copies t under the write load; each run continues from
// the last merged chunk (LastKey). Afterwards both tables equal the source,
// every value compared.
func TestAddTableKilled(t *testing.T) {
	g := newRig(t, "add_kill", addFixture)
	g.exec("INSERT INTO t (v, s, j) SELECT seq, REPEAT('x', 40), JSON_OBJECT('k', seq) FROM seq_1_to_60000")
	g.snapshotOther()
	start := func() *exec.Cmd {
		cmd := g.sluiceCmd("replicate", "--include", g.db+".other")
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill() })
		return cmd
	}
	cmd := start()
	stop := make(chan struct{})
	wg := g.writeLoad(stop)
	front := g.frontierLoad(stop, 2000) // the binary's chunk
	added := make(chan error, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	go func() { added <- g.addT(ctx) }()
	var kills []string
	for _, at := range []int64{4, 14} {
		deadline := time.Now().Add(2 * time.Minute)
		for g.addRecord().Chunks < at {
			if time.Now().After(deadline) {
				t.Fatalf("no %d chunks copied within 2 minutes: %+v", at, g.addRecord())
			}
			time.Sleep(20 * time.Millisecond)
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		rec := g.addRecord()
		kills = append(kills, fmt.Sprintf("%d chunks, %d rows", rec.Chunks, rec.Rows))
		if rec.State == engines.AddDone {
			t.Fatalf("the copy was done before kill %d: make t larger", len(kills))
		}
		time.Sleep(500 * time.Millisecond)
		cmd = start()
	}
	t.Logf("killed at %s", strings.Join(kills, "; "))
	if err := <-added; err != nil {
		t.Fatalf("snapshot --add: %v", err)
	}
	if rec := g.addRecord(); rec.State != engines.AddDone || rec.Rows < 60000 {
		t.Errorf("t's add record: %+v; want done and at least 60000 rows", rec)
	}
	close(stop)
	wg.Wait()
	front.Wait()
	_ = cmd.Process.Signal(syscall.SIGTERM)
	_ = cmd.Wait()
	g.catchUp(g.addOptions())
	g.compare()
}

// TestAddTableSchemaChange: a column is added to t on the source while t
// is being copied (after 3 of its chunks), and then set on rows already
// copied and not yet copied. The window open at the change ends, the copy
// goes on with the new definition after its last key, and t ends equal to
// the source, the new column compared too.
func TestAddTableSchemaChange(t *testing.T) {
	defer func(n int) { addChunkRows = n }(addChunkRows)
	addChunkRows = 500
	g := newRig(t, "add_ddl", addFixture)
	g.snapshotOther()
	b := g.start(g.addOptions())
	stop := make(chan struct{})
	wg := g.writeLoad(stop)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	added := make(chan error, 1)
	go func() { added <- g.addT(ctx) }()
	deadline := time.Now().Add(time.Minute)
	for g.addRecord().Chunks < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("no 3 chunks within a minute: %+v", g.addRecord())
		}
		time.Sleep(5 * time.Millisecond)
	}
	g.exec("ALTER TABLE t ADD COLUMN extra INT NOT NULL DEFAULT 7", "UPDATE t SET extra = id % 5 WHERE id < 1000 OR id > 5000")
	if rec := g.addRecord(); rec.State == engines.AddDone {
		t.Fatalf("the copy was done before the schema change: %+v", rec)
	}
	if err := <-added; err != nil {
		t.Fatalf("snapshot --add: %v (replicate: %v)", err, b.stop(time.Minute))
	}
	close(stop)
	wg.Wait()
	if err := b.stop(time.Minute); err != nil {
		t.Fatalf("replicate: %v", err)
	}
	g.catchUp(g.addOptions())
	g.compare()
}
