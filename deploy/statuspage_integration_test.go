package deploy

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/board"
	"github.com/sluice-db/sluice/internal/testenv"
)

// targetPassword is in the target URL (the private PostgreSQL trusts
// 127.0.0.1 and ignores it): the page must never show it.
const targetPassword = "Pg-Secret-4711"

// TestStatusPageInABrowser loads the status page of a real migrate under
// a write load in headless Chromium and checks what a person sees: the
// snapshot's table progressing to 100 %, the stream replicating with a
// lag that grows while the target table is locked, the error once the
// target PostgreSQL is stopped, and no password anywhere. A second migrate
// on the same --metrics-addr exits 2 naming the address.
// SLUICE_STATUS_SCREENSHOT=docs/status-page.png saves the screenshot there.
func TestStatusPageInABrowser(t *testing.T) {
	br := newBrowser(t)
	env := testenv.Get(t)
	m := &monitored{env: env, bin: testenv.SluiceBinary(t), pg: testenv.StartPostgres(t)}
	m.db = env.NewDatabase(t, "page")
	m.src, m.stream = env.SourceURL(m.db), testenv.UniqueName("page")
	m.target = strings.Replace(m.pg.URL(), "postgres@", "postgres:"+targetPassword+"@", 1)
	my := env.MySQL(t, m.db)
	for _, q := range []string{`CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(20), pad CHAR(60))`,
		env.SQL(`INSERT INTO t (v, pad) SELECT concat('v', seq), repeat('x', 60) FROM seq_1_to_60000`), `ANALYZE TABLE t`} {
		if _, err := my.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	url := "http://" + addr + "/"
	table := m.db + ".t"
	// --max-rate: about 15 s of copying, long enough to see it under way.
	m.migrate = startSluice(t, m.bin, "migrate", "migrate", "--source", m.src, "--target", m.target, "--stream", m.stream,
		"--workers", "2", "--max-rate", "256KB", "--metrics-addr", addr, "--log-level", "warn")
	stop := m.writeEvery(t)
	defer stop()
	var pages []string

	waitStatus(t, addr, "the snapshot copying", 60*time.Second, m.migrate, func(st board.Status) bool {
		return len(st.Snapshots) == 1 && len(st.Snapshots[0].Tables) == 1 && st.Snapshots[0].Tables[0].Rows > 0
	})
	p := pageOf{dom: br.dom(t, url), stream: m.stream}
	pages = append(pages, p.dom)
	if ph := p.phase(t); ph != string(board.PhaseSnapshot) {
		t.Errorf("during the snapshot the stream is %q, want snapshot", ph)
	}
	if pct := p.table(t, table); pct == "100.0 %" || !strings.HasSuffix(pct, " %") {
		t.Errorf("table %s during the copy shows %q, want a percentage under 100", table, pct)
	}

	waitStatus(t, addr, "replicating", 120*time.Second, m.migrate, func(st board.Status) bool {
		return len(st.Streams) == 1 && st.Streams[0].Phase == board.PhaseReplicating
	})
	unlock := lockTarget(t, m)
	p1 := pageOf{dom: br.dom(t, url), stream: m.stream}
	time.Sleep(3 * time.Second)
	p2 := pageOf{dom: br.dom(t, url), stream: m.stream}
	pages = append(pages, p1.dom, p2.dom)
	shown1, v1 := p1.lag(t)
	shown2, v2 := p2.lag(t)
	l1, err1 := strconv.ParseFloat(v1, 64)
	l2, err2 := strconv.ParseFloat(v2, 64)
	if err1 != nil || err2 != nil || l2 < l1+2 || !strings.HasSuffix(shown2, " s") || shown1 == shown2 {
		t.Errorf("lag on two loads 3 s apart with the target table locked: %q then %q, want it grown by about 3 s", shown1, shown2)
	}
	if pct := p2.table(t, table); pct != "100.0 %" {
		t.Errorf("table %s after the snapshot shows %q, want 100.0 %%", table, pct)
	}
	if !strings.Contains(p2.card(t).dom, `<polyline class="lag"`) {
		t.Errorf("no lag chart drawn:\n%s", p2.card(t).dom)
	}
	shot := filepath.Join(t.TempDir(), "status-page.png")
	br.screenshot(t, url, shot)
	unlock()

	code, out := runSluice(t, m.bin, "migrate", "--source", m.src, "--target", m.target, "--stream", m.stream+"_2",
		"--metrics-addr", addr, "--log-level", "warn")
	if code != 2 || !strings.Contains(out, "--metrics-addr "+addr) || !strings.Contains(out, "address already in use") {
		t.Errorf("a second migrate on %s: exit %d, want 2 naming the address:\n%s", addr, code, out)
	}

	m.pg.Stop()
	waitStatus(t, addr, "the stream reconnecting", 90*time.Second, m.migrate, func(st board.Status) bool {
		return len(st.Streams) == 1 && st.Streams[0].Phase == board.PhaseReconnecting
	})
	p3 := pageOf{dom: br.dom(t, url), stream: m.stream}
	pages = append(pages, p3.dom)
	if ph := p3.phase(t); ph != string(board.PhaseReconnecting) {
		t.Errorf("with the target stopped the stream is %q, want reconnecting", ph)
	}
	if msg := p3.lastError(t); !strings.Contains(msg, "127.0.0.1") && !strings.Contains(strings.ToLower(msg), "connect") {
		t.Errorf("the error shown with the target stopped: %q, want the lost connection", msg)
	}
	for i, dom := range pages {
		if strings.Contains(dom, targetPassword) || strings.Contains(dom, "root:root") {
			t.Errorf("page %d shows a password:\n%s", i, dom)
		}
		if !strings.Contains(dom, "postgres:xxxxx@127.0.0.1") {
			t.Errorf("page %d does not show the redacted target", i)
		}
	}
	if dst := os.Getenv("SLUICE_STATUS_SCREENSHOT"); dst != "" {
		b, err := os.ReadFile(shot)
		if err == nil {
			err = os.WriteFile(dst, b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// lockTarget holds an exclusive lock on the target table: apply waits,
// the lag grows. The returned func releases it.
func lockTarget(t *testing.T, m *monitored) func() {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, m.pg.URL())
	if err != nil {
		t.Fatal(err)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `LOCK TABLE `+pgx.Identifier{m.db, "t"}.Sanitize()+` IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	return func() {
		_ = tx.Rollback(ctx)
		_ = conn.Close(ctx)
	}
}
