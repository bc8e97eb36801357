package deploy

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/testenv"
)

// freePort is a TCP port on 127.0.0.1 nothing listens on (now).
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// prom is a real Prometheus started by the test, scraping every second.
type prom struct {
	addr string
	log  *testenv.SyncBuffer
}

// scaled are the rules as shipped with `for:` set to 0s and the
// thresholds given scaled down, so that a test can produce each condition
// in seconds. The shipped thresholds are covered by sluice-alerts.test.yml.
func scaled(t *testing.T, thresholds map[string]string) string {
	t.Helper()
	b, err := os.ReadFile(rulesFile)
	if err != nil {
		t.Fatal(err)
	}
	s := regexp.MustCompile(`(?m)^(\s+)for: \S+$`).ReplaceAllString(string(b), "${1}for: 0s")
	for from, to := range thresholds {
		if !strings.Contains(s, from) {
			t.Fatalf("the rules have no %q to scale", from)
		}
		s = strings.ReplaceAll(s, from, to)
	}
	return s
}

// startPrometheus runs Prometheus on a private port and directory with the
// rules given, scraping the sluice metrics addresses as job "sluice".
func startPrometheus(t *testing.T, rules string, targets ...string) *prom {
	t.Helper()
	bin := tool(t, "prometheus", "prometheus")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "rules.yml"), []byte(rules), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf(`global: {scrape_interval: 1s, evaluation_interval: 1s, scrape_timeout: 900ms}
rule_files: [rules.yml]
scrape_configs:
  - job_name: sluice
    static_configs: [{targets: ['%s']}]
`, strings.Join(targets, "', '"))
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &prom{addr: fmt.Sprintf("127.0.0.1:%d", freePort(t)), log: &testenv.SyncBuffer{}}
	cmd := exec.Command(bin, "--config.file="+filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+p.addr, "--log.level=warn")
	cmd.Stdout, cmd.Stderr = p.log, p.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	p.waitFor(t, "Prometheus ready", 60*time.Second, func() bool {
		r, err := http.Get("http://" + p.addr + "/-/ready")
		if err == nil {
			r.Body.Close()
		}
		return err == nil && r.StatusCode == 200
	})
	return p
}

// sample is one series of an instant query.
type sample struct {
	Metric map[string]string `json:"metric"`
	Value  [2]any            `json:"value"`
}

// query runs an instant query; an error of the query language fails the test.
func (p *prom) query(t *testing.T, q string) []sample {
	t.Helper()
	r, err := http.Get("http://" + p.addr + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	var out struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []sample `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(r.Body).Decode(&out); err != nil {
		t.Fatalf("query %s: %v", q, err)
	}
	if out.Status != "success" {
		t.Fatalf("query %s: %s", q, out.Error)
	}
	return out.Data.Result
}

// firing returns the firing alerts named so whose labels include want.
func (p *prom) firing(t *testing.T, alert string, want map[string]string) []sample {
	t.Helper()
	var out []sample
	for _, s := range p.query(t, `ALERTS{alertname="`+alert+`",alertstate="firing"}`) {
		ok := true
		for k, v := range want {
			ok = ok && s.Metric[k] == v
		}
		if ok {
			out = append(out, s)
		}
	}
	return out
}

// waitFiring waits until the alert fires with the labels given.
func (p *prom) waitFiring(t *testing.T, alert string, want map[string]string) {
	t.Helper()
	p.waitFor(t, alert+" firing for "+fmt.Sprint(want), 90*time.Second, func() bool { return len(p.firing(t, alert, want)) > 0 })
}

func (p *prom) waitFor(t *testing.T, what string, d time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s\nprometheus log:\n%s", d, what, testenv.Tail(p.log.String(), 20))
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// rulesHealth is every loaded rule's name and health ("ok", "err", "unknown").
func (p *prom) rulesHealth(t *testing.T) map[string]string {
	t.Helper()
	r, err := http.Get("http://" + p.addr + "/api/v1/rules")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	var out struct {
		Data struct {
			Groups []struct {
				Rules []struct {
					Name      string `json:"name"`
					Health    string `json:"health"`
					LastError string `json:"lastError"`
				} `json:"rules"`
			} `json:"groups"`
		} `json:"data"`
	}
	if err := json.NewDecoder(r.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	h := map[string]string{}
	for _, g := range out.Data.Groups {
		for _, rule := range g.Rules {
			h[rule.Name] = rule.Health + rule.LastError
		}
	}
	return h
}
