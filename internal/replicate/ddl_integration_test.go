package replicate

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/testenv"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
)

// writer inserts, updates and deletes rows of table w and inserts rows
// of t (all columns defaulted) until stopped, as a background write load.
type writer struct {
	stop   chan struct{}
	done   sync.WaitGroup
	writes atomic.Int64
	err    atomic.Value
}

func (g *rig) startWriter(withT bool) *writer {
	w := &writer{stop: make(chan struct{})}
	w.done.Add(1)
	go func() {
		defer w.done.Done()
		rng := rand.New(rand.NewPCG(1, 2))
		for i := 1; ; i++ {
			select {
			case <-w.stop:
				return
			default:
			}
			qs := []string{
				fmt.Sprintf("INSERT INTO w (id, v) VALUES (%d, %d)", i, rng.IntN(1000)),
				fmt.Sprintf("UPDATE w SET v = v + 1 WHERE id = %d", rng.IntN(i)+1),
			}
			if i%5 == 0 {
				qs = append(qs, fmt.Sprintf("DELETE FROM w WHERE id = %d", rng.IntN(i)+1))
			}
			if withT && i%3 == 0 {
				qs = append(qs, "INSERT INTO t () VALUES ()")
			}
			for _, q := range qs {
				if _, err := g.my.Exec(q); err != nil {
					w.err.Store(fmt.Errorf("%s: %w", q, err))
					return
				}
				w.writes.Add(1)
			}
			time.Sleep(time.Millisecond)
		}
	}()
	return w
}

func (w *writer) halt(t *testing.T) {
	t.Helper()
	close(w.stop)
	w.done.Wait()
	if err, _ := w.err.Load().(error); err != nil {
		t.Fatalf("writer: %v", err)
	}
	if w.writes.Load() < 10 {
		t.Fatalf("writer made only %d writes", w.writes.Load())
	}
}

// TestReplicateSchemaChangesDuringWrites runs every supported kind of
// schema change while a write load runs, with replication stopped and
// restarted in the middle (so rows written between are decoded with the
// schema history stored in the target, not with the current schema), and
// compares every table with a fresh snapshot at the end.
func TestReplicateSchemaChangesDuringWrites(t *testing.T) {
	testenv.Flavors(t, testReplicateSchemaChangesDuringWrites)
}

func testReplicateSchemaChangesDuringWrites(t *testing.T, env *testenv.Env) {
	g := newRigOn(t, env, "rp_ddl", `
		CREATE TABLE w (id INT PRIMARY KEY, v INT);
		CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, a INT DEFAULT 1, b VARCHAR(20) DEFAULT 'b', d DATE DEFAULT '2020-01-01');
		CREATE TABLE old_name (k INT PRIMARY KEY, s TEXT);
		CREATE TABLE trunc (k INT PRIMARY KEY);
		CREATE TABLE gone (k INT PRIMARY KEY);
		INSERT INTO old_name VALUES (1, 'one'), (2, 'two');
		INSERT INTO trunc VALUES (1), (2), (3);
		INSERT INTO gone VALUES (1)`)
	g.exec("INSERT INTO t () VALUES (), (), ()")
	g.snapshot(g.stream, "")
	run := g.start(g.options())
	load := g.startWriter(true)
	ddl := func(stmts ...string) {
		for _, s := range stmts {
			time.Sleep(50 * time.Millisecond)
			g.exec(s)
		}
	}
	ddl("ALTER TABLE t ADD COLUMN c INT DEFAULT 5",
		"ALTER TABLE t DROP COLUMN b",
		"ALTER TABLE t MODIFY a BIGINT DEFAULT 2",
		"ALTER TABLE t CHANGE a a2 BIGINT DEFAULT 3",
		"ALTER TABLE t ADD INDEX ic (c), ADD UNIQUE KEY ua (id, a2)",
		"ALTER TABLE t ALTER c SET DEFAULT 9",
		"RENAME TABLE old_name TO new_name",
		"INSERT INTO new_name VALUES (3, 'three')")
	// Stop in the middle: the next changes and their rows are read after a
	// restart, with the schema history from the target.
	if err := run.stop(30 * time.Second); err != nil {
		t.Fatalf("graceful stop: %v", err)
	}
	ddl("ALTER TABLE t RENAME COLUMN c TO c2",
		"ALTER TABLE t DROP INDEX ic",
		"TRUNCATE TABLE trunc",
		"INSERT INTO trunc VALUES (9)",
		"CREATE TABLE n (k VARCHAR(5) PRIMARY KEY, x DECIMAL(5,2))",
		"INSERT INTO n VALUES ('a', 1.25)",
		"DROP TABLE gone",
		"ALTER TABLE new_name ADD COLUMN extra VARCHAR(5) NULL AFTER k",
		"UPDATE new_name SET extra = 'e' WHERE k = 1")
	run = g.start(g.options())
	ddl("ALTER TABLE t ADD COLUMN e ENUM('x','y') NOT NULL DEFAULT 'y' FIRST",
		"ALTER TABLE n MODIFY x DECIMAL(8,3)",
		"INSERT INTO n VALUES ('b', 12345.125)")
	time.Sleep(300 * time.Millisecond)
	load.halt(t)
	if err := run.stop(30 * time.Second); err != nil {
		t.Fatalf("graceful stop: %v", err)
	}
	g.catchUp(g.options())
	g.compare()

	st, err := checkpoint.Load(context.Background(), g.pg, g.stream, binlogpos.Decode)
	if err != nil {
		t.Fatal(err)
	}
	if st.SchemaVersion < 15 {
		t.Errorf("schema version %d after 17 schema changes", st.SchemaVersion)
	}
	tables, err := checkpoint.LoadSchema(context.Background(), g.pg, g.stream, st.SchemaVersion)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for id, tb := range tables {
		if id.Database == g.db {
			names = append(names, id.Name+"("+strings.Join(columnNames(tb.Columns), ",")+")")
		}
	}
	got := strings.Join(sorted(names), " ")
	want := "n(k,x) new_name(k,extra,s) t(e,id,a2,d,c2) trunc(k) w(id,v)"
	if got != want {
		t.Errorf("schema history at version %d:\n got %s\nwant %s", st.SchemaVersion, got, want)
	}
}

