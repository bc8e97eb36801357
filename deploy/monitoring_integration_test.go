package deploy

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/board"
	"github.com/sluice-db/sluice/internal/cutover"
	"github.com/sluice-db/sluice/internal/testenv"
)

// The rules' thresholds scaled to what a test produces in seconds.
var testThresholds = map[string]string{
	"expr: sluice_replicate_lag_seconds > 300":                                             "expr: sluice_replicate_lag_seconds > 3",
	"deriv(sluice_replicate_lag_seconds[10m]) > 0.1 and sluice_replicate_lag_seconds > 60": "deriv(sluice_replicate_lag_seconds[20s]) > 0.1 and sluice_replicate_lag_seconds > 3",
	"sluice_reverse_lag_seconds > 300":                                                     "sluice_reverse_lag_seconds > 3",
	"sluice_reverse_behind_bytes > 1073741824":                                             "sluice_reverse_behind_bytes > 0",
}

// monitored is the running system the test watches: a migration into a
// private PostgreSQL, a Kafka stream of the same database, and Prometheus.
type monitored struct {
	env          *testenv.Env
	bin, db, src string
	pg           *testenv.Postgres
	target       string
	stream       string
	merged       string    // the Kafka stream's merged topic
	addrs        [3]string // migrate, stream, the way back
	migrate      *proc
	kafka        *proc
	prom         *prom
}

// TestMonitoringOnARealPrometheus loads the shipped alert rules (their
// durations and thresholds scaled to seconds) into a real Prometheus that
// scrapes a running migrate, a Kafka stream and then the way back. Every
// panel of the shipped dashboard must return data from real series, every
// rule must evaluate without error, and each alert whose condition the
// test can produce must fire: values a policy changed, the target behind
// (a lock on the target table under writes) and falling further behind,
// the binlog headroom (the sandbox keeps 2 h), the target stopped, the
// way back behind (a MySQL table lock) with its WAL not yet applied, and a
// sluice process killed.
func TestMonitoringOnARealPrometheus(t *testing.T) {
	m := startMonitored(t)
	p := m.prom
	for i, pr := range []*proc{m.migrate, m.kafka} {
		addr := m.addrs[i]
		p.waitFor(t, "up{instance="+addr+"} == 1", 60*time.Second, func() bool {
			pr.running(t)
			s := p.query(t, `up{job="sluice",instance="`+addr+`"} == 1`)
			return len(s) == 1
		})
	}
	// The Kafka stream's shard is on its status page too.
	waitStatus(t, m.addrs[1], "the Kafka stream and its merged topic on its status page", 60*time.Second, m.kafka, func(st board.Status) bool {
		return len(st.Streams) == 1 && st.Streams[0].Phase == board.PhaseReplicating && st.Streams[0].Applied != "" &&
			len(st.Merged) == 1 && st.Merged[0].Topic == m.merged && len(st.Merged[0].Shards) == 1 &&
			st.Merged[0].Shards[0].Shard == st.Streams[0].Name && st.Merged[0].Shards[0].Watermark != nil
	})
	m.policyChange(t)
	m.targetBehind(t)
	m.headroom(t)
	m.panelsHaveData(t, func(expr string) bool { return !strings.Contains(expr, "sluice_reverse_") })
	m.targetStopped(t)
	m.wayBack(t)
	m.panelsHaveData(t, func(expr string) bool { return strings.Contains(expr, "sluice_reverse_") })
	m.kafka.running(t)
	m.kafka.kill()
	p.waitFiring(t, "SluiceDown", map[string]string{"instance": m.addrs[1]})
	for name, h := range p.rulesHealth(t) {
		if h != "ok" {
			t.Errorf("rule %s: health %q", name, h)
		}
	}
	if n := len(p.rulesHealth(t)); n != 9 {
		t.Errorf("%d rules loaded, want the 9 of %s", n, rulesFile)
	}
}

func startMonitored(t *testing.T) *monitored {
	t.Helper()
	env := testenv.Get(t)
	m := &monitored{env: env, bin: testenv.SluiceBinary(t), pg: testenv.StartPostgres(t)}
	m.db = env.NewDatabase(t, "mon")
	m.src, m.target = env.SourceURL(m.db), m.pg.URL()
	m.stream = testenv.UniqueName("mon")
	my := env.MySQL(t, m.db)
	if _, err := my.Exec(`CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(20), d DATE NULL)`); err != nil {
		t.Fatal(err)
	}
	if _, err := my.Exec(env.SQL(`INSERT INTO t (v) SELECT concat('v', seq) FROM seq_1_to_50`)); err != nil {
		t.Fatal(err)
	}
	for i := range m.addrs {
		m.addrs[i] = "127.0.0.1:" + strconv.Itoa(freePort(t))
	}
	m.migrate = startSluice(t, m.bin, "migrate", "migrate", "--source", m.src, "--target", m.target, "--stream", m.stream,
		"--workers", "2", "--metrics-addr", m.addrs[0], "--log-level", "warn")
	prefix := testenv.UniqueName("monk")
	m.merged = prefix + ".global"
	m.kafka = startSluice(t, m.bin, "stream", "stream", "--source", m.src, "--kafka", strings.Join(env.Kafka(t), ","),
		"--topic-prefix", prefix, "--stream", prefix, "--workers", "1", "--merged-topic", m.merged,
		"--metrics-addr", m.addrs[1], "--log-level", "warn")
	m.prom = startPrometheus(t, scaled(t, testThresholds), m.addrs[:]...)
	return m
}

