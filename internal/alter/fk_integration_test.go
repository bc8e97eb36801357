package alter

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlog"
	"github.com/sluice-db/sluice/internal/testenv"
)

// fkSchema: t, the altered table, references gp; c_cascade and c_null
// reference t (ON DELETE CASCADE, SET NULL); sib is another child of t's
// own parent.
// With cascade (a server that logs the rows a foreign key's action
// changes: MySQL 9's SQL-layer foreign keys), t's own constraint is ON
// DELETE CASCADE too, and the writer deletes parents that have rows in t.
func fkSchema(cascade bool) []string {
	action := ""
	if cascade {
		action = " ON DELETE CASCADE"
	}
	return []string{
		"CREATE TABLE gp (id INT PRIMARY KEY) ENGINE=InnoDB",
		"CREATE TABLE t (id INT PRIMARY KEY, gp_id INT NOT NULL, a INT, CONSTRAINT t_gp FOREIGN KEY (gp_id) REFERENCES gp (id)" + action + ") ENGINE=InnoDB",
		"CREATE TABLE c_cascade (id INT PRIMARY KEY, t_id INT NOT NULL, CONSTRAINT c_cascade_t FOREIGN KEY (t_id) REFERENCES t (id) ON DELETE CASCADE) ENGINE=InnoDB",
		"CREATE TABLE c_null (id INT PRIMARY KEY, t_id INT NULL, CONSTRAINT c_null_t FOREIGN KEY (t_id) REFERENCES t (id) ON DELETE SET NULL) ENGINE=InnoDB",
		"CREATE TABLE sib (id INT PRIMARY KEY, gp_id INT NOT NULL, CONSTRAINT sib_gp FOREIGN KEY (gp_id) REFERENCES gp (id) ON DELETE CASCADE) ENGINE=InnoDB",
	}
}

// fkModel is what the tables hold, kept by the one writer that changes them.
type fkModel struct {
	cascade bool // t's own constraint cascades (fkSchema)
	gp      map[int]bool
	t       map[int][2]int // id → gp_id, a
	cCas    map[int]int    // id → t_id
	cNull   map[int]*int   // id → t_id (nil: NULL)
	sib     map[int]int    // id → gp_id
}

const fkSeed = 6000

func seedFK(t *testing.T, db *sql.DB, cascade bool) *fkModel {
	t.Helper()
	m := &fkModel{cascade: cascade, gp: map[int]bool{}, t: map[int][2]int{}, cCas: map[int]int{}, cNull: map[int]*int{}, sib: map[int]int{}}
	for _, q := range fkSchema(cascade) {
		mustExec(t, db, q)
	}
	var gp, tr, cc, cn []string
	for i := 1; i <= 10; i++ {
		m.gp[i] = true
		gp = append(gp, fmt.Sprintf("(%d)", i))
	}
	for i := 1; i <= fkSeed; i++ {
		m.t[i] = [2]int{1 + i%10, i % 7}
		tr = append(tr, fmt.Sprintf("(%d,%d,%d)", i, 1+i%10, i%7))
		m.cCas[i] = i
		cc = append(cc, fmt.Sprintf("(%d,%d)", i, i))
		p := i
		m.cNull[i] = &p
		cn = append(cn, fmt.Sprintf("(%d,%d)", i, i))
	}
	mustExec(t, db, "INSERT INTO gp VALUES "+strings.Join(gp, ","))
	mustExec(t, db, "INSERT INTO t VALUES "+strings.Join(tr, ","))
	mustExec(t, db, "INSERT INTO c_cascade VALUES "+strings.Join(cc, ","))
	mustExec(t, db, "INSERT INTO c_null VALUES "+strings.Join(cn, ","))
	return m
}

// fkOp is one write of fkWriter and its effect on the model.
type fkOp struct {
	q    string
	args []any
	then func()
}

