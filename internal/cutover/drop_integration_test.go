package cutover_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/cutover"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/source/postgres/logical"
	"github.com/sluice-db/sluice/internal/testenv"
)

// runDrop runs sluice drop in-process.
func runDrop(ctx context.Context, args ...string) (int, string, string) {
	return runCLI(ctx, append([]string{"drop", "--log-level", "warn"}, args...)...)
}

// streamRows counts the rows of the streams in every sluice table of the
// PostgreSQL target and of the MySQL source (cut-over records by either
// name), and whether the slots, publications and origins of the streams exist.
func (f *fixture) streamRows(t *testing.T, streams ...string) (pgRows, myRows, objects int) {
	t.Helper()
	pg := f.env.PG(t)
	for _, table := range testenv.PGRows(t, pg, `SELECT DISTINCT c.relname FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
		JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'sluice' AND c.relkind = 'r' AND a.attname = 'stream'`) {
		q := `SELECT count(*) FROM sluice.` + table + ` WHERE stream = ANY($1)`
		if table == "cutover" {
			q += ` OR reverse_stream = ANY($1)`
		}
		var n int
		if err := pg.QueryRow(f.ctx, q, streams).Scan(&n); err != nil {
			t.Fatal(err)
		}
		pgRows += n
	}
	my := f.env.MySQL(t, "")
	for _, table := range testenv.MySQLRows(t, my, `SELECT TABLE_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'sluice' AND COLUMN_NAME = 'stream'`) {
		for _, s := range streams {
			q, args := "SELECT COUNT(*) FROM sluice.`"+table+"` WHERE stream = ?", []any{s}
			if table == "cutover" {
				q, args = q+" OR reverse_stream = ?", []any{s, s}
			}
			var n int
			if err := my.QueryRow(q, args...).Scan(&n); err != nil {
				t.Fatal(err)
			}
			myRows += n
		}
	}
	for _, s := range streams {
		var n int
		if err := pg.QueryRow(f.ctx, `SELECT (SELECT count(*) FROM pg_replication_slots WHERE slot_name = $1)
			+ (SELECT count(*) FROM pg_publication WHERE pubname = $1)
			+ (SELECT count(*) FROM pg_replication_origin WHERE roname = $2)`, logical.SlotName(s), logical.ForwardOrigin(s, 0)).Scan(&n); err != nil {
			t.Fatal(err)
		}
		objects += n
	}
	return pgRows, myRows, objects
}

// TestDropStream decommissions a cut-over stream whose way back ran: sluice
// drop names the slot (with the WAL it retains), the publication, a leftover
// replication origin and the rows of both streams in the PostgreSQL
// target's and the MySQL source's sluice tables; without a terminal it needs
// --yes (exit 2, nothing removed); while a replicator of the stream is
// connected it is refused naming its pid and host; an unknown name is
// refused listing the streams that exist. Afterwards nothing of the stream
// is left, and another cut-over stream and every application table are as
// they were. Dropping only the other stream's way back lets it be cut over
// again (what the second cutover's refusal advises).
func TestDropStream(t *testing.T) { testenv.Flavors(t, testDropStream) }

