package cli

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/notify"
	"github.com/sluice-db/sluice/internal/testenv"
)

// envHook is a --hook writing each event's environment to DIR/EVENT.env
// (NUL-separated: an error's text has newlines).
func envHook(dir string) string {
	return "all=/bin/sh -c 'env -0 > " + dir + "/$SLUICE_EVENT.env'"
}

// hookEnv reads what the hook wrote for event, waiting for it.
func hookEnv(t *testing.T, dir, event string) map[string]string {
	t.Helper()
	var b []byte
	waitFor(t, 30*time.Second, func() bool {
		var err error
		b, err = os.ReadFile(filepath.Join(dir, event+".env"))
		return err == nil && strings.Contains(string(b), "SLUICE_HOST=")
	})
	env := map[string]string{}
	for _, line := range strings.Split(string(b), "\x00") {
		if k, v, ok := strings.Cut(line, "="); ok {
			env[k] = v
		}
	}
	for k := range env {
		if strings.HasPrefix(k, "SLUICE_") && !strings.Contains(strings.Join(sluiceEventVars, " "), k) {
			t.Errorf("the %s hook got %s", event, k)
		}
	}
	return env
}

// runInBackground runs a command line until ctx ends; the channel gets
// "exit CODE: stderr".
func runInBackground(ctx context.Context, args ...string) chan string {
	done := make(chan string, 1)
	go func() {
		code, _, errOut := runCLI(ctx, args...)
		done <- fmt.Sprintf("exit %d: %s", code, errOut)
	}()
	return done
}

var sluiceEventVars = []string{"SLUICE_EVENT", "SLUICE_STREAM", "SLUICE_TIME", "SLUICE_POSITION", "SLUICE_LAG_SECONDS",
	"SLUICE_TABLE", "SLUICE_STEP", "SLUICE_DETAIL", "SLUICE_ERROR", "SLUICE_COMMAND", "SLUICE_HOST"}