// fkWriter inserts and deletes in the parent, the altered table and the
// children until stop, keeping the model; every error is a client error.
func fkWriter(db *sql.DB, m *fkModel, stop <-chan struct{}) (ops int, err error) {
	next := fkSeed + 1
	for i := 0; ; i++ {
		select {
		case <-stop:
			return ops, nil
		default:
		}
		id := next
		next++
		gp := 1 + i%10
		steps := []fkOp{
			{"INSERT INTO t (id, gp_id, a) VALUES (?,?,?)", []any{id, gp, i % 5}, func() { m.t[id] = [2]int{gp, i % 5} }},
			{"INSERT INTO c_cascade VALUES (?,?)", []any{id, id}, func() { m.cCas[id] = id }},
			{"INSERT INTO c_null VALUES (?,?)", []any{id, id}, func() { p := id; m.cNull[id] = &p }},
			{"UPDATE t SET a = a + 1 WHERE id = ?", []any{id - 3}, func() {
				if r, ok := m.t[id-3]; ok {
					m.t[id-3] = [2]int{r[0], r[1] + 1}
				}
			}},
		}
		// Delete an older row of t (a seeded one or one written here):
		// its c_cascade rows go, its c_null rows lose their parent.
		victim := 1 + (i*37)%(next-1)
		steps = append(steps, fkOp{"DELETE FROM t WHERE id = ?", []any{victim}, func() { m.deleteT(victim) }})
		// A parent of its own, with a sibling child, deleted again (cascade).
		g := 1000 + i
		steps = append(steps,
			fkOp{"INSERT INTO gp VALUES (?)", []any{g}, func() { m.gp[g] = true }},
			fkOp{"INSERT INTO sib VALUES (?,?)", []any{g, g}, func() { m.sib[g] = g }})
		if m.cascade {
			// A row of t under that parent, with children: the parent's
			// delete cascades through t into c_cascade and c_null.
			tid := 800_000_000 + i
			steps = append(steps,
				fkOp{"INSERT INTO t (id, gp_id, a) VALUES (?,?,?)", []any{tid, g, 1}, func() { m.t[tid] = [2]int{g, 1} }},
				fkOp{"INSERT INTO c_cascade VALUES (?,?)", []any{tid, tid}, func() { m.cCas[tid] = tid }},
				fkOp{"INSERT INTO c_null VALUES (?,?)", []any{tid, tid}, func() { p := tid; m.cNull[tid] = &p }})
		}
		steps = append(steps,
			fkOp{"DELETE FROM gp WHERE id = ?", []any{g}, func() { m.deleteGP(g) }})
		for _, s := range steps {
			if _, err := db.Exec(s.q, s.args...); err != nil {
				return ops, fmt.Errorf("%s %v: %w", s.q, s.args, err)
			}
			s.then()
			ops++
		}
	}
}

// deleteGP is a parent's delete: sib's rows go, and t's with theirs (the
// writer puts rows of t under its own parents only with cascade).
func (m *fkModel) deleteGP(g int) {
	delete(m.gp, g)
	delete(m.sib, g)
	for id, r := range m.t {
		if r[0] == g {
			m.deleteT(id)
		}
	}
}

func (m *fkModel) deleteT(id int) {
	if _, ok := m.t[id]; !ok {
		return
	}
	delete(m.t, id)
	for c, p := range m.cCas {
		if p == id {
			delete(m.cCas, c)
		}
	}
	for c, p := range m.cNull {
		if p != nil && *p == id {
			m.cNull[c] = nil
		}
	}
}

// fkConstraints lists the database's foreign keys: holder, name, parent,
// rules.
func fkConstraints(t *testing.T, db *sql.DB, name string) string {
	t.Helper()
	rows, err := queryMaps(context.Background(), db, `SELECT TABLE_NAME AS t, CONSTRAINT_NAME AS n, REFERENCED_TABLE_NAME AS p, UPDATE_RULE AS u, DELETE_RULE AS d
		FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = ? ORDER BY TABLE_NAME, CONSTRAINT_NAME`, name)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprintf("%s.%s→%s(%s/%s)", r["t"], r["n"], r["p"], r["u"], r["d"]))
	}
	return strings.Join(out, " ")
}