// policyChange writes a zero date, which the default --zero-date policy
// turns into NULL: SluicePolicyChangedValues fires, naming the column.
func (m *monitored) policyChange(t *testing.T) {
	my := m.env.MySQL(t, m.db)
	if _, err := my.Exec(`SET STATEMENT sql_mode = '' FOR INSERT INTO t (v, d) VALUES ('zero', '0000-00-00')`); err != nil {
		if _, err2 := my.Exec(`SET SESSION sql_mode = ''`); err2 != nil {
			t.Fatal(err)
		}
		if _, err := my.Exec(`INSERT INTO t (v, d) VALUES ('zero', '0000-00-00')`); err != nil {
			t.Fatal(err)
		}
	}
	m.prom.waitFiring(t, "SluicePolicyChangedValues", map[string]string{"stream": m.stream, "column": "d"})
}

// writeEvery inserts a row every 100 ms until stop is called.
func (m *monitored) writeEvery(t *testing.T) (stop func()) {
	my := m.env.MySQL(t, m.db)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			_, _ = my.ExecContext(ctx, `INSERT INTO t (v) VALUES ('load')`)
			time.Sleep(100 * time.Millisecond)
		}
	}()
	return func() { cancel(); wg.Wait() }
}

// targetBehind holds a lock on the target table while the source writes:
// the lag grows, SluiceReplicationLagHigh and SluiceFallingBehind fire for
// this stream (not for the Kafka stream of the same source).
func (m *monitored) targetBehind(t *testing.T) {
	unlock := lockTarget(t, m)
	stop := m.writeEvery(t)
	m.prom.waitFiring(t, "SluiceReplicationLagHigh", map[string]string{"stream": m.stream})
	m.prom.waitFiring(t, "SluiceFallingBehind", map[string]string{"stream": m.stream})
	for _, s := range m.prom.firing(t, "SluiceReplicationLagHigh", nil) {
		if s.Metric["stream"] != m.stream {
			t.Errorf("SluiceReplicationLagHigh fires for %q, whose target is not locked", s.Metric["stream"])
		}
	}
	stop()
	unlock()
	m.prom.waitFor(t, "the lag back under the threshold", 60*time.Second, func() bool {
		return len(m.prom.firing(t, "SluiceReplicationLagHigh", map[string]string{"stream": m.stream})) == 0
	})
}

// headroom: SluiceBinlogRetentionHeadroomLow fires exactly when the
// stream's headroom is under 6 h (the sandbox keeps 2 h of binlogs).
func (m *monitored) headroom(t *testing.T) {
	var v float64
	m.prom.waitFor(t, "a binlog headroom", 60*time.Second, func() bool {
		s := m.prom.query(t, `sluice_replicate_binlog_retention_headroom_seconds{stream="`+m.stream+`"}`)
		if len(s) != 1 {
			return false
		}
		var err error
		v, err = strconv.ParseFloat(fmt.Sprint(s[0].Value[1]), 64)
		return err == nil && v == v // not NaN
	})
	want := map[string]string{"stream": m.stream}
	if v < 6*3600 {
		m.prom.waitFiring(t, "SluiceBinlogRetentionHeadroomLow", want)
	} else {
		time.Sleep(3 * time.Second)
		if len(m.prom.firing(t, "SluiceBinlogRetentionHeadroomLow", want)) != 0 {
			t.Errorf("SluiceBinlogRetentionHeadroomLow fires with a headroom of %.0f s", v)
		}
	}
	t.Logf("binlog headroom %.0f s", v)
}

// panelsHaveData: every dashboard query that want selects returns at
// least one series from the running processes.
func (m *monitored) panelsHaveData(t *testing.T, want func(expr string) bool) {
	for _, pn := range loadDashboard(t) {
		for _, tg := range pn.Targets {
			if tg.Expr == "" || !want(tg.Expr) {
				continue
			}
			q := strings.NewReplacer(`"$stream"`, `".*"`, "$__rate_interval", "30s").Replace(tg.Expr)
			m.prom.waitFor(t, "data for panel "+pn.Title+": "+q, 60*time.Second, func() bool { return len(m.prom.query(t, q)) > 0 })
		}
	}
}

// targetStopped: PostgreSQL stops; SluiceTargetUnreachable fires; it
// starts again and replicate continues.
func (m *monitored) targetStopped(t *testing.T) {
	want := map[string]string{"stream": m.stream}
	m.pg.Stop()
	m.prom.waitFiring(t, "SluiceTargetUnreachable", want)
	m.pg.Start()
	m.prom.waitFor(t, "the target reachable again", 90*time.Second, func() bool {
		return len(m.prom.query(t, `sluice_replicate_target_reachable{stream="`+m.stream+`"} == 1`)) == 1
	})
}

