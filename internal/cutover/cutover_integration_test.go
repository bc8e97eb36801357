package cutover_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	pgsink "github.com/sluice-db/sluice/internal/sink/postgres"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/cli"
	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/cutover"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/notify"
	"github.com/sluice-db/sluice/internal/replicate"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/postgres/logical"
	_ "github.com/sluice-db/sluice/internal/target/all" // cli opens the target by its URL
	"github.com/sluice-db/sluice/internal/testenv"
)

// runCLI runs the sluice command line in-process, with an empty stdin that
// is not a terminal.
func runCLI(ctx context.Context, args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	root := cli.NewRootCmd(&out, &errOut)
	root.SetIn(strings.NewReader(""))
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err != nil {
		fmt.Fprintln(&errOut, "sluice: "+err.Error())
	}
	return exitcode.Of(err), out.String(), errOut.String()
}

// fixture is a migrated database: acct (AUTO_INCREMENT key, a unique _ci
// name) and a keyless log table.
type fixture struct {
	env         *testenv.Env
	db          string
	stream, rev string
	pg          interface {
		QueryRow(context.Context, string, ...any) pgx.Row
	}
	ctx            context.Context
	slot, pub      string
	qacct, qlog    string
	sourceExecutes func(q string, args ...any)
}

func migrated(t *testing.T, env *testenv.Env, prefix string) *fixture {
	t.Helper()
	return migratedAs(t, env, prefix, testenv.UniqueName("cut"))
}

