package cli

import (
	"context"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestMetricsPortServesProfilerOnlyWithPprof runs the binary's long-running
// commands with --metrics-addr on a free loopback port: without --pprof
// /debug/pprof/ (cmdline included, which showed the passwords of the
// command line) is 404 while /metrics and /healthz answer; with --pprof the
// profiles are served and cmdline shows the URLs' passwords as xxxxx.
func TestMetricsPortServesProfilerOnlyWithPprof(t *testing.T) {
	env := testenv.Get(t)
	bin := testenv.SluiceBinary(t)
	db := env.NewDatabase(t, "cli_pprof")
	if _, err := env.MySQL(t, db).Exec("CREATE TABLE t (id INT PRIMARY KEY); INSERT INTO t VALUES (1), (2)"); err != nil {
		t.Fatal(err)
	}
	stream := db
	forgetStream(t, env, stream)
	src := env.SourceURL(db)
	srcNoPW, srcPW := testenv.SplitPassword(t, src)
	dst, dstPW := testenv.SplitPassword(t, env.TargetURL())
	// The passwords from the environment: the command line has none.
	run := startSluice(t, bin, []string{"SLUICE_SOURCE_PASSWORD=" + srcPW, "SLUICE_TARGET_PASSWORD=" + dstPW},
		"migrate", "--source", srcNoPW, "--target", dst, "--stream", stream,
		"--workers", "2", "--metrics-addr", "127.0.0.1:0")
	for path, want := range map[string]int{"/metrics": 200, "/healthz": 200, "/debug/pprof/": 404,
		"/debug/pprof/cmdline": 404, "/debug/pprof/profile?seconds=1": 404, "/debug/pprof/heap": 404} {
		if code, body := get(t, "http://"+run.addr+path); code != want {
			t.Errorf("without --pprof: GET %s: %d, want %d\n%.300s", path, code, want, body)
		}
	}
	// migrate serves its metrics from the snapshot on: stop it once the
	// snapshot recorded the stream's checkpoint, which replicate continues from.
	pg := env.PG(t)
	waitFor(t, 90*time.Second, func() bool {
		var n int
		_ = pg.QueryRow(context.Background(), "SELECT count(*) FROM sluice.checkpoint WHERE stream = $1", stream).Scan(&n)
		return n == 1
	})
	run.stop(t)

	// With --pprof, and a password on the command line (still accepted,
	// warned about): cmdline shows it redacted.
	run = startSluice(t, bin, []string{"SLUICE_TARGET_PASSWORD=" + dstPW},
		"replicate", "--source", src, "--target", dst, "--stream", stream,
		"--metrics-addr", "127.0.0.1:0", "--pprof")
	for path, want := range map[string]int{"/metrics": 200, "/healthz": 200, "/debug/pprof/": 200, "/debug/pprof/heap": 200,
		"/debug/pprof/goroutine?debug=1": 200, "/debug/pprof/cmdline": 200} {
		if code, body := get(t, "http://"+run.addr+path); code != want {
			t.Errorf("with --pprof: GET %s: %d, want %d\n%.300s", path, code, want, body)
		}
	}
	_, cmdline := get(t, "http://"+run.addr+"/debug/pprof/cmdline")
	if want := "--source\x00" + strings.Replace(src, ":"+srcPW+"@", ":xxxxx@", 1) + "\x00"; !strings.Contains(cmdline, want) ||
		strings.Contains(cmdline, ":"+srcPW+"@") {
		t.Errorf("cmdline %q, want it to contain %q", cmdline, want)
	}
	logs := run.stop(t)
	if !strings.Contains(logs, "the --source URL on the command line has a password") || strings.Contains(logs, "non-loopback") {
		t.Errorf("logs:\n%s", logs)
	}
}

type sluiceRun struct {
	cmd    *exec.Cmd
	stderr *testenv.SyncBuffer
	addr   string
	done   chan error
}

var servingRE = regexp.MustCompile(`"msg":"serving metrics","addr":"([^"]+)"`)

// startSluice starts the binary with the extra environment and waits until
// its metrics server listens.
func startSluice(t *testing.T, bin string, environ []string, args ...string) *sluiceRun {
	t.Helper()
	r := &sluiceRun{cmd: testenv.SluiceCommand(bin, args...), stderr: &testenv.SyncBuffer{}, done: make(chan error, 1)}
	r.cmd.Env = append(r.cmd.Env, environ...)
	r.cmd.Stderr = r.stderr
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { r.done <- r.cmd.Wait() }()
	t.Cleanup(func() {
		if r.cmd.ProcessState == nil {
			_ = r.cmd.Process.Kill()
			<-r.done
		}
	})
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		if m := servingRE.FindStringSubmatch(r.stderr.String()); m != nil {
			r.addr = m[1]
			return r
		}
		select {
		case err := <-r.done:
			t.Fatalf("sluice %s ended (%v):\n%s", args[0], err, r.stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Fatalf("sluice %s never served metrics:\n%s", args[0], r.stderr.String())
	return nil
}

// stop ends the run with SIGTERM (by its pid) and returns its log.
func (r *sluiceRun) stop(t *testing.T) string {
	t.Helper()
	_ = r.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-r.done:
	case <-time.After(60 * time.Second):
		_ = r.cmd.Process.Kill()
		<-r.done
		t.Errorf("sluice did not stop on SIGTERM:\n%s", r.stderr.String())
	}
	return r.stderr.String()
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