// TestReplicateUnsupportedDDLStops: an untranslatable schema change stops
// replication with the statement, its position and --skip-ddl; with
// --skip-ddl it continues (and the rows written before it are applied).
func TestReplicateUnsupportedDDLStops(t *testing.T) {
	testenv.Flavors(t, testReplicateUnsupportedDDLStops)
}

func testReplicateUnsupportedDDLStops(t *testing.T, env *testenv.Env) {
	g := newRigOn(t, env, "rp_unsup", `CREATE TABLE t (id INT PRIMARY KEY, v INT)`)
	g.snapshot(g.stream, "")
	g.exec("INSERT INTO t VALUES (1, 1)",
		"ALTER TABLE t ADD COLUMN seq INT AUTO_INCREMENT UNIQUE KEY",
		"INSERT INTO t (id, v) VALUES (2, 2)")
	o := g.options()
	err := g.runUntilStop(o, "an unsupported schema change")
	o.UntilCaughtUp = true
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	msg := err.Error()
	for _, want := range []string{"ALTER TABLE t ADD COLUMN seq INT AUTO_INCREMENT UNIQUE KEY",
		"replication stopped at binlog " + binlogBase(env) + ".", "--skip-ddl 'ALTER TABLE t ADD*'"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	if exitcode.Of(err) != exitcode.Failure {
		t.Errorf("exit code %d, want 1", exitcode.Of(err))
	}
	if n := g.count("t"); n != 1 {
		t.Errorf("%d rows applied before the stop, want 1", n)
	}
	// Skipped knowingly: nothing runs on the target, the table is re-read
	// from the source; the next row has a column the target lacks, which
	// stops apply naming it, until the user makes the change on the target.
	o.SkipDDL = []string{"ALTER TABLE t ADD*"}
	err = Run(ctx, o)
	if err == nil || !strings.Contains(err.Error(), "seq") {
		t.Fatalf("after --skip-ddl without the change on the target: %v", err)
	}
	if _, err := g.pg.Exec(ctx, "ALTER TABLE "+g.db+".t ADD COLUMN seq integer UNIQUE"); err != nil {
		t.Fatal(err)
	}
	g.catchUp(o)
	var seq int
	if err := g.pg.QueryRow(ctx, "SELECT seq FROM "+g.db+".t WHERE id = 2").Scan(&seq); err != nil || seq != 2 {
		t.Errorf("row 2 after the skipped statement: seq %d, %v", seq, err)
	}
}

func columnNames(cols []schema.Column) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Name
	}
	return out
}

func sorted(s []string) []string {
	sort.Strings(s)
	return s
}

// binlogBase is the binlog base name of the sandbox server of env's flavor.
func binlogBase(env *testenv.Env) string {
	if env.IsMySQL() {
		return "binlog"
	}
	return "mysql-bin"
}