// migratedAs is migrated under a given stream name.
func migratedAs(t *testing.T, env *testenv.Env, prefix, stream string) *fixture {
	t.Helper()
	db := env.NewDatabase(t, prefix)
	my := env.MySQL(t, db)
	if _, err := my.Exec(env.SQL(`CREATE TABLE acct (id BIGINT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(40) NOT NULL, balance INT, UNIQUE KEY uq_name (name));
		CREATE TABLE log (acct BIGINT, note VARCHAR(40));
		INSERT INTO acct (name, balance) SELECT CONCAT('n', seq), seq FROM seq_1_to_200;
		INSERT INTO log SELECT seq, 'x' FROM seq_1_to_50`)); err != nil {
		t.Fatal(err)
	}
	f := &fixture{env: env, db: db, stream: stream, rev: cutover.DefaultReverseStream(stream), ctx: context.Background(),
		qacct: pgx.Identifier{db, "acct"}.Sanitize(), qlog: pgx.Identifier{db, "log"}.Sanitize()}
	f.slot, f.pub = logical.SlotName(f.rev), logical.PublicationName(f.rev)
	pg := env.PG(t)
	f.pg = pg
	f.sourceExecutes = func(q string, args ...any) {
		t.Helper()
		if _, err := my.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() {
		ctx := context.Background()
		conn, err := pg.Acquire(ctx)
		if err == nil {
			_ = logical.Disarm(ctx, conn.Conn(), f.rev)
			conn.Release()
		}
		for _, tbl := range []string{"snapshot_chunk", "snapshot_table", "snapshot_run", "checkpoint", "schema_history", "applied", "policy_changes", "cutover"} {
			_, _ = pg.Exec(ctx, "DELETE FROM sluice."+tbl+" WHERE stream = $1", stream)
		}
		_, _ = my.Exec("DELETE FROM sluice.cutover WHERE stream = ?", stream)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if code, out, errOut := runCLI(ctx, "migrate", "--source", env.SourceURL(db), "--target", env.TargetURL(),
		"--stream", stream, "--until-caught-up", "--log-level", "warn"); code != 0 {
		t.Fatalf("migrate: exit %d\n%s\n%s", code, out, errOut)
	}
	return f
}

// options builds cut-over options for the fixture (no chunk verification).
func (f *fixture) options(t *testing.T) cutover.Options {
	t.Helper()
	src, err := config.ParseSource(f.env.SourceURL(f.db))
	if err != nil {
		t.Fatal(err)
	}
	tgt, err := config.ParseTarget(f.env.TargetURL())
	if err != nil {
		t.Fatal(err)
	}
	filter, err := schema.NewFilter(nil, nil, f.db)
	if err != nil {
		t.Fatal(err)
	}
	return cutover.Options{Source: src, Target: pgsink.NewEngine(tgt), Stream: f.stream, Filter: filter, QuietFor: 500 * time.Millisecond,
		Replicate: replicate.Options{Source: src, Target: pgsink.NewEngine(tgt), Stream: f.stream, Workers: 2, Log: testenv.Logger()},
		Log:       testenv.Logger()}
}

// nothingLeft asserts a refused cut-over left no slot, publication, record
// or replica identity change behind.
func (f *fixture) nothingLeft(t *testing.T) {
	t.Helper()
	var slots, pubs, targetRecs int
	var ident string
	if err := f.pg.QueryRow(f.ctx, `SELECT (SELECT count(*) FROM pg_replication_slots WHERE slot_name = $1),
		(SELECT count(*) FROM pg_publication WHERE pubname = $2),
		(SELECT relreplident::text FROM pg_class WHERE oid = $3::regclass)`, f.slot, f.pub, f.qlog).Scan(&slots, &pubs, &ident); err != nil {
		t.Fatal(err)
	}
	_ = f.pg.QueryRow(f.ctx, `SELECT count(*) FROM sluice.cutover WHERE stream = $1`, f.stream).Scan(&targetRecs)
	my := f.env.MySQL(t, "")
	var sourceRecs int
	_ = my.QueryRow("SELECT count(*) FROM sluice.cutover WHERE stream = ?", f.stream).Scan(&sourceRecs)
	if slots != 0 || pubs != 0 || targetRecs != 0 || sourceRecs != 0 || ident != "d" {
		t.Errorf("left behind: %d slots, %d publications, %d target records, %d source records, replica identity %q of the keyless table",
			slots, pubs, targetRecs, sourceRecs, ident)
	}
}

// TestCutoverHappyPath: after migrate and more source writes, cutover
// --json exits 0; the slot and publication exist, the slot starts at the
// recorded LSN, the boundary is recorded on both sides, the sequence is past
// the largest id and the rows are equal.
func TestCutoverHappyPath(t *testing.T) { testenv.Flavors(t, testCutoverHappyPath) }

func testCutoverHappyPath(t *testing.T, env *testenv.Env) {
	f := migrated(t, env, "cut_ok")
	f.sourceExecutes("INSERT INTO acct (name, balance) VALUES ('late1', 1), ('late2', 2)")
	f.sourceExecutes("INSERT INTO log VALUES (7, 'late')")
	// A MySQL trigger: the way back refuses to start with it, so the
	// cut-over's next steps say to save and drop it.
	f.sourceExecutes("CREATE TRIGGER acct_touch BEFORE UPDATE ON acct FOR EACH ROW SET NEW.balance = NEW.balance")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	hooks := testenv.StartWebhook(t)
	code, out, errOut := runCLI(ctx, "cutover", "--source", env.SourceURL(f.db), "--target", env.TargetURL(),
		"--stream", f.stream, "--quiet-for", "1s", "--json", "--log-level", "warn", "--notify-webhook", hooks.URL)
	if code != 0 {
		t.Fatalf("cutover: exit %d\n%s\n%s", code, out, errOut)
	}
	var rep cutover.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	// Each step done is a cutover_step event, in order, with its detail
	// (as the status page shows it: bounded in length).
	var steps []notify.Event
	for wait := time.Now().Add(10 * time.Second); len(steps) < len(rep.Steps) && time.Now().Before(wait); time.Sleep(50 * time.Millisecond) {
		steps = steps[:0]
		for _, ev := range hooks.Events() {
			if ev.Event == notify.CutoverStep && ev.Stream == f.stream && ev.Command == "cutover" {
				steps = append(steps, ev)
			}
		}
	}
	if len(steps) != len(rep.Steps) {
		t.Errorf("%d cutover_step events, want one for each of the %d steps: %+v", len(steps), len(rep.Steps), steps)
	}
	for i := range min(len(steps), len(rep.Steps)) {
		if st := rep.Steps[i]; steps[i].Step != st.Name || steps[i].Detail == "" ||
			!strings.HasPrefix(st.Detail, strings.TrimSuffix(steps[i].Detail, "…")) {
			t.Errorf("cutover_step %d: %s %q, want %s %q", i, steps[i].Step, steps[i].Detail, st.Name, st.Detail)
		}
	}
	if rep.Result != cutover.ResultSwitched || rep.Boundary == nil || rep.Boundary.LSN == "" || len(rep.Steps) != 6 ||
		rep.Slot != f.slot || !strings.Contains(rep.Fallback, "--stream "+f.rev) {
		t.Fatalf("report: %+v", rep)
	}
	// The fallback command is to be copied: its URLs carry no password (not
	// even xxxxx), and the step that shows it says where the passwords go.
	if strings.Contains(rep.Fallback, "xxxxx") || strings.Contains(out, ":sluice@") ||
		!strings.Contains(rep.Fallback, "--source postgres://sluice@") || !strings.Contains(rep.Fallback, "--target mysql://sluice@") ||
		!strings.Contains(strings.Join(rep.Next, "\n"), "PostgreSQL's password in --source-password-file FILE or SLUICE_SOURCE_PASSWORD") {
		t.Errorf("fallback command %q; next:\n%s", rep.Fallback, strings.Join(rep.Next, "\n"))
	}
	if next := strings.Join(rep.Next, "\n"); !strings.Contains(next, f.db+".acct: acct_touch (BEFORE UPDATE)") ||
		!strings.Contains(next, "DROP TRIGGER `"+f.db+"`.`acct_touch`") {
		t.Errorf("next steps do not name the MySQL trigger the way back refuses:\n%s", next)
	}
	var confirmed, ident string
	if err := f.pg.QueryRow(ctx, `SELECT confirmed_flush_lsn::text, (SELECT relreplident::text FROM pg_class WHERE oid = $2::regclass)
		FROM pg_replication_slots WHERE slot_name = $1 AND plugin = 'pgoutput'`, f.slot, f.qlog).Scan(&confirmed, &ident); err != nil {
		t.Fatalf("slot %s: %v", f.slot, err)
	}
	if confirmed != rep.Boundary.LSN || ident != "f" {
		t.Errorf("slot at %s, boundary %s; keyless table replica identity %q", confirmed, rep.Boundary.LSN, ident)
	}
	// The reverse slot starts after the rows the final catch-up applied
	// (they came from MySQL), and sees the application's first write.
	inserts := func() int {
		t.Helper()
		var n int
		if err := f.pg.QueryRow(ctx, `SELECT count(*) FROM pg_logical_slot_peek_binary_changes($1, NULL, NULL,
			'proto_version', '1', 'publication_names', $2) WHERE get_byte(data, 0) = ascii('I')`, f.slot, f.pub).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := inserts(); n != 0 {
		t.Errorf("the reverse slot holds %d inserts from before the switch", n)
	}
	if _, err := env.PG(t).Exec(ctx, "INSERT INTO "+f.qlog+" VALUES (99, 'after')"); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); inserts() != 1; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the reverse slot does not see the application's insert")
		}
	}
	var pubTables int
	if err := f.pg.QueryRow(ctx, `SELECT count(*) FROM pg_publication_tables WHERE pubname = $1`, f.pub).Scan(&pubTables); err != nil || pubTables != 2 {
		t.Errorf("publication %s: %d tables, %v", f.pub, pubTables, err)
	}
	var lsn, pos string
	if err := f.pg.QueryRow(ctx, `SELECT lsn::text, source_position FROM sluice.cutover WHERE stream = $1`, f.stream).Scan(&lsn, &pos); err != nil || lsn != rep.Boundary.LSN {
		t.Errorf("target record: %q %q %v", lsn, pos, err)
	}
	src, err := cutover.LoadSourceBoundary(ctx, env.MySQL(t, ""), f.stream)
	if err != nil || src == nil || src.LSN != rep.Boundary.LSN || src.SourcePosition.Compare(rep.Boundary.SourcePosition) != 0 {
		t.Errorf("source record: %+v %v (report %+v)", src, err, rep.Boundary)
	}
	// The application's next id is past every replicated one.
	var maxID, next int64
	if err := f.pg.QueryRow(ctx, `SELECT (SELECT max(id) FROM `+f.qacct+`), nextval(pg_get_serial_sequence($1, 'id'))`, f.qacct).Scan(&maxID, &next); err != nil || next <= maxID {
		t.Errorf("sequence: max id %d, next %d, %v", maxID, next, err)
	}
	my := env.MySQL(t, f.db)
	for _, q := range []string{"SELECT id, name, balance FROM acct ORDER BY id", "SELECT acct, note FROM log WHERE acct <> 99 ORDER BY acct, note"} {
		a := testenv.MySQLRows(t, my, q)
		b := testenv.PGRows(t, env.PG(t), strings.Replace(q, "FROM ", "FROM "+pgx.Identifier{f.db}.Sanitize()+".", 1))
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: source %d rows, target %d rows", q, len(a), len(b))
		}
	}
	testSecondCutoverRefused(t, f, rep)
}

