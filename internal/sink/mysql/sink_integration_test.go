package mysql

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/testenv"
)

// fixture is a target database and a stream of the sandbox's MySQL target.
type fixture struct {
	t      testing.TB
	admin  *sql.DB
	db     *sql.DB // the sink's pool (sluice user)
	name   string  // target database
	stream string
}

func newFixture(t testing.TB) *fixture { return newFixtureOn(t, testenv.Get(t)) }

// newFixtureOn is newFixture on env's MySQL target (the MariaDB one, or
// MySQL 9.7 under testenv.MariaDBAndMySQL9).
func newFixtureOn(t testing.TB, env *testenv.Env) *fixture {
	tgt := env.MySQLTarget(t)
	f := &fixture{t: t, admin: tgt.Admin(t), name: testenv.UniqueName("ms"), stream: testenv.UniqueName("ms")}
	tgt.NewDatabase(t, f.name)
	u, err := config.ParseMySQLTarget(tgt.URL(f.name))
	if err != nil {
		t.Fatalf("target URL: %v", err)
	}
	if f.db, err = Open(u); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = mysqlstate.Delete(context.Background(), f.admin, f.stream)
		_ = f.db.Close()
	})
	return f
}

// session opens a sink and one of its sessions, closed when the test ends.
func (f *fixture) session(ctx context.Context) *session {
	s := f.sink()
	if _, _, err := s.Open(ctx); err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { s.Close() })
	ps, err := s.Session(ctx)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { ps.Close() })
	return ps.(*session)
}

func (f *fixture) sink() *Sink {
	s, err := New(Config{Stream: f.stream, Decode: binlogpos.Decode, SourceDB: "app", TargetDB: f.name,
		FenceTimeout: time.Second, Log: testenv.Logger()}, f.db)
	if err != nil {
		f.t.Fatal(err)
	}
	return s
}

func (f *fixture) exec(q string) {
	f.t.Helper()
	if _, err := f.admin.Exec(q); err != nil {
		f.t.Fatalf("%s: %v", q, err)
	}
}

func (f *fixture) count(q string) int {
	f.t.Helper()
	var n int
	if err := f.admin.QueryRow(q).Scan(&n); err != nil {
		f.t.Fatalf("%s: %v", q, err)
	}
	return n
}

func table(cols ...string) *schema.Table {
	t := &schema.Table{TableID: schema.TableID{Database: "app", Name: "t"}, PrimaryKey: []string{"id"}, Engine: "InnoDB"}
	for _, c := range cols {
		t.Columns = append(t.Columns, schema.Column{Name: c, DataType: "int"})
	}
	return t
}

// TestFenceRefusesALiveRunAndEndsADeadOne: a second replicator of a
// stream is refused while the first runs; once the first's leader is gone,
// a new run KILLs the session the first left behind (with a transaction
// in flight) before it reads the state.
func TestFenceRefusesALiveRunAndEndsADeadOne(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.exec("CREATE TABLE `" + f.name + "`.t (id INT PRIMARY KEY)")
	first := f.sink()
	if _, _, err := first.Open(ctx); err != nil {
		t.Fatal(err)
	}
	sess, err := first.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	second := f.sink()
	_, _, err = second.Open(ctx)
	if err == nil || exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), "being replicated") {
		t.Fatalf("a second run of a live stream: %v; want a configuration error", err)
	}
	// The first run dies: its leader goes, a worker session stays with an
	// uncommitted row (a commit still in flight).
	conn := sess.(*session).conn
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO `"+f.name+"`.t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	first.Close()
	third := f.sink()
	if _, _, err := third.Open(ctx); err != nil {
		t.Fatalf("a run after a dead one: %v", err)
	}
	defer third.Close()
	if err := tx.Commit(); err == nil {
		t.Error("the dead run's session could still commit after the fence")
	}
	if n := f.count("SELECT COUNT(*) FROM `" + f.name + "`.t"); n != 0 {
		t.Errorf("the dead run's uncommitted row is there (%d rows)", n)
	}
	// The new run's own sessions work.
	s3, err := third.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s3.Close()
}