// TestAlterForeignKeys: a table with a parent and two children (ON DELETE
// CASCADE, SET NULL) is altered by copy under inserts and deletes on all
// of them; afterwards every constraint has its name and parent, enforces
// and acts as before, no row is an orphan and every table holds exactly
// what the writer wrote.
func TestAlterForeignKeys(t *testing.T) {
	testenv.MariaDBAndMySQL9(t, func(t *testing.T, env *testenv.Env) {
		name := env.NewDatabase(t, "alter_fk")
		db := env.MySQL(t, name)
		// MySQL 9's SQL-layer foreign keys log their actions' rows, so the
		// table's own constraint may cascade there (fkSchema).
		cascade := binlog.SQLForeignKeys(context.Background(), db)
		m := seedFK(t, db, cascade)
		before := fkConstraints(t, db, name)
		// The dry run lists the constraint moves the swap will make.
		dry := alterOptions(t, env, name, "ADD COLUMN d INT NULL, ADD INDEX ia (a)")
		dry.DryRun = true
		drep, err := Run(context.Background(), dry)
		if err != nil {
			t.Fatal(err)
		}
		if plan := strings.Join(drep.Plan, "\n"); !strings.Contains(plan, "c_null` ADD CONSTRAINT `c_null_t` FOREIGN KEY (`t_id`) REFERENCES `t_new` (`id`) ON DELETE SET NULL") ||
			!strings.Contains(plan, "`t_new` ADD CONSTRAINT `t_gp` FOREIGN KEY") {
			t.Errorf("dry-run plan without the constraint moves:\n%s", plan)
		}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		var ops int
		var werr error
		wg.Add(1)
		go func() { defer wg.Done(); ops, werr = fkWriter(db, m, stop) }()
		o := alterOptions(t, env, name, "ADD COLUMN d INT NULL, ADD INDEX ia (a)")
		o.ChunkRows = 300
		rep, err := Run(context.Background(), o)
		close(stop)
		wg.Wait()
		if err != nil {
			t.Fatal(err)
		}
		if werr != nil {
			t.Fatalf("client error during the change (after %d writes): %v", ops, werr)
		}
		if rep.Method != MethodCopy || ops < 50 {
			t.Fatalf("method %s with %d writes during it: want a copy under writes", rep.Method, ops)
		}
		t.Logf("%d writes during the change (t's own constraint cascades: %v); swap blocked writes %s", ops, cascade, rep.CutoverLock)
		if after := fkConstraints(t, db, name); after != before {
			t.Errorf("foreign keys after the swap:\n  %s\nwant as before:\n  %s", after, before)
		}
		checkFKData(t, db, m)
		checkNoOrphans(t, db)
		var n int
		if err := db.QueryRow("SELECT COUNT(d) + COUNT(*) FROM t").Scan(&n); err != nil || n != len(m.t) {
			t.Errorf("t after the change: %d rows, %v (want the new column d and %d rows)", n, err, len(m.t))
		}
		checkFKEnforced(t, db, cascade)
		leftovers(t, db, name)
	})
}

// checkFKData compares every table with the writer's model.
func checkFKData(t *testing.T, db *sql.DB, m *fkModel) {
	t.Helper()
	want := map[string]map[string]bool{"gp": {}, "t": {}, "c_cascade": {}, "c_null": {}, "sib": {}}
	for id := range m.gp {
		want["gp"][fmt.Sprint(id)] = true
	}
	for id, r := range m.t {
		want["t"][fmt.Sprintf("%d,%d,%d", id, r[0], r[1])] = true
	}
	for id, p := range m.cCas {
		want["c_cascade"][fmt.Sprintf("%d,%d", id, p)] = true
	}
	for id, p := range m.cNull {
		v := "NULL"
		if p != nil {
			v = fmt.Sprint(*p)
		}
		want["c_null"][fmt.Sprintf("%d,%s", id, v)] = true
	}
	for id, p := range m.sib {
		want["sib"][fmt.Sprintf("%d,%d", id, p)] = true
	}
	queries := map[string]string{
		"gp": "SELECT CONCAT(id) FROM gp", "t": "SELECT CONCAT_WS(',', id, gp_id, a) FROM t",
		"c_cascade": "SELECT CONCAT_WS(',', id, t_id) FROM c_cascade", "c_null": "SELECT CONCAT_WS(',', id, COALESCE(t_id, 'NULL')) FROM c_null",
		"sib": "SELECT CONCAT_WS(',', id, gp_id) FROM sib",
	}
	for table, q := range queries {
		rows, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			got[s] = true
		}
		rows.Close()
		missing, extra := 0, 0
		var first []string
		for s := range want[table] {
			if !got[s] {
				missing++
				first = append(first, "missing "+s)
			}
		}
		for s := range got {
			if !want[table][s] {
				extra++
				first = append(first, "extra "+s)
			}
		}
		if missing+extra > 0 {
			t.Errorf("%s: %d rows missing, %d extra against the writer's model (%d rows), e.g. %v", table, missing, extra, len(want[table]), first[:min(5, len(first))])
		}
	}
}