// testSecondCutoverRefused: a second cutover of a cut-over stream is refused
// (exit 2) naming the first (time, position, LSN), the way back and the drop
// that decommissions it, and leaves the first one's slot as it was; also
// when only the source still has the record (a rebuilt target, a rehearsal
// against another PostgreSQL), which was a raw "Error 1062 Duplicate entry"
// at the last step.
func testSecondCutoverRefused(t *testing.T, f *fixture, first cutover.Report) {
	ctx := f.ctx
	second := func(where string) {
		t.Helper()
		code, _, errOut := runCLI(ctx, "cutover", "--source", f.env.SourceURL(f.db), "--target", f.env.TargetURL(),
			"--stream", f.stream, "--quiet-for", "1s", "--skip-verify", "--log-level", "warn")
		for _, want := range []string{"stream " + f.stream + " was cut over already at " + first.Boundary.At.UTC().Format("2006-01-02 15:04:05Z"),
			"= PostgreSQL LSN " + first.Boundary.LSN, "recorded in " + where, "its way back is stream " + f.rev + " (slot " + f.slot + ")",
			"--stream " + f.rev + ")", "sluice drop --source postgres://", "--stream " + f.rev + ", then run cutover again"} {
			if !strings.Contains(errOut, want) {
				t.Errorf("second cutover (record in %s): the refusal lacks %q: %s", where, want, errOut)
			}
		}
		if code != exitcode.Config || strings.Contains(errOut, "1062") {
			t.Errorf("second cutover (record in %s): exit %d, want 2: %s", where, code, errOut)
		}
	}
	second("the target's sluice.cutover")
	var confirmed string
	if err := f.pg.QueryRow(ctx, `SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = $1`, f.slot).Scan(&confirmed); err != nil ||
		confirmed != first.Boundary.LSN {
		t.Errorf("after the refused second cutover the first one's slot %s is at %q (%v), want %s", f.slot, confirmed, err, first.Boundary.LSN)
	}
	// The target as a rebuilt one (or another PostgreSQL) has neither the
	// record nor the slot: only the source remembers the cut-over.
	pg := f.env.PG(t)
	conn, err := pg.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	err = logical.Disarm(ctx, conn.Conn(), f.rev)
	conn.Release()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pg.Exec(ctx, `DELETE FROM sluice.cutover WHERE stream = $1`, f.stream); err != nil {
		t.Fatal(err)
	}
	second("the source's sluice.cutover (not the target's)")
	var slots int
	if err := f.pg.QueryRow(ctx, `SELECT count(*) FROM pg_replication_slots WHERE slot_name = $1`, f.slot).Scan(&slots); err != nil || slots != 0 {
		t.Errorf("the refused cutover left %d slots %s (%v)", slots, f.slot, err)
	}
}

