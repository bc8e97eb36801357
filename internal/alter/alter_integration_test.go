package alter

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/testenv"
)

const baseTable = "CREATE TABLE t (id BIGINT NOT NULL PRIMARY KEY, a INT NOT NULL DEFAULT 0, b VARCHAR(100), c INT NULL) ENGINE=InnoDB"

// TestAlterCopyUnderLoad runs each kind of change by the copy method while
// four writers insert, update, delete and move rows through prepared
// statements, then compares every row with the writers' model.
func TestAlterCopyUnderLoad(t *testing.T) {
	cases := []struct {
		name, create, clauses string
		allowDrop             bool
		reread                bool     // changed keys re-read from the table, not written from row images
		keep                  float64  // --keep-write-rate (the CLI's default pacing)
		want                  []string // in SHOW CREATE TABLE after
		notWant               []string
	}{
		{name: "add_column_and_index", create: baseTable, clauses: "ADD COLUMN d VARCHAR(20) NOT NULL DEFAULT 'x', ADD INDEX ia (a)", keep: 0.9,
			want: []string{"`d` varchar(20)", "KEY `ia`"}},
		{name: "drop_column", create: baseTable, clauses: "DROP COLUMN c", allowDrop: true, notWant: []string{"`c`"}},
		{name: "modify_type", create: baseTable, clauses: "MODIFY a BIGINT NOT NULL DEFAULT 0, MODIFY b VARCHAR(300)",
			want: []string{"`a` bigint", "`b` varchar(300)"}},
		// Widened types whose text differs (5 → 5.000): the checksum
		// compares values.
		{name: "int_to_decimal", create: baseTable, clauses: "MODIFY c DECIMAL(12,3) NULL", reread: true, want: []string{"`c` decimal(12,3)"}},
		{name: "drop_index", create: strings.Replace(baseTable, "c INT NULL)", "c INT NULL, KEY ib (b))", 1), clauses: "DROP INDEX ib",
			notWant: []string{"KEY `ib`"}},
		{name: "charset", create: baseTable + " DEFAULT CHARSET=latin1", clauses: "CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_bin",
			want: []string{"utf8mb4_bin"}},
		// A composite key with a string part: changed keys wait for the
		// whole copy and are matched by their bytes in the column's charset.
		{name: "composite_string_key", create: "CREATE TABLE t (id BIGINT NOT NULL, s VARCHAR(10) NOT NULL DEFAULT 'é-X', " +
			"a INT NOT NULL DEFAULT 0, b VARCHAR(100), c INT NULL, PRIMARY KEY (id, s)) ENGINE=InnoDB", clauses: "ADD INDEX ia (a)", reread: true,
			want: []string{"KEY `ia`"}},
		{name: "primary_key", create: baseTable, clauses: "DROP PRIMARY KEY, ADD PRIMARY KEY (id, a), ADD UNIQUE KEY uid (id)",
			want: []string{"PRIMARY KEY (`id`,`a`)", "UNIQUE KEY `uid`"}},
	}
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				name := env.NewDatabase(t, "alter_"+tc.name)
				db := env.MySQL(t, name)
				rows := seed(t, db, tc.create)
				l := startLoad(t, db, rows, 4)
				o := alterOptions(t, env, name, tc.clauses)
				o.AllowDropColumn = tc.allowDrop
				o.KeepWriteRate = tc.keep
				o.afterChunk = func(int) { time.Sleep(15 * time.Millisecond) } // let the writers overlap the copy
				ops0, start := l.ops.Load(), time.Now()
				rep, err := Run(context.Background(), o)
				rate := float64(l.ops.Load()-ops0) / time.Since(start).Seconds() // an operation is one row change
				// Writes after the swap, through the same prepared statements.
				time.Sleep(300 * time.Millisecond)
				l.finish()
				if err != nil {
					t.Fatalf("alter: %v", err)
				}
				t.Logf("report: %+v", *rep)
				if rep.Method != MethodCopy || rep.CutoverLock > 2*time.Second {
					t.Errorf("report %+v", *rep)
				}
				if want := map[bool]string{false: applyImages, true: applyReread}[tc.reread]; rep.Apply != want {
					t.Errorf("changed keys applied by %q, want %q", rep.Apply, want)
				}
				// The paced copy overlaps thousands of changes: keys whose
				// last change a chunk's copy read are left to it.
				if tc.keep > 0 && rep.KeysReadByCopy == 0 {
					t.Errorf("no changed key left to the copy: %+v", *rep)
				}
				// The baseline is the writers' rate (higher without the
				// copy than over the whole run).
				if tc.keep > 0 && (!rep.WriteRateMeasured || rep.WriteRate < rate/2 || rep.WriteRate > 4*rate) {
					t.Errorf("pacing baseline %.0f changes/s (measured %v), the writers' rate %.0f/s", rep.WriteRate, rep.WriteRateMeasured, rate)
				}
				l.compare(db)
				var tn, ddl string
				if err := db.QueryRow("SHOW CREATE TABLE t").Scan(&tn, &ddl); err != nil {
					t.Fatal(err)
				}
				for _, w := range tc.want {
					if !strings.Contains(ddl, w) {
						t.Errorf("new definition lacks %q:\n%s", w, ddl)
					}
				}
				for _, w := range tc.notWant {
					if strings.Contains(ddl, w) {
						t.Errorf("new definition still has %q:\n%s", w, ddl)
					}
				}
				leftovers(t, db, name)
			})
		}
	})
}

