package cutover_test

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

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
			for _, tbl := range []string{"checkpoint", "schema_history", "applied"} {
				_, _ = my.Exec("DELETE FROM sluice."+tbl+" WHERE stream = ?", s)
			}
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