// checkNoOrphans: no child row references a row that is not there.
func checkNoOrphans(t *testing.T, db *sql.DB) {
	t.Helper()
	for _, q := range []string{
		"SELECT COUNT(*) FROM t LEFT JOIN gp ON gp.id = t.gp_id WHERE gp.id IS NULL",
		"SELECT COUNT(*) FROM c_cascade c LEFT JOIN t ON t.id = c.t_id WHERE t.id IS NULL",
		"SELECT COUNT(*) FROM c_null c LEFT JOIN t ON t.id = c.t_id WHERE c.t_id IS NOT NULL AND t.id IS NULL",
		"SELECT COUNT(*) FROM sib s LEFT JOIN gp ON gp.id = s.gp_id WHERE gp.id IS NULL",
	} {
		var n int
		if err := db.QueryRow(q).Scan(&n); err != nil || n != 0 {
			t.Errorf("%s: %d orphans (%v), want 0", q, n, err)
		}
	}
}

// checkFKEnforced: a violating write is refused, and a parent's delete
// cascades or sets null, on the new table.
func checkFKEnforced(t *testing.T, db *sql.DB, cascade bool) {
	t.Helper()
	refused := []struct {
		q    string
		code uint16
	}{
		{"INSERT INTO t (id, gp_id, a) VALUES (900000001, 999999, 0)", 1452},               // t → gp
		{"INSERT INTO c_cascade VALUES (900000001, 999999999)", 1452},                      // c_cascade → t
		{"INSERT INTO c_null VALUES (900000001, 999999999)", 1452},                         // c_null → t
		{"UPDATE t SET id = 999999999 WHERE id = (SELECT MIN(t_id) FROM c_cascade)", 1451}, // referenced, no ON UPDATE action
	}
	if !cascade {
		refused = append(refused, struct {
			q    string
			code uint16
		}{"DELETE FROM gp WHERE id = 1", 1451}) // t's rows reference gp 1
	}
	for _, tc := range refused {
		_, err := db.Exec(tc.q)
		var me *mysql.MySQLError
		if !errors.As(err, &me) || me.Number != tc.code {
			t.Errorf("%s: got %v, want error %d", tc.q, err, tc.code)
		}
	}
	mustExec(t, db, "INSERT INTO t (id, gp_id, a) VALUES (900000002, 2, 0)")
	mustExec(t, db, "INSERT INTO c_cascade VALUES (900000002, 900000002)")
	mustExec(t, db, "INSERT INTO c_null VALUES (900000002, 900000002)")
	mustExec(t, db, "DELETE FROM t WHERE id = 900000002")
	var cas, null int
	if err := db.QueryRow("SELECT (SELECT COUNT(*) FROM c_cascade WHERE id = 900000002), (SELECT COUNT(*) FROM c_null WHERE id = 900000002 AND t_id IS NULL)").Scan(&cas, &null); err != nil || cas != 0 || null != 1 {
		t.Errorf("a delete of t: c_cascade rows left %d (want 0), c_null rows set NULL %d (want 1), %v", cas, null, err)
	}
	if cascade {
		// t's own constraint cascades: a parent's delete reaches t and,
		// through it, t's children.
		mustExec(t, db, "INSERT INTO gp VALUES (900000004)")
		mustExec(t, db, "INSERT INTO t (id, gp_id, a) VALUES (900000004, 900000004, 0)")
		mustExec(t, db, "INSERT INTO c_cascade VALUES (900000004, 900000004)")
		mustExec(t, db, "INSERT INTO c_null VALUES (900000004, 900000004)")
		mustExec(t, db, "DELETE FROM gp WHERE id = 900000004")
		var tn int
		if err := db.QueryRow("SELECT (SELECT COUNT(*) FROM t WHERE id = 900000004), (SELECT COUNT(*) FROM c_cascade WHERE id = 900000004), "+
			"(SELECT COUNT(*) FROM c_null WHERE id = 900000004 AND t_id IS NULL)").Scan(&tn, &cas, &null); err != nil || tn != 0 || cas != 0 || null != 1 {
			t.Errorf("a delete of gp: t rows left %d, c_cascade %d (want 0, 0), c_null set NULL %d (want 1), %v", tn, cas, null, err)
		}
	}
	mustExec(t, db, "INSERT INTO gp VALUES (900000003)")
	mustExec(t, db, "INSERT INTO sib VALUES (900000003, 900000003)")
	mustExec(t, db, "DELETE FROM gp WHERE id = 900000003")
	if err := db.QueryRow("SELECT COUNT(*) FROM sib WHERE id = 900000003").Scan(&cas); err != nil || cas != 0 {
		t.Errorf("a delete of gp: sib rows left %d (want 0), %v", cas, err)
	}
}