// TestCutoverRefusesWhileWritesArrive: without --lock, writes to a
// migrated table during the quiet interval refuse the switch.
func TestCutoverRefusesWhileWritesArrive(t *testing.T) {
	testenv.Flavors(t, testCutoverRefusesWhileWritesArrive)
}

func testCutoverRefusesWhileWritesArrive(t *testing.T, env *testenv.Env) {
	f := migrated(t, env, "cut_busy")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	my := env.MySQL(t, f.db)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ctx.Err() == nil; i++ {
			_, _ = my.ExecContext(ctx, "UPDATE acct SET balance = ? WHERE id = 1", i)
			time.Sleep(50 * time.Millisecond)
		}
	}()
	o := f.options(t)
	o.QuietFor = 2 * time.Second
	rep, err := cutover.Run(ctx, o)
	cancel()
	<-done
	if err == nil || !strings.Contains(err.Error(), "writes still reach the migrated tables") || !strings.Contains(err.Error(), f.db+".acct") {
		t.Fatalf("cutover under writes: %v", err)
	}
	if exitcode.Of(err) != exitcode.Failure || rep.Result != cutover.ResultRefused {
		t.Errorf("exit %d, result %s", exitcode.Of(err), rep.Result)
	}
	f.nothingLeft(t)
}