// TestNotifyMigrateAndVerify runs a real migrate into PostgreSQL with a
// hook and a webhook: started, snapshot done and caught up arrive, with the
// stream, position and lag in the hook's environment; a graceful stop is
// "stopped"; then a difference written on the target makes `sluice verify`
// notify verify_differences naming the table.
func TestNotifyMigrateAndVerify(t *testing.T) {
	env := testenv.Get(t)
	db := env.NewDatabase(t, "cli_notify")
	my := env.MySQL(t, db)
	if _, err := my.Exec("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))"); err != nil {
		t.Fatal(err)
	}
	if _, err := my.Exec("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')"); err != nil {
		t.Fatal(err)
	}
	stream := testenv.UniqueName("ntf")
	forgetStream(t, env, stream)
	dir, hooks := t.TempDir(), testenv.StartWebhook(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := runInBackground(ctx, "migrate", "--source", env.SourceURL(db), "--target", env.TargetURL(), "--include", db,
		"--stream", stream, "--workers", "2", "--hook", envHook(dir), "--notify-webhook", hooks.URL+"/sluice", "--log-level", "warn")
	started := hooks.Wait(t, notify.Started, 60*time.Second)
	if started.Stream != stream || started.Command != "migrate" || started.Host == "" {
		t.Errorf("started = %+v", started)
	}
	snap := hooks.Wait(t, notify.SnapshotDone, 90*time.Second)
	if snap.Stream != stream || snap.Detail != "1 tables, 3 rows copied" {
		t.Errorf("snapshot_done = %+v", snap)
	}
	caught := hooks.Wait(t, notify.CaughtUp, 90*time.Second)
	if caught.Stream != stream || caught.Position == "" || caught.LagSeconds == nil || *caught.LagSeconds > 10 {
		t.Errorf("caught_up = %+v", caught)
	}
	he := hookEnv(t, dir, notify.CaughtUp)
	if he["SLUICE_STREAM"] != stream || he["SLUICE_POSITION"] != caught.Position || he["SLUICE_COMMAND"] != "migrate" {
		t.Errorf("caught_up hook env: %v", he)
	}
	if l, err := strconv.ParseFloat(he["SLUICE_LAG_SECONDS"], 64); err != nil || l > 10 {
		t.Errorf("SLUICE_LAG_SECONDS = %q", he["SLUICE_LAG_SECONDS"])
	}
	if he := hookEnv(t, dir, notify.SnapshotDone); he["SLUICE_DETAIL"] != "1 tables, 3 rows copied" {
		t.Errorf("snapshot_done hook env: %v", he)
	}
	cancel()
	if res := <-done; !strings.HasPrefix(res, "exit 0") {
		t.Fatalf("migrate after a graceful stop: %s", res)
	}
	if ev := hooks.Wait(t, notify.Stopped, time.Second); ev.Stream != stream || ev.Error != "" {
		t.Errorf("stopped = %+v", ev)
	}

	pg := env.PG(t)
	if _, err := pg.Exec(context.Background(), "UPDATE "+db+".t SET v = 'x' WHERE id = 2"); err != nil {
		t.Fatal(err)
	}
	verifyHooks := testenv.StartWebhook(t)
	code, _, errOut := runCLI(context.Background(), "verify", "--source", env.SourceURL(db), "--target", env.TargetURL(),
		"--include", db, "--stream", stream, "--notify-webhook", verifyHooks.URL, "--hook", envHook(dir), "--log-level", "error")
	if code != 1 {
		t.Fatalf("verify of a differing table: exit %d, want 1\n%s", code, errOut)
	}
	diff := verifyHooks.Wait(t, notify.VerifyDifference, time.Second)
	if diff.Table != db+".t" || diff.Command != "verify" || diff.Detail != "1 table differs, 1 row" {
		t.Errorf("verify_differences = %+v", diff)
	}
	if he := hookEnv(t, dir, notify.VerifyDifference); he["SLUICE_TABLE"] != db+".t" {
		t.Errorf("verify_differences hook env: %v", he)
	}
}

// TestNotifyLagAndTargetStopped replicates into a PostgreSQL of the test's
// own whose table applies each row slowly (a trigger sleeps): a write
// burst takes the lag over --notify-lag and, once applied, back under.
// A hook that hangs and a webhook whose port refuses are bounded and do
// not hold replication up: every row arrives. Stopping the target then
// notifies reconnecting and, when --target-retry runs out, failed.
func TestNotifyLagAndTargetStopped(t *testing.T) {
	env := testenv.Get(t)
	began := time.Now()
	pgSrv := testenv.StartPostgres(t)
	t.Logf("private PostgreSQL up in %s", time.Since(began).Round(time.Millisecond))
	db := env.NewDatabase(t, "cli_notify_lag")
	my := env.MySQL(t, db)
	if _, err := my.Exec("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))"); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + l.Addr().String() + "/"
	l.Close()
	stream := testenv.UniqueName("ntl")
	dir, hooks := t.TempDir(), testenv.StartWebhook(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := runInBackground(ctx, "migrate", "--source", env.SourceURL(db), "--target", pgSrv.URL(), "--include", db,
		"--stream", stream, "--workers", "2", "--target-retry", "3s", "--notify-lag", "3s",
		"--hook", envHook(dir), "--hook", "all=sleep 1000", "--hook-timeout", "1s",
		"--notify-webhook", refused, "--notify-webhook", hooks.URL, "--log-level", "warn")
	hooks.Wait(t, notify.CaughtUp, 120*time.Second)
	t.Logf("caught up at %s", time.Since(began).Round(time.Millisecond))
	conn, err := pgx.Connect(context.Background(), pgSrv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), `CREATE FUNCTION `+db+`.slow() RETURNS trigger LANGUAGE plpgsql AS
		$$BEGIN PERFORM pg_sleep(0.05); RETURN NEW; END$$;
		CREATE TRIGGER slow BEFORE INSERT ON `+db+`.t FOR EACH ROW EXECUTE FUNCTION `+db+`.slow();
		ALTER TABLE `+db+`.t ENABLE ALWAYS TRIGGER slow`); err != nil {
		t.Fatal(err)
	}
	const rows = 300
	for i := 1; i <= rows; i++ {
		if _, err := my.Exec("INSERT INTO t VALUES (?, 'x')", i); err != nil {
			t.Fatal(err)
		}
	}
	over := hooks.Wait(t, notify.LagOver, 60*time.Second)
	if over.Stream != stream || over.LagSeconds == nil || *over.LagSeconds <= 3 {
		t.Errorf("lag_over = %+v", over)
	}
	t0 := time.Now()
	waitFor(t, 60*time.Second, func() bool {
		var n int
		_ = conn.QueryRow(context.Background(), "SELECT count(*) FROM "+db+".t").Scan(&n)
		return n == rows
	})
	t.Logf("the burst applied %s after lag_over", time.Since(t0).Round(time.Millisecond))
	under := hooks.Wait(t, notify.LagUnder, 30*time.Second)
	if under.LagSeconds == nil || *under.LagSeconds > 1.5 {
		t.Errorf("lag_under = %+v", under)
	}
	if he := hookEnv(t, dir, notify.LagOver); he["SLUICE_STREAM"] != stream || he["SLUICE_LAG_SECONDS"] == "" {
		t.Errorf("lag_over hook env: %v", he)
	}

	t.Logf("lag events done at %s", time.Since(began).Round(time.Millisecond))
	pgSrv.Stop()
	rec := hooks.Wait(t, notify.Reconnecting, 60*time.Second)
	if rec.Stream != stream || rec.Error == "" || strings.Contains(rec.Error, "sluice:sluice@") {
		t.Errorf("reconnecting = %+v", rec)
	}
	select {
	case res := <-done:
		if strings.HasPrefix(res, "exit 0") {
			t.Errorf("migrate with its target gone: %s", res)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("migrate did not give up after --target-retry 3s")
	}
	t.Logf("migrate gave up at %s", time.Since(began).Round(time.Millisecond))
	failed := hooks.Wait(t, notify.Failed, time.Second)
	if failed.Stream != stream || failed.Error == "" {
		t.Errorf("failed = %+v", failed)
	}
	if he := hookEnv(t, dir, notify.Failed); he["SLUICE_ERROR"] != failed.Error {
		t.Errorf("failed hook env SLUICE_ERROR = %q, want %q", he["SLUICE_ERROR"], failed.Error)
	}
}

// TestNotifyRefusesBadInput: each misuse of the notify flags exits 2 at
// once, naming the fix.
func TestNotifyRefusesBadInput(t *testing.T) {
	env := testenv.Get(t)
	base := []string{"replicate", "--source", env.SourceURL("x"), "--target", env.TargetURL(), "--stream", testenv.UniqueName("nbad")}
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"--hook", "finished=true"}, `unknown event "finished"; the events are started, snapshot_done`},
		{[]string{"--hook", "failed=/no/such/pager"}, `"/no/such/pager" is not an executable file`},
		{[]string{"--notify-webhook", "ftp://hooks.example.com/"}, `give an http:// or https:// URL`},
		{[]string{"--notify-webhook", "http://"}, "the URL has no host"},
		{[]string{"--notify-lag", "30s"}, "give a --hook or a --notify-webhook"},
		{[]string{"--hook-required", "--notify-webhook", "http://127.0.0.1:1/"}, "--hook-required makes a failing --hook stop the command: give a --hook"},
	} {
		began := time.Now()
		code, _, errOut := runCLI(context.Background(), append(append([]string{}, base...), c.args...)...)
		if code != 2 || !strings.Contains(errOut, c.says) || time.Since(began) > 10*time.Second {
			t.Errorf("%v: exit %d after %s, want 2 at once saying %q:\n%s", c.args, code, time.Since(began), c.says, errOut)
		}
	}
}