// TestAlterForeignKeyRefusals: what the swap cannot carry exactly is
// refused with every reason at once (exit 2), the tables untouched.
func TestAlterForeignKeyRefusals(t *testing.T) {
	env := testenv.Get(t)
	name := env.NewDatabase(t, "alter_fkref")
	db := env.MySQL(t, name)
	for _, q := range []string{
		"CREATE TABLE p (id INT PRIMARY KEY) ENGINE=InnoDB",
		"CREATE TABLE t (id INT PRIMARY KEY, p_id INT, up INT, CONSTRAINT t_p FOREIGN KEY (p_id) REFERENCES p (id) ON DELETE CASCADE, " +
			"CONSTRAINT t_up FOREIGN KEY (up) REFERENCES t (id)) ENGINE=InnoDB",
		"CREATE TABLE c (id INT PRIMARY KEY, t_id INT, CONSTRAINT c_t FOREIGN KEY (t_id) REFERENCES t (id)) ENGINE=InnoDB",
	} {
		mustExec(t, db, q)
	}
	before := fkConstraints(t, db, name)
	_, err := Run(context.Background(), alterOptions(t, env, name, "MODIFY id BIGINT"))
	msg := fmt.Sprint(err)
	t.Log(msg)
	for _, want := range []string{"4 reasons", "t_up of", "references the table itself", "t_p of", "ON DELETE CASCADE", "alters or drops column id", "c_t (on"} {
		if !strings.Contains(msg, want) {
			t.Errorf("refusal %q: want %q in it", msg, want)
		}
	}
	if exitcode.Of(err) != exitcode.Config {
		t.Errorf("exit %d, want 2", exitcode.Of(err))
	}
	if after := fkConstraints(t, db, name); after != before {
		t.Errorf("a refused change changed the foreign keys: %s, want %s", after, before)
	}
	leftovers(t, db, name)
}

// TestAlterRestoresMovedForeignKeys: a run killed (kill -9) between moving
// the foreign keys to the copy and the RENAME leaves the children
// referencing the copy and the table without its own constraints, while
// the application writes the table again; the next run puts them back
// before anything else, and so does --cleanup.
func TestAlterRestoresMovedForeignKeys(t *testing.T) {
	testenv.MariaDBAndMySQL9(t, func(t *testing.T, env *testenv.Env) {
		for _, cleanup := range []bool{false, true} {
			name := env.NewDatabase(t, "alter_fkrest")
			db := env.MySQL(t, name)
			seedFK(t, db, false)
			before := fkConstraints(t, db, name)
			o := alterOptions(t, env, name, "ADD COLUMN d INT NULL")
			o.Cleanup = cleanup
			// The killed run's leftovers: its state, its copy, and the
			// constraints moved as the swap moves them.
			mustExec(t, db, "CREATE TABLE t_new LIKE t")
			mustExec(t, db, "INSERT INTO t_new SELECT * FROM t")
			mustExec(t, db, "ALTER TABLE t_new ADD COLUMN d INT NULL")
			killedMidSwap(t, db, o, name)
			if moved := fkConstraints(t, db, name); !strings.Contains(moved, "→t_new") {
				t.Fatalf("the simulated kill did not move the constraints: %s", moved)
			}
			if err := ensureState(context.Background(), db); err != nil {
				t.Fatal(err)
			}
			if err := saveRun(context.Background(), db, name, "t", &runState{Alter: o.Alter, StartPos: "", Chunks: nil}); err != nil {
				t.Fatal(err)
			}
			// (The resumed run stops later at the leftover state's empty
			// start position; the constraints are put back before.)
			_, err := Run(context.Background(), o)
			if cleanup && err != nil {
				t.Fatalf("--cleanup: %v", err)
			}
			t.Logf("cleanup %v: %v", cleanup, err)
			if after := fkConstraints(t, db, name); after != before {
				t.Errorf("cleanup %v: foreign keys %s, want them back as %s", cleanup, after, before)
			}
			checkNoOrphans(t, db)
			checkFKEnforced(t, db, false)
		}
	})
}