// TestAlterResumeAfterInterrupt stops a run in the middle of the copy (its
// state stays, as after kill -9) and runs it again: it resumes from the
// saved chunks and replays the binlog from the saved position.
func TestAlterResumeAfterInterrupt(t *testing.T) {
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		name := env.NewDatabase(t, "alter_resume")
		db := env.MySQL(t, name)
		rows := seed(t, db, baseTable)
		l := startLoad(t, db, rows, 4)
		o := alterOptions(t, env, name, "ADD COLUMN d INT, ADD INDEX ib (b)")
		ctx, cancel := context.WithCancel(context.Background())
		o.afterChunk = func(seq int) {
			time.Sleep(10 * time.Millisecond)
			if seq == 10 {
				cancel()
			}
		}
		if _, err := Run(ctx, o); err == nil || !errors.Is(err, context.Canceled) {
			l.finish()
			t.Fatalf("interrupted run: %v", err)
		}
		var n int
		if err := db.QueryRow("SELECT COUNT(*) FROM `sluice`.`alter_chunks` WHERE db = ? AND done = 1", name).Scan(&n); err != nil || n == 0 {
			t.Fatalf("no copied chunk recorded (%d, %v)", n, err)
		}
		time.Sleep(300 * time.Millisecond) // changes the resumed run must replay
		o.afterChunk = func(int) { time.Sleep(5 * time.Millisecond) }
		rep, err := Run(context.Background(), o)
		time.Sleep(200 * time.Millisecond)
		l.finish()
		if err != nil {
			t.Fatalf("resumed run: %v", err)
		}
		if !rep.Resumed {
			t.Errorf("run did not resume: %+v", *rep)
		}
		l.compare(db)
		leftovers(t, db, name)
	})
}

// TestAlterAbortLeavesNothing aborts through the control file mid-copy.
func TestAlterAbortLeavesNothing(t *testing.T) {
	env := testenv.Get(t)
	name := env.NewDatabase(t, "alter_abort")
	db := env.MySQL(t, name)
	rows := seed(t, db, baseTable)
	l := startLoad(t, db, rows, 2)
	o := alterOptions(t, env, name, "ADD COLUMN d INT, ADD INDEX ib (b)")
	o.ControlFile = filepath.Join(t.TempDir(), "ctl")
	o.afterChunk = func(seq int) {
		if seq == 5 {
			if err := os.WriteFile(o.ControlFile, []byte("abort\n"), 0o600); err != nil {
				t.Error(err)
			}
			time.Sleep(300 * time.Millisecond)
		}
	}
	_, err := Run(context.Background(), o)
	l.finish()
	if !errors.Is(err, errAbort) || exitcode.Of(err) != exitcode.Failure {
		t.Fatalf("want an abort (exit 1), got %v", err)
	}
	leftovers(t, db, name)
	var tn, ddl string
	if err := db.QueryRow("SHOW CREATE TABLE t").Scan(&tn, &ddl); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(ddl, "`d`") {
		t.Errorf("aborted alter changed the table:\n%s", ddl)
	}
	l.compare(db)

	// A new unique key the data violates: INSERT IGNORE would skip rows,
	// the checksum sees it and aborts.
	// Two rows that exist (the write load deletes random ones).
	if res, err := db.Exec("UPDATE t SET b = 'dup' ORDER BY id LIMIT 2"); err != nil {
		t.Fatal(err)
	} else if n, _ := res.RowsAffected(); n != 2 {
		t.Fatalf("made %d rows duplicates, want 2", n)
	}
	o = alterOptions(t, env, name, "ADD UNIQUE KEY ub (b)")
	if _, err := Run(context.Background(), o); !errors.Is(err, errAbort) || !strings.Contains(err.Error(), "checksum") {
		t.Fatalf("unique key violated by the data: want a checksum abort, got %v", err)
	}
	leftovers(t, db, name)

	// --critical-load aborts the same way (Threads_running is at least 1).
	o = alterOptions(t, env, name, "ADD COLUMN d INT, ADD INDEX ib (b)")
	o.CriticalLoad = Load{"Threads_running": 0}
	if _, err := Run(context.Background(), o); !errors.Is(err, errAbort) || !strings.Contains(err.Error(), "critical load") {
		t.Fatalf("--critical-load: want an abort, got %v", err)
	}
	leftovers(t, db, name)
}