// TestCutoverLockHoldsWritesOnlyDuringTheSwitch: with --lock a write to a
// migrated table waits while cutover runs and goes through once it ended,
// whether it switched or failed.
func TestCutoverLockHoldsWritesOnlyDuringTheSwitch(t *testing.T) {
	testenv.Flavors(t, testCutoverLockHoldsWritesOnlyDuringTheSwitch)
}

func testCutoverLockHoldsWritesOnlyDuringTheSwitch(t *testing.T, env *testenv.Env) {
	f := migrated(t, env, "cut_lock")
	my := env.MySQL(t, f.db)
	blocked := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		conn, err := my.Conn(ctx)
		if err != nil {
			return err
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, "SET SESSION lock_wait_timeout = 1"); err != nil {
			return err
		}
		_, err = conn.ExecContext(ctx, "UPDATE acct SET balance = balance + 1 WHERE id = 2")
		if err == nil {
			return errors.New("a write went through while cutover held the lock")
		}
		return nil
	}
	for _, fail := range []bool{true, false} {
		o := f.options(t)
		o.Lock = true
		var probe error
		o.Inject = func(step string) error {
			if step == cutover.StepCatchUp {
				probe = blocked()
				if fail {
					return errors.New("injected")
				}
			}
			return nil
		}
		_, err := cutover.Run(context.Background(), o)
		if probe != nil {
			t.Errorf("fail=%v: %v", fail, probe)
		}
		if fail != (err != nil) {
			t.Fatalf("fail=%v: %v", fail, err)
		}
		// Released: a write goes through at once.
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		if _, err := my.ExecContext(ctx, "UPDATE acct SET balance = balance + 1 WHERE id = 3"); err != nil {
			t.Errorf("fail=%v: write after cutover: %v", fail, err)
		}
		cancel()
		if fail {
			f.nothingLeft(t)
		}
	}
}

// TestCutoverLockReleasedOnInterrupt: SIGINT (the run's context
// cancelled) while the lock is held ends the run, releases the lock and
// drops what it created.
func TestCutoverLockReleasedOnInterrupt(t *testing.T) {
	env := testenv.Get(t)
	f := migrated(t, env, "cut_sigint")
	ctx, interrupt := context.WithCancel(context.Background())
	defer interrupt()
	o := f.options(t)
	o.Lock = true
	o.Inject = func(step string) error {
		if step == cutover.StepQuiet {
			interrupt()
		}
		return nil
	}
	if _, err := cutover.Run(ctx, o); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted cutover: %v", err)
	}
	wctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if _, err := env.MySQL(t, f.db).ExecContext(wctx, "UPDATE acct SET balance = 0 WHERE id = 4"); err != nil {
		t.Errorf("write after the interrupted cutover: %v", err)
	}
	f.nothingLeft(t)
}