// TestAlterResumesAfterAKillMidSwap: the killed swap had moved the
// constraints to the copy (its ALTERs are in the binlog after the run's
// start position); the same command then resumes: it puts them back,
// replays the binlog past those ALTERs without taking them for a schema
// change, and swaps with every constraint carried.
func TestAlterResumesAfterAKillMidSwap(t *testing.T) {
	testenv.MariaDBAndMySQL9(t, func(t *testing.T, env *testenv.Env) {
		name := env.NewDatabase(t, "alter_fkkill")
		db := env.MySQL(t, name)
		m := seedFK(t, db, false)
		before := fkConstraints(t, db, name)
		// A run interrupted at its postponed cut-over: copy done, state kept.
		o := alterOptions(t, env, name, "ADD COLUMN d INT NULL")
		o.ControlFile = filepath.Join(t.TempDir(), "ctl")
		o.PostponeCutover = true
		ctx, cancel := context.WithCancel(context.Background())
		o.Log = slog.New(onMessage{"cut-over postponed", cancel})
		if _, err := Run(ctx, o); !errors.Is(err, context.Canceled) {
			t.Fatalf("the postponed run: %v, want it interrupted", err)
		}
		// Its kill mid-swap: the constraints moved, no RENAME.
		killedMidSwap(t, db, o, name)
		// Writes after the kill, before the restart (none that needs a
		// constraint's action: the children reference the copy until the
		// restart, docs/alter.md).
		mustExec(t, db, "INSERT INTO t (id, gp_id, a) VALUES (700000001, 3, 5), (700000002, 4, 6)")
		m.t[700000001], m.t[700000002] = [2]int{3, 5}, [2]int{4, 6}
		mustExec(t, db, "DELETE FROM t WHERE id = 700000002")
		delete(m.t, 700000002)
		mustExec(t, db, "UPDATE t SET a = 99 WHERE id = 8")
		m.t[8] = [2]int{m.t[8][0], 99}
		o = alterOptions(t, env, name, "ADD COLUMN d INT NULL")
		rep, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Resumed {
			t.Errorf("the second run did not resume the first")
		}
		if after := fkConstraints(t, db, name); after != before {
			t.Errorf("foreign keys %s, want %s", after, before)
		}
		checkFKData(t, db, m)
		checkNoOrphans(t, db)
		checkFKEnforced(t, db, false)
		leftovers(t, db, name)
	})
}

// killedMidSwap leaves what a swap killed after moving the foreign keys
// leaves: the constraints moved to t_new as the swap moves them, no RENAME.
func killedMidSwap(t *testing.T, db *sql.DB, o Options, name string) {
	t.Helper()
	r := &runner{o: o.withDefaults(), db: db, id: schema.TableID{Database: name, Name: "t"}, log: testenv.Logger()}
	var err error
	if r.fks, err = loadForeignKeys(context.Background(), db, r.id); err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := r.moveForeignKeys(context.Background(), conn); err != nil {
		t.Fatal(err)
	}
}

// onMessage is a log handler that calls fn on the first record with msg.
type onMessage struct {
	msg string
	fn  func()
}

func (h onMessage) Enabled(context.Context, slog.Level) bool { return true }
func (h onMessage) Handle(_ context.Context, r slog.Record) error {
	if strings.HasPrefix(r.Message, h.msg) {
		h.fn()
	}
	return nil
}
func (h onMessage) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h onMessage) WithGroup(string) slog.Handler      { return h }