// TestDDLAfterACrash: a schema change whose pending marker survived a
// crash is not run twice when it had run, and is run when it had not.
func TestDDLAfterACrash(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.exec("CREATE TABLE `" + f.name + "`.t (id INT PRIMARY KEY, a INT)")
	p0 := binlogpos.Position{File: "bin.000001", Pos: 100}
	p1 := binlogpos.Position{File: "bin.000001", Pos: 200}
	p2 := binlogpos.Position{File: "bin.000001", Pos: 300}
	if err := EnsureState(ctx, f.admin, ""); err != nil {
		t.Fatal(err)
	}
	if err := mysqlstate.SaveSchema(ctx, f.admin, f.stream, 1, p0, "", []*schema.Table{table("id", "a")}, nil); err != nil {
		t.Fatal(err)
	}
	if err := mysqlstate.Save(ctx, f.admin, f.stream, checkpoint.State{Position: p0, SchemaVersion: 1}); err != nil {
		t.Fatal(err)
	}
	// A run crashed after ADD COLUMN b ran and before its checkpoint.
	if err := mysqlstate.SavePending(ctx, f.admin, f.stream, p1.Key(), "ALTER TABLE t ADD COLUMN b INT"); err != nil {
		t.Fatal(err)
	}
	f.exec("ALTER TABLE `" + f.name + "`.t ADD COLUMN b INT")

	s := f.sink()
	st, _, err := s.Open(ctx)
	if err != nil || st == nil || st.Position.Key() != p0.Key() {
		t.Fatalf("open: %+v %v", st, err)
	}
	defer s.Close()
	sess, err := s.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	add := &model.Txn{End: p1, DDL: &model.DDL{Database: "app", Statement: "ALTER TABLE t ADD COLUMN b INT",
		PG: []string{"ALTER TABLE t ADD COLUMN b INT"}, Version: 2, Tables: []*schema.Table{table("id", "a", "b")}}}
	if err := sess.ApplyDDL(ctx, add, checkpoint.State{Position: p1, SchemaVersion: 2}); err != nil {
		t.Fatalf("the schema change that had run: %v", err)
	}
	if key, _ := mysqlstate.LoadPending(ctx, f.admin, f.stream); key != "" {
		t.Errorf("pending marker %q left after the checkpoint", key)
	}
	// The next change is pending too (as if the run crashed before running it).
	if err := mysqlstate.SavePending(ctx, f.admin, f.stream, p2.Key(), "ALTER TABLE app.t DROP COLUMN a"); err != nil {
		t.Fatal(err)
	}
	s.pending = p2.Key()
	drop := &model.Txn{End: p2, DDL: &model.DDL{Database: "app", Statement: "ALTER TABLE app.t DROP COLUMN a",
		PG: []string{"ALTER TABLE app.t DROP COLUMN a"}, Version: 3, Tables: []*schema.Table{table("id", "b")}}}
	if err := sess.ApplyDDL(ctx, drop, checkpoint.State{Position: p2, SchemaVersion: 3}); err != nil {
		t.Fatalf("the schema change that had not run: %v", err)
	}
	var cols string
	if err := f.admin.QueryRow(`SELECT GROUP_CONCAT(COLUMN_NAME ORDER BY ORDINAL_POSITION) FROM information_schema.COLUMNS
		WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 't'`, f.name).Scan(&cols); err != nil || cols != "id,b" {
		t.Errorf("target columns %q (%v), want id,b", cols, err)
	}
	st2, err := mysqlstate.Load(ctx, f.admin, f.stream, binlogpos.Decode)
	if err != nil || st2.Position.Key() != p2.Key() || st2.SchemaVersion != 3 {
		t.Errorf("checkpoint %+v %v, want %s version 3", st2, err, p2)
	}

	// Rows and their applied record commit together.
	tv := table("id", "b")
	p3 := binlogpos.Position{File: "bin.000001", Pos: 400}
	txn := &model.Txn{End: p3, Changes: []model.RowChange{{Op: model.Insert, Table: tv, After: []any{int32(1), nil}}}}
	g := &pipeline.Group{Txns: []*model.Txn{txn}, Changes: []pipeline.Change{{RowChange: txn.Changes[0], Txn: txn}}}
	if _, err := sess.ApplyGroup(ctx, g, p2); err != nil {
		t.Fatal(err)
	}
	rows, err := mysqlstate.LoadApplied(ctx, f.admin, f.stream, binlogpos.Decode)
	if err != nil || len(rows) != 1 || rows[0].Last.Key() != p3.Key() {
		t.Errorf("applied records %+v %v", rows, err)
	}
	// A second insert of the same key is refused and names the row.
	if _, err := sess.ApplyGroup(ctx, g, p2); err == nil || !strings.Contains(err.Error(), "id=1") {
		t.Errorf("duplicate insert: %v", err)
	}
}