// TestAlterInstant: an ADD COLUMN the server does INSTANT takes that path.
func TestAlterInstant(t *testing.T) {
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		name := env.NewDatabase(t, "alter_instant")
		db := env.MySQL(t, name)
		rows := seed(t, db, baseTable)
		l := startLoad(t, db, rows, 2)
		o := alterOptions(t, env, name, "ADD COLUMN d INT NULL")
		o.Method = MethodAuto
		rep, err := Run(context.Background(), o)
		time.Sleep(200 * time.Millisecond)
		l.finish()
		if err != nil {
			t.Fatal(err)
		}
		if rep.Method != MethodInstant {
			t.Errorf("method %s (%s), want instant", rep.Method, rep.Why)
		}
		// The ALTER's exclusive metadata lock is one the writers waited on.
		if len(rep.Locks) != 1 || rep.Locks[0].Step != stepInstant || !rep.Locks[0].Granted || rep.Locks[0].Blocked() <= 0 {
			t.Errorf("locks %+v: want the INSTANT ALTER's, with its time", rep.Locks)
		}
		l.compare(db)
		// --method instant refuses what needs a copy.
		o.Method, o.Alter = MethodInstant, "ADD INDEX ib (b)"
		if _, err := Run(context.Background(), o); exitcode.Of(err) != exitcode.Config {
			t.Errorf("--method instant with ADD INDEX: want exit 2, got %v", err)
		}
	})
}

// TestAlterRefusals: what cannot be done safely exits 2 and changes nothing.
func TestAlterRefusals(t *testing.T) {
	env := testenv.Get(t)
	name := env.NewDatabase(t, "alter_refuse")
	db := env.MySQL(t, name)
	for _, q := range []string{
		baseTable,
		"CREATE TABLE nokey (a INT, b INT)",
		"CREATE TABLE trig (id INT PRIMARY KEY, a INT)",
		"CREATE TRIGGER trig_bi BEFORE INSERT ON trig FOR EACH ROW SET NEW.a = 1",
		// Two problems: both are named, each with its fix.
		"CREATE TABLE two (a INT, b INT)",
		"CREATE TRIGGER two_au AFTER UPDATE ON two FOR EACH ROW SET @x = 1",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ table, clauses, want string }{
		{"t", "DROP COLUMN c", "--allow-drop-column"},
		{"t", "RENAME COLUMN b TO bb", "renames column b to bb"},
		{"t", "CHANGE b bb VARCHAR(100)", "renames column b to bb"},
		{"t", "ADD COLUMN d INT, ALGORITHM=COPY", "ALGORITHM"},
		{"t", "ADD CONSTRAINT t_self FOREIGN KEY (a) REFERENCES t (id)", "adds or drops a foreign key"},
		{"t", "DROP FOREIGN KEY x", "adds or drops a foreign key"},
		{"t", "DROP PRIMARY KEY, ADD PRIMARY KEY (id, a)", "no PRIMARY KEY or NOT NULL unique key"},
		{"nokey", "ADD INDEX (a)", "no PRIMARY KEY or NOT NULL unique key"},
		{"trig", "ADD INDEX (a)", "trigger(s) trig_bi (BEFORE INSERT)|SHOW CREATE TRIGGER"},
		{"two", "ADD INDEX (a)", "2 reasons|trigger(s) two_au (AFTER UPDATE)|no PRIMARY KEY or NOT NULL unique key"},
		{"two", "DROP COLUMN b", "3 reasons|--allow-drop-column|two_au|no PRIMARY KEY"},
	} {
		o := alterOptions(t, env, name, tc.clauses)
		o.Table = tc.table
		o.Method = MethodAuto
		_, err := Run(context.Background(), o)
		if exitcode.Of(err) != exitcode.Config {
			t.Errorf("%s %q: want exit 2, got %v", tc.table, tc.clauses, err)
		}
		for _, want := range strings.Split(tc.want, "|") {
			if !strings.Contains(fmt.Sprint(err), want) {
				t.Errorf("%s %q: want %q in the refusal, got %v", tc.table, tc.clauses, want, err)
			}
		}
	}
	var tn, ddl string
	if err := db.QueryRow("SHOW CREATE TABLE t").Scan(&tn, &ddl); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ddl, "`c`") || !strings.Contains(ddl, "PRIMARY KEY (`id`)") {
		t.Errorf("a refused alter changed the table:\n%s", ddl)
	}
	leftovers(t, db, name)
	// A dry run writes nothing and prints the plan.
	o := alterOptions(t, env, name, "ADD INDEX ia (a)")
	o.DryRun = true
	rep, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if plan := strings.Join(rep.Plan, "\n"); !strings.Contains(plan, "ALTER TABLE `"+name+"`.`t_new` ADD INDEX ia (a)") || !strings.Contains(plan, "row identity: id") {
		t.Errorf("dry-run plan:\n%s", plan)
	}
	leftovers(t, db, name)
}

