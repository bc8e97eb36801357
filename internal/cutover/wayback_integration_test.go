package cutover_test

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/source/postgres/logical"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestWayBackUnderAWrongStreamName: after `sluice cutover --stream S` and
// the application's first writes on PostgreSQL, starting the way back
// under the forward name S, under no --stream, or under S_REVERSE (whose
// slot name folds to S_reverse's) is refused with exit 2, naming
// `--stream S_reverse` and its slot, and leaves no slot and no state behind
// — even with --start-at-current-lsn, since the cut-over's slot is armed.
// (Before, each started a new slot at PostgreSQL's current LSN and exited 0
// without the writes since the cut-over.) The right name carries every
// write back.
func TestWayBackUnderAWrongStreamName(t *testing.T) { testenv.Flavors(t, testWayBackWrongName) }

func testWayBackWrongName(t *testing.T, env *testenv.Env) {
	f := migrated(t, env, "cut_wrong")
	my := env.MySQL(t, "")
	upper := strings.ToUpper(f.rev)
	t.Cleanup(func() {
		for _, s := range []string{f.rev, f.stream, upper} {
			_ = mysqlstate.Delete(context.Background(), my, s)
		}
		if conn, err := env.PG(t).Acquire(context.Background()); err == nil {
			_ = logical.Disarm(context.Background(), conn.Conn(), f.stream)
			conn.Release()
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if code, out, errOut := runCLI(ctx, "cutover", "--source", env.SourceURL(f.db), "--target", env.TargetURL(),
		"--stream", f.stream, "--quiet-for", "1s", "--skip-verify", "--log-level", "warn"); code != 0 {
		t.Fatalf("cutover: exit %d\n%s\n%s", code, out, errOut)
	}
	if _, err := env.PG(t).Exec(ctx, "INSERT INTO "+f.qacct+" (id, name, balance) VALUES (1001, 'after1', 1), (1002, 'after2', 2);"+
		"UPDATE "+f.qacct+" SET balance = -5 WHERE id = 3; DELETE FROM "+f.qlog+" WHERE acct = 4"); err != nil {
		t.Fatal(err)
	}
	back := []string{"replicate", "--source", env.TargetURL(), "--target", env.MySQLAdminURL(f.db), "--until-caught-up", "--log-level", "warn"}
	want := []string{"stream " + f.stream + " was cut over at", "the way back is `--stream " + f.rev + "` (slot " + f.slot + ")"}
	for _, extra := range [][]string{{"--stream", f.stream}, nil, {"--stream", upper}, {"--stream", f.stream, "--start-at-current-lsn"}} {
		code, _, errOut := runCLI(ctx, append(append([]string(nil), back...), extra...)...)
		if code != 2 || !strings.Contains(errOut, want[0]) || !strings.Contains(errOut, want[1]) {
			t.Errorf("way back with %q: exit %d, want 2 naming %q\n%s", extra, code, want, errOut)
		}
	}
	var slots, states int
	if err := env.PG(t).QueryRow(ctx, `SELECT count(*) FROM pg_replication_slots WHERE slot_name = $1`,
		logical.SlotName(f.stream)).Scan(&slots); err != nil {
		t.Fatal(err)
	}
	if err := my.QueryRow("SELECT count(*) FROM sluice.checkpoint WHERE stream IN (?, ?)", f.stream, upper).Scan(&states); err != nil {
		t.Fatal(err)
	}
	if slots != 0 || states != 0 {
		t.Errorf("the refused starts left %d slots %s and %d checkpoints behind", slots, logical.SlotName(f.stream), states)
	}
	if code, out, errOut := runCLI(ctx, append(back, "--stream", f.rev)...); code != 0 {
		t.Fatalf("way back with --stream %s: exit %d\n%s\n%s", f.rev, code, out, errOut)
	}
	db := env.MySQL(t, f.db)
	for _, q := range []string{"SELECT id, name, balance FROM acct ORDER BY id", "SELECT acct, note FROM log ORDER BY acct, note"} {
		a := testenv.MySQLRows(t, db, q)
		b := testenv.PGRows(t, env.PG(t), strings.Replace(q, "FROM ", "FROM "+pgx.Identifier{f.db}.Sanitize()+".", 1))
		if len(a) != 202 && len(a) != 49 || !reflect.DeepEqual(a, b) {
			t.Errorf("%s after the way back: MySQL %d rows, PostgreSQL %d rows (differ: %v)", q, len(a), len(b), !reflect.DeepEqual(a, b))
		}
	}
}

// TestCutoverStreamsDifferingInCase: streams s and S (two databases) share
// their reverse streams' slot name (slot names are lower case). The second
// cut-over is refused with exit 2 naming the owner and --reverse-stream;
// with another --reverse-stream it succeeds (the MySQL boundary table, once
// under the server's case-insensitive collation, refused S's record as a
// duplicate of s's), and each way back carries its own database's writes.
func TestCutoverStreamsDifferingInCase(t *testing.T) {
	testenv.Flavors(t, testCutoverStreamsDifferingInCase)
}

func testCutoverStreamsDifferingInCase(t *testing.T, env *testenv.Env) {
	lower := migrated(t, env, "cut_case")
	upper := migratedAs(t, env, "cut_case", strings.ToUpper(lower.stream))
	back := upper.stream + "_back"
	my := env.MySQL(t, "")
	t.Cleanup(func() {
		for _, s := range []string{lower.rev, back} {
			_ = mysqlstate.Delete(context.Background(), my, s)
		}
		_, _ = my.Exec("DELETE FROM sluice.cutover WHERE stream = ?", upper.stream)
		if conn, err := env.PG(t).Acquire(context.Background()); err == nil {
			_ = logical.Disarm(context.Background(), conn.Conn(), back)
			conn.Release()
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cut := func(f *fixture, extra ...string) (int, string) {
		code, _, errOut := runCLI(ctx, append([]string{"cutover", "--source", env.SourceURL(f.db), "--target", env.TargetURL(),
			"--stream", f.stream, "--quiet-for", "1s", "--skip-verify", "--log-level", "warn"}, extra...)...)
		return code, errOut
	}
	if code, errOut := cut(lower); code != 0 {
		t.Fatalf("cutover %s: exit %d\n%s", lower.stream, code, errOut)
	}
	if code, errOut := cut(upper); code != 2 || !strings.Contains(errOut, "belong to reverse stream "+lower.rev) ||
		!strings.Contains(errOut, "--reverse-stream") {
		t.Fatalf("cutover %s over %s's slot: exit %d, want 2 naming it\n%s", upper.stream, lower.rev, code, errOut)
	}
	if code, errOut := cut(upper, "--reverse-stream", back); code != 0 {
		t.Fatalf("cutover %s --reverse-stream %s: exit %d\n%s", upper.stream, back, code, errOut)
	}
	var recs int
	if err := my.QueryRow("SELECT count(*) FROM sluice.cutover WHERE stream IN (?, ?)", lower.stream, upper.stream).Scan(&recs); err != nil || recs != 2 {
		t.Errorf("MySQL boundary records of %s and %s: %d (%v)", lower.stream, upper.stream, recs, err)
	}
	pg := env.PG(t)
	for _, f := range []*fixture{lower, upper} {
		if _, err := pg.Exec(ctx, "INSERT INTO "+f.qlog+" VALUES (777, "+`'`+f.stream+`'`+")"); err != nil {
			t.Fatal(err)
		}
	}
	run := func(f *fixture, stream string) (int, string) {
		code, _, errOut := runCLI(ctx, "replicate", "--source", env.TargetURL(), "--target", env.MySQLAdminURL(f.db),
			"--stream", stream, "--until-caught-up", "--log-level", "warn")
		return code, errOut
	}
	if code, errOut := run(upper, upper.stream); code != 2 || !strings.Contains(errOut, "`--stream "+back+"`") {
		t.Errorf("the way back of %s under its forward name: exit %d, want 2 naming %s\n%s", upper.db, code, back, errOut)
	}
	for f, stream := range map[*fixture]string{lower: lower.rev, upper: back} {
		if code, errOut := run(f, stream); code != 0 {
			t.Fatalf("the way back of %s (--stream %s): exit %d\n%s", f.db, stream, code, errOut)
		}
		got := testenv.MySQLRows(t, env.MySQL(t, f.db), "SELECT acct, note FROM log WHERE acct = 777")
		if strings.Join(got, " ") != "777|"+f.stream {
			t.Errorf("%s after its way back: %v, want its own row 777|%s", f.db, got, f.stream)
		}
	}
}

// TestWayBackWithoutItsSlot: the cut-over's slot dropped before the way back
// first ran: `--stream S_reverse` is refused with exit 2 (the writes since
// the switch are gone with the slot), naming --start-at-current-lsn, which
// then starts the stream at the current position and carries later writes.
func TestWayBackWithoutItsSlot(t *testing.T) {
	env := testenv.Get(t)
	f := migrated(t, env, "cut_noslot")
	my := env.MySQL(t, "")
	t.Cleanup(func() {
		_ = mysqlstate.Delete(context.Background(), my, f.rev)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if code, out, errOut := runCLI(ctx, "cutover", "--source", env.SourceURL(f.db), "--target", env.TargetURL(),
		"--stream", f.stream, "--quiet-for", "1s", "--skip-verify", "--log-level", "warn"); code != 0 {
		t.Fatalf("cutover: exit %d\n%s\n%s", code, out, errOut)
	}
	pg := env.PG(t)
	if _, err := pg.Exec(ctx, "SELECT pg_drop_replication_slot($1)", f.slot); err != nil {
		t.Fatal(err)
	}
	back := []string{"replicate", "--source", env.TargetURL(), "--target", env.MySQLAdminURL(f.db), "--stream", f.rev,
		"--until-caught-up", "--log-level", "warn"}
	code, _, errOut := runCLI(ctx, back...)
	if code != 2 || !strings.Contains(errOut, "the slot "+f.slot+" that the cut-over of stream "+f.stream) ||
		!strings.Contains(errOut, "--start-at-current-lsn") {
		t.Fatalf("the way back without its slot: exit %d, want 2\n%s", code, errOut)
	}
	if code, out, errOut := runCLI(ctx, append(back, "--start-at-current-lsn")...); code != 0 {
		t.Fatalf("--start-at-current-lsn: exit %d\n%s\n%s", code, out, errOut)
	}
	if _, err := pg.Exec(ctx, "INSERT INTO "+f.qlog+" VALUES (555, 'later')"); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runCLI(ctx, back...); code != 0 {
		t.Fatalf("the way back after its new start: exit %d\n%s\n%s", code, out, errOut)
	}
	if got := testenv.MySQLRows(t, env.MySQL(t, f.db), "SELECT acct, note FROM log WHERE acct = 555"); strings.Join(got, " ") != "555|later" {
		t.Fatalf("the write after the new start: %v", got)
	}
}