// TestCutoverRefusesADifference: a row changed on PostgreSQL only makes
// verify refuse the switch, and nothing is left.
func TestCutoverRefusesADifference(t *testing.T) {
	env := testenv.Get(t)
	f := migrated(t, env, "cut_diff")
	if _, err := env.PG(t).Exec(context.Background(), "UPDATE "+f.qacct+" SET balance = -1 WHERE id = 5"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code, out, errOut := runCLI(ctx, "cutover", "--source", env.SourceURL(f.db), "--target", env.TargetURL(),
		"--stream", f.stream, "--quiet-for", "500ms", "--log-level", "warn")
	if code != 1 || !strings.Contains(errOut, "differs") || !strings.Contains(errOut, f.db+".acct") || !strings.Contains(out, "refused") {
		t.Errorf("exit %d\n%s\n%s", code, out, errOut)
	}
	f.nothingLeft(t)
}

// TestCutoverRefusesUniqueCollision: 'Alpha'/'alpha ' and 'Zoe'/'zoé' are
// two rows each in PostgreSQL but one value each of MySQL's _ci unique key:
// refused, naming them.
func TestCutoverRefusesUniqueCollision(t *testing.T) {
	env := testenv.Get(t)
	f := migrated(t, env, "cut_coll")
	if _, err := env.PG(t).Exec(context.Background(), "INSERT INTO "+f.qacct+" (id, name) VALUES (1001, 'Alpha'), (1002, 'alpha '), (1003, 'Zoe'), (1004, 'zoé'), (1005, 'apart')"); err != nil {
		t.Fatal(err)
	}
	rep, err := cutover.Run(context.Background(), f.options(t))
	// MariaDB's utf8mb4_general_ci ignores case, accents and trailing spaces.
	if err == nil || len(rep.Collisions) != 2 {
		t.Fatalf("collisions not refused: %v %+v", err, rep)
	}
	for _, c := range rep.Collisions {
		if c.Table != f.db+".acct" || c.Key != "uq_name" || c.Rows != 2 {
			t.Errorf("collision: %+v", c)
		}
	}
	for _, v := range []string{"'Alpha'", "'alpha '", "'Zoe'", "'zoé'"} {
		if !strings.Contains(err.Error(), v) {
			t.Errorf("the refusal does not name %s: %v", v, err)
		}
	}
	f.nothingLeft(t)
}

// TestCutoverFailureAtEachStepLeavesNothing: a failure after each step
// drops what the run created; the forward stream stays usable (a last run
// switches).
func TestCutoverFailureAtEachStepLeavesNothing(t *testing.T) {
	env := testenv.Get(t)
	f := migrated(t, env, "cut_fail")
	for _, step := range []string{cutover.StepArm, cutover.StepQuiet, cutover.StepCatchUp, cutover.StepVerify, cutover.StepSequence, cutover.StepRecord} {
		o := f.options(t)
		o.Inject = func(s string) error {
			if s == step {
				return errors.New("injected failure")
			}
			return nil
		}
		rep, err := cutover.Run(context.Background(), o)
		if err == nil || !strings.Contains(err.Error(), "step "+step+": injected failure") {
			t.Fatalf("failure at %s: %v", step, err)
		}
		if last := rep.Steps[len(rep.Steps)-1]; last.Name != step || last.Result != "failed" {
			t.Errorf("failure at %s: last step %+v", step, last)
		}
		f.nothingLeft(t)
	}
	if _, err := cutover.Run(context.Background(), f.options(t)); err != nil {
		t.Fatalf("cutover after the failures: %v", err)
	}
}

// TestForwardApplyMarkedAfterCutover: once a stream is cut over, the
// transactions its apply commits carry a replication origin, so a decoder
// that skips origins (test_decoding's only-local, the reverse stream) does
// not see them, while it sees the application's own writes.
func TestForwardApplyMarkedAfterCutover(t *testing.T) {
	env := testenv.Get(t)
	f := migrated(t, env, "cut_origin")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := cutover.Run(ctx, f.options(t)); err != nil {
		t.Fatal(err)
	}
	pg := env.PG(t)
	slot := testenv.UniqueName("td")
	if _, err := pg.Exec(ctx, `SELECT pg_create_logical_replication_slot($1, 'test_decoding')`, slot); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = pg.Exec(context.Background(), `SELECT pg_drop_replication_slot($1)`, slot) })
	f.sourceExecutes("INSERT INTO acct (name, balance) VALUES ('forward', 1)")
	if code, out, errOut := runCLI(ctx, "replicate", "--source", env.SourceURL(f.db), "--target", env.TargetURL(),
		"--stream", f.stream, "--until-caught-up", "--log-level", "warn"); code != 0 {
		t.Fatalf("replicate after cutover: exit %d\n%s\n%s", code, out, errOut)
	}
	if _, err := pg.Exec(ctx, "INSERT INTO "+f.qacct+" (name, balance) VALUES ('app', 2)"); err != nil {
		t.Fatal(err)
	}
	changes := func(onlyLocal string) string {
		t.Helper()
		var s *string
		if err := pg.QueryRow(ctx, `SELECT string_agg(data, E'\n') FROM pg_logical_slot_peek_changes($1, NULL, NULL, 'only-local', $2)
			WHERE data LIKE '%acct%'`, slot, onlyLocal).Scan(&s); err != nil {
			t.Fatal(err)
		}
		if s == nil {
			return ""
		}
		return *s
	}
	// The WAL is decoded up to what is flushed: wait for the last commit.
	var all, local string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if all = changes("0"); strings.Contains(all, "'app'") {
			break
		}
	}
	local = changes("1")
	if !strings.Contains(all, "'forward'") || !strings.Contains(all, "'app'") {
		t.Fatalf("decoded changes lack a row:\n%s", all)
	}
	if strings.Contains(local, "'forward'") || !strings.Contains(local, "'app'") {
		t.Errorf("without origins: the forward apply's row is not marked, or the application's is:\n%s", local)
	}
}