func testDropStream(t *testing.T, env *testenv.Env) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	f := migrated(t, env, "drop_a")
	g := migrated(t, env, "drop_b")
	for _, x := range []*fixture{f, g} {
		if rep, err := cutover.Run(ctx, x.options(t)); err != nil {
			t.Fatalf("cutover %s: %v %+v", x.stream, err, rep)
		}
	}
	pg := env.PG(t)
	mustPG := func(q string, args ...any) {
		t.Helper()
		if _, err := pg.Exec(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// The way back of f ran (its state is in the MySQL source's database
	// sluice), and a killed forward apply left a replication origin.
	mustPG(`INSERT INTO ` + f.qlog + ` VALUES (500, 'on pg')`)
	if code, _, errOut := runCLI(ctx, "replicate", "--source", env.TargetURL(), "--target", env.SourceURL(f.db), "--stream", f.rev,
		"--until-caught-up", "--log-level", "warn"); code != 0 {
		t.Fatalf("the way back: exit %d\n%s", code, errOut)
	}
	mustPG(`SELECT pg_replication_origin_create($1)`, logical.ForwardOrigin(f.stream, 0))
	t.Cleanup(func() {
		_, _ = pg.Exec(context.Background(), `SELECT pg_replication_origin_drop($1)`, logical.ForwardOrigin(f.stream, 0))
	})
	pgBefore, myBefore, objBefore := f.streamRows(t, f.stream, f.rev)
	if pgBefore == 0 || myBefore < 2 || objBefore != 3 {
		t.Fatalf("before the drop: %d target rows, %d source rows, %d slots/publications/origins: the fixture is not what the test needs", pgBefore, myBefore, objBefore)
	}
	gPG, gMy, gObj := g.streamRows(t, g.stream, g.rev)
	args := []string{"--source", env.SourceURL(f.db), "--target", env.TargetURL(), "--stream", f.stream}

	code, _, errOut := runDrop(ctx, "--source", env.SourceURL(f.db), "--target", env.TargetURL(), "--stream", f.stream+"_nope", "--yes")
	if code != exitcode.Config || !strings.Contains(errOut, `nothing of stream "`+f.stream+`_nope"`) ||
		!strings.Contains(errOut, f.stream) || !strings.Contains(errOut, g.stream) {
		t.Errorf("unknown stream: exit %d, want 2 listing the streams: %s", code, errOut)
	}

	code, out, errOut := runDrop(ctx, args...)
	t.Logf("sluice drop without --yes:\n%s%s", out, errOut)
	for _, want := range []string{"for stream " + f.stream + " and its way back (" + f.rev + ")",
		"on the target postgres://", "replication slot " + f.slot + " (retains ", "publication " + f.pub,
		"replication origins " + logical.ForwardOrigin(f.stream, 0), "1 row of sluice.checkpoint", "of sluice.cutover", "on the source mysql://"} {
		if !strings.Contains(out, want) {
			t.Errorf("the list lacks %q:\n%s", want, out)
		}
	}
	if code != exitcode.Config || !strings.Contains(errOut, "pass --yes") {
		t.Errorf("no terminal, no --yes: exit %d, want 2: %s", code, errOut)
	}
	if p, m, o := f.streamRows(t, f.stream, f.rev); p != pgBefore || m != myBefore || o != objBefore {
		t.Errorf("unconfirmed drop removed something: %d/%d target rows, %d/%d source rows, %d/%d objects", p, pgBefore, m, myBefore, o, objBefore)
	}

	// A replicator of the stream connected to the target (its apply
	// sessions hold the stream's lock, named by pid and host).
	conn, err := pg.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `SET application_name = 'sluice 4242@drophost apply x'`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock_shared($1, hashtext($2))`, checkpoint.StreamLockClass, f.stream); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runDrop(ctx, append(args, "--yes")...)
	if code != exitcode.Config || !strings.Contains(errOut, "sluice pid 4242 on host drophost") || !strings.Contains(errOut, "nothing was dropped") {
		t.Errorf("running stream: exit %d, want 2 naming the replicator: %s", code, errOut)
	}
	if err := conn.Hijack().Close(ctx); err != nil { // ends the session and its lock
		t.Fatal(err)
	}

	code, out, errOut = runDrop(ctx, append(args, "--yes")...)
	if code != 0 || !strings.Contains(out, "dropped target postgres://") || !strings.Contains(out, "dropped source mysql://") {
		t.Fatalf("drop --yes: exit %d\n%s\n%s", code, out, errOut)
	}
	if p, m, o := f.streamRows(t, f.stream, f.rev); p != 0 || m != 0 || o != 0 {
		t.Errorf("after the drop: %d target rows, %d source rows, %d slots/publications/origins left", p, m, o)
	}
	if p, m, o := g.streamRows(t, g.stream, g.rev); p != gPG || m != gMy || o != gObj {
		t.Errorf("the other stream changed: %d/%d target rows, %d/%d source rows, %d/%d objects", p, gPG, m, gMy, o, gObj)
	}
	for _, x := range []*fixture{f, g} {
		var pgN, myN int
		if err := pg.QueryRow(ctx, `SELECT (SELECT count(*) FROM `+x.qacct+`) + (SELECT count(*) FROM `+x.qlog+`)`).Scan(&pgN); err != nil {
			t.Fatal(err)
		}
		if err := env.MySQL(t, x.db).QueryRow(`SELECT (SELECT COUNT(*) FROM acct) + (SELECT COUNT(*) FROM log)`).Scan(&myN); err != nil {
			t.Fatal(err)
		}
		want := 250
		if x == f {
			want = 251 // the row written on PostgreSQL came back
		}
		if pgN != want || myN != want {
			t.Errorf("%s: application rows %d on PostgreSQL, %d on MySQL, want %d on both", x.db, pgN, myN, want)
		}
	}
	if code, _, errOut := runDrop(ctx, append(args, "--yes")...); code != exitcode.Config || !strings.Contains(errOut, "nothing of stream") {
		t.Errorf("second drop: exit %d, want 2: %s", code, errOut)
	}

	// Only g's way back: its forward state stays, and it can be cut over again.
	code, out, errOut = runDrop(ctx, "--source", env.TargetURL(), "--target", env.SourceURL(g.db), "--stream", g.rev, "--yes")
	if code != 0 || !strings.Contains(out, "replication slot "+g.slot) {
		t.Fatalf("drop of the way back: exit %d\n%s\n%s", code, out, errOut)
	}
	if p, _, o := g.streamRows(t, g.rev); p != 0 || o != 0 {
		t.Errorf("after dropping %s: %d rows, %d slots/publications left", g.rev, p, o)
	}
	if p, _, _ := g.streamRows(t, g.stream); p == 0 {
		t.Errorf("dropping the way back %s removed the forward stream's state", g.rev)
	}
	if rep, err := cutover.Run(ctx, g.options(t)); err != nil || rep.Result != cutover.ResultSwitched {
		t.Errorf("cutover after dropping the old way back: %v %+v", err, rep)
	}
}