// TestAlterKeepsAutoIncrement: ids of rows deleted at the top are not
// handed out again after the swap.
func TestAlterKeepsAutoIncrement(t *testing.T) {
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		name := env.NewDatabase(t, "alter_autoinc")
		db := env.MySQL(t, name)
		for _, q := range []string{
			"CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, a INT)",
			"INSERT INTO t (a) VALUES (1),(2),(3),(4),(5),(6),(7),(8),(9),(10)",
			"DELETE FROM t WHERE id > 5",
		} {
			if _, err := db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := Run(context.Background(), alterOptions(t, env, name, "ADD INDEX ia (a)")); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec("INSERT INTO t (a) VALUES (11)"); err != nil {
			t.Fatal(err)
		}
		var id int
		if err := db.QueryRow("SELECT MAX(id) FROM t").Scan(&id); err != nil || id != 11 {
			t.Errorf("next id after the swap: %d (%v), want 11", id, err)
		}
	})
}

// TestAlterControls: pause and resume through the control file, a
// postponed cut-over that waits for "cutover", and --max-load.
func TestAlterControls(t *testing.T) {
	env := testenv.Get(t)
	name := env.NewDatabase(t, "alter_ctl")
	db := env.MySQL(t, name)
	rows := seed(t, db, baseTable)
	l := startLoad(t, db, rows, 2)
	o := alterOptions(t, env, name, "ADD COLUMN d INT, ADD INDEX ib (b)")
	o.ControlFile = filepath.Join(t.TempDir(), "ctl")
	o.PostponeCutover = true
	o.MaxLoad = Load{"Threads_running": 1000}
	write := func(w string) {
		if err := os.WriteFile(o.ControlFile, []byte(w+"\n"), 0o600); err != nil {
			t.Error(err)
		}
	}
	var pausedAt, resumedAt atomic.Int64 // unix nanoseconds
	o.afterChunk = func(seq int) {
		if seq == 3 {
			write("pause")
			pausedAt.Store(time.Now().UnixNano())
			go func() {
				time.Sleep(time.Second)
				resumedAt.Store(time.Now().UnixNano())
				write("resume")
			}()
		}
	}
	type result struct {
		rep *Report
		err error
	}
	done := make(chan result, 1)
	go func() {
		rep, err := Run(context.Background(), o)
		done <- result{rep, err}
	}()
	// The copy pauses, resumes, then waits for "cutover".
	deadline := time.Now().Add(60 * time.Second)
	for {
		var n int
		_ = db.QueryRow("SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 't_new'", name).Scan(&n)
		var left int
		_ = db.QueryRow("SELECT COUNT(*) FROM `sluice`.`alter_chunks` WHERE db = ? AND done = 0", name).Scan(&left)
		if resumedAt.Load() != 0 && left == 0 && n > 0 {
			break
		}
		select {
		case res := <-done:
			l.finish()
			t.Fatalf("run ended before the cut-over: %v", res.err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the copy did not finish")
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(time.Second)
	var cols int
	if err := db.QueryRow("SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 't' AND COLUMN_NAME = 'd'", name).Scan(&cols); err != nil || cols != 0 {
		t.Fatalf("swapped before \"cutover\" (%d, %v)", cols, err)
	}
	write("cutover")
	res := <-done
	l.finish()
	if res.err != nil {
		t.Fatal(res.err)
	}
	if d := time.Duration(resumedAt.Load() - pausedAt.Load()); d < 900*time.Millisecond {
		t.Errorf("pause lasted %s", d)
	}
	l.compare(db)
	leftovers(t, db, name)
}