// TestNotifyAlterCopyAndSwap: an online ALTER by copy notifies its copy
// done, then its swap, naming the table.
func TestNotifyAlterCopyAndSwap(t *testing.T) {
	env := testenv.Get(t)
	db := env.NewDatabase(t, "cli_notify_alter")
	my := env.MySQL(t, db)
	if _, err := my.Exec("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))"); err != nil {
		t.Fatal(err)
	}
	if _, err := my.Exec("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')"); err != nil {
		t.Fatal(err)
	}
	hooks := testenv.StartWebhook(t)
	code, out, errOut := runCLI(context.Background(), "alter", "--source", env.MySQLAdminURL(db), "--table", "t",
		"--alter", "ADD INDEX iv (v)", "--method", "copy", "--workers", "2", "--notify-webhook", hooks.URL, "--log-level", "warn")
	if code != 0 {
		t.Fatalf("alter: exit %d\n%s%s", code, out, errOut)
	}
	var got []string
	for _, ev := range hooks.Events() {
		got = append(got, ev.Event+" "+ev.Table+" "+ev.Detail)
	}
	want := []string{"started  alter started", "alter_copy_done " + db + ".t 4 rows copied; catching up, then swapping",
		"alter_swapped " + db + ".t "}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestNotifyStandbyTookOver: a --standby replicator waiting while another
// one applies notifies nothing; once that one stops, it takes the stream
// over and notifies standby_took_over.
func TestNotifyStandbyTookOver(t *testing.T) {
	env := testenv.Get(t)
	db := env.NewDatabase(t, "cli_notify_sb")
	my := env.MySQL(t, db)
	if _, err := my.Exec("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))"); err != nil {
		t.Fatal(err)
	}
	stream := testenv.UniqueName("nsb")
	forgetStream(t, env, stream)
	common := []string{"--source", env.SourceURL(db), "--target", env.TargetURL(), "--stream", stream, "--include", db, "--workers", "2", "--log-level", "warn"}
	run := func(ctx context.Context, args ...string) chan string {
		return runInBackground(ctx, append(args, common...)...)
	}
	stopped := func(what string, cancel context.CancelFunc, done chan string) {
		t.Helper()
		cancel()
		if res := <-done; !strings.HasPrefix(res, "exit 0") {
			t.Fatalf("%s after a graceful stop: %s", what, res)
		}
	}
	active := testenv.StartWebhook(t)
	ctxA, cancelA := context.WithCancel(context.Background())
	defer cancelA()
	doneA := run(ctxA, "migrate", "--notify-webhook", active.URL)
	active.Wait(t, notify.CaughtUp, 90*time.Second)

	standby := testenv.StartWebhook(t)
	ctxB, cancelB := context.WithCancel(context.Background())
	defer cancelB()
	doneB := run(ctxB, "replicate", "--standby", "--notify-webhook", standby.URL)
	standby.Wait(t, notify.Started, 30*time.Second)
	time.Sleep(3 * time.Second) // it waits for its turn
	for _, ev := range standby.Events() {
		if ev.Event != notify.Started {
			t.Fatalf("a standby waiting for its turn notified %+v", ev)
		}
	}
	stopped("the active migrate", cancelA, doneA)
	took := standby.Wait(t, notify.StandbyTookOver, 60*time.Second)
	if took.Stream != stream || took.Command != "replicate" {
		t.Errorf("standby_took_over = %+v", took)
	}
	if _, err := my.Exec("INSERT INTO t VALUES (1, 'after')"); err != nil {
		t.Fatal(err)
	}
	pg := env.PG(t)
	waitFor(t, 30*time.Second, func() bool {
		var v string
		_ = pg.QueryRow(context.Background(), "SELECT v FROM "+db+".t WHERE id = 1").Scan(&v)
		return v == "after"
	})
	stopped("the standby", cancelB, doneB)
}

// TestNotifyHookRequired: a hook that fails is logged and the migrate goes
// on; with --hook-required the same failure stops it with exit 1 naming
// the hook, after its graceful stop.
func TestNotifyHookRequired(t *testing.T) {
	env := testenv.Get(t)
	db := env.NewDatabase(t, "cli_hookreq")
	my := env.MySQL(t, db)
	if _, err := my.Exec("CREATE TABLE t (id INT PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	run := func(required bool) (chan string, context.CancelFunc, *testenv.Webhook) {
		stream := testenv.UniqueName("hreq")
		forgetStream(t, env, stream)
		hooks := testenv.StartWebhook(t)
		args := []string{"migrate", "--source", env.SourceURL(db), "--target", env.TargetURL(), "--include", db,
			"--stream", stream, "--drop-existing", "--hook", "caught_up=false", "--notify-webhook", hooks.URL + "/sluice", "--log-level", "warn"}
		if required {
			args = append(args, "--hook-required")
		}
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		return runInBackground(ctx, args...), cancel, hooks
	}

	done, cancel, hooks := run(false)
	hooks.Wait(t, notify.CaughtUp, 90*time.Second)
	select {
	case res := <-done:
		t.Fatalf("without --hook-required a failing hook stopped migrate: %s", res)
	case <-time.After(3 * time.Second):
	}
	cancel()
	if res := <-done; !strings.HasPrefix(res, "exit 0") {
		t.Fatalf("migrate after a graceful stop: %s", res)
	}

	done, _, hooks = run(true)
	hooks.Wait(t, notify.CaughtUp, 90*time.Second)
	select {
	case res := <-done:
		if !strings.HasPrefix(res, "exit 1") || !strings.Contains(res, "--hook-required: the hook caught_up=") || !strings.Contains(res, "false failed on the caught_up event") {
			t.Fatalf("with --hook-required: %s", res)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("with --hook-required, migrate did not stop within 60 s of its hook failing")
	}
}