// TestCutoverWaitsForARunningReplicator: with a replicator of the stream
// running, cutover waits for its checkpoint to reach the source's final
// position instead of running the catch-up itself, and says to stop it.
func TestCutoverWaitsForARunningReplicator(t *testing.T) {
	env := testenv.Get(t)
	f := migrated(t, env, "cut_running")
	// Another process, as in production (a replicator of this very process
	// would be taken for a leftover).
	var stderr bytes.Buffer
	repl := testenv.SluiceCommand(testenv.SluiceBinary(t), "replicate", "--source", env.SourceURL(f.db), "--target", env.TargetURL(),
		"--stream", f.stream, "--log-level", "warn")
	repl.Stderr = &stderr
	if err := repl.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = repl.Process.Signal(os.Interrupt)
		if err := repl.Wait(); err != nil {
			t.Errorf("replicate: %v\n%s", err, stderr.String())
		}
	}()
	// Running: its sessions hold the stream's lock.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var n int
		_ = f.pg.QueryRow(f.ctx, `SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE '%apply '||$1`, f.stream).Scan(&n)
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the replicator did not start")
		}
	}
	f.sourceExecutes("INSERT INTO acct (name, balance) VALUES ('during', 1)")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rep, err := cutover.Run(ctx, f.options(t))
	if err != nil {
		t.Fatal(err)
	}
	if d := rep.Steps[2].Detail; !strings.Contains(d, "the running replicator") || !strings.Contains(rep.Next[0], "stop the running replicator") {
		t.Errorf("catch-up: %q; next: %q", d, rep.Next[0])
	}
	var n int
	if err := f.pg.QueryRow(ctx, "SELECT count(*) FROM "+f.qacct+" WHERE name = 'during'").Scan(&n); err != nil || n != 1 {
		t.Errorf("the row written before the switch: %d, %v", n, err)
	}
}