// cutover runs sluice cutover with its status page: the steps show there
// as they run (the quiet step lasts its 3 s), and it switches.
func (m *monitored) cutover(t *testing.T) {
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	c := startSluice(t, m.bin, "cutover", "cutover", "--source", m.src, "--target", m.target, "--stream", m.stream,
		"--quiet-for", "3s", "--metrics-addr", addr, "--log-level", "warn")
	st := waitStatus(t, addr, "the cutover's quiet step running", 60*time.Second, c, func(st board.Status) bool {
		return len(st.Cutovers) == 1 && len(st.Cutovers[0].Steps) == 6 && st.Cutovers[0].Steps[1].Result == "running"
	})
	if cs := st.Cutovers[0]; cs.Name != m.stream || cs.Result != "running" || cs.Steps[0].Name != "arm" || cs.Steps[0].Result != "ok" ||
		cs.Steps[2].Name != "catch-up" || cs.Steps[2].Result != "pending" {
		t.Errorf("the cutover on its status page: %+v", cs)
	}
	if err := <-c.done; err != nil {
		t.Fatalf("cutover: %v\n%s", err, c.out.String())
	}
}

// wayBack cuts over and starts the way back; a lock on the MySQL table
// while the application writes to PostgreSQL makes
// SluiceWayBackLagHigh and SluiceWayBackWALRetained fire. Released, every
// row written on PostgreSQL arrives in MySQL.
func (m *monitored) wayBack(t *testing.T) {
	ctx := context.Background()
	my := m.env.MySQL(t, m.db)
	if _, err := my.Exec(`DELETE FROM t WHERE v = 'zero'`); err != nil { // verify at the cutover: no value changed by a policy
		t.Fatal(err)
	}
	m.migrate.running(t)
	m.migrate.stop(t)
	m.cutover(t)
	rev := cutover.DefaultReverseStream(m.stream)
	back := startSluice(t, m.bin, "replicate (the way back)", "replicate", "--source", m.target, "--target", m.src,
		"--stream", rev, "--workers", "2", "--metrics-addr", m.addrs[2], "--log-level", "warn")
	m.prom.waitFor(t, "the way back scraped", 60*time.Second, func() bool {
		return len(m.prom.query(t, `sluice_reverse_applied_lsn{stream="`+rev+`"} > 0`)) == 1
	})
	st := waitStatus(t, m.addrs[2], "the way back on its status page", 60*time.Second, back, func(st board.Status) bool {
		return len(st.Streams) == 1 && st.Streams[0].Phase == board.PhaseReplicating
	})
	if s := st.Streams[0]; s.Name != rev || s.Kind != "reverse" || !strings.HasPrefix(s.Source, "postgres://") || !strings.HasPrefix(s.Target, "mysql://") {
		t.Errorf("the way back's status: %+v", s)
	}
	lock, err := my.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if _, err := lock.ExecContext(ctx, `LOCK TABLES t WRITE`); err != nil {
		t.Fatal(err)
	}
	pg, err := pgx.Connect(ctx, m.pg.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close(ctx)
	table := pgx.Identifier{m.db, "t"}.Sanitize()
	wctx, stop := context.WithCancel(ctx)
	written := make(chan int, 1)
	go func() {
		n := 0
		for wctx.Err() == nil {
			if _, err := pg.Exec(wctx, `INSERT INTO `+table+` (v) VALUES ('back')`); err == nil {
				n++
			}
			time.Sleep(100 * time.Millisecond)
		}
		written <- n
	}()
	want := map[string]string{"stream": rev}
	m.prom.waitFiring(t, "SluiceWayBackLagHigh", want)
	m.prom.waitFiring(t, "SluiceWayBackWALRetained", want)
	stop()
	wrote := <-written
	// What PostgreSQL holds is what must arrive: an INSERT cancelled by
	// stop may still have committed (the count of successful calls would
	// miss it).
	// (A new connection: pgx closes one whose query a context cancelled.)
	count, err := pgx.Connect(ctx, m.pg.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer count.Close(ctx)
	var n int
	if err := count.QueryRow(ctx, `SELECT count(*) FROM `+table+` WHERE v = 'back'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n < wrote || n > wrote+1 {
		t.Fatalf("PostgreSQL holds %d rows written, the writer made %d (and at most one cancelled)", n, wrote)
	}
	if _, err := lock.ExecContext(ctx, `UNLOCK TABLES`); err != nil {
		t.Fatal(err)
	}
	// The way back's apply waited on the lock all along; on a busy box its
	// retry after the lock wait can take a while (bounded: 3 min), and a
	// failure says how many rows came and what the way back logged.
	var got int
	for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(250 * time.Millisecond) {
		if my.QueryRow(`SELECT count(*) FROM t WHERE v = 'back'`).Scan(&got) == nil && got == n {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of the %d rows written on PostgreSQL reached MySQL in 3 min; the way back's log:\n%s", got, n, testenv.Tail(back.out.String(), 40))
		}
	}
	back.running(t)
}
