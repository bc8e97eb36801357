package deploy

import (
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/testenv"
)

const (
	rulesFile     = "prometheus/sluice-alerts.yml"
	rulesTestFile = "prometheus/sluice-alerts.test.yml"
	dashboardFile = "grafana/sluice-dashboard.json"
)

// tool finds a binary of a Debian package (prometheus, chromium); CI
// installs them (scripts/sandbox), elsewhere the test is skipped without.
func tool(t *testing.T, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if testenv.InCI() {
			t.Fatalf("%s not on PATH with CI=true: `bash scripts/sandbox start` installs Debian's %s package", name, pkg)
		}
		t.Skipf("%s not on PATH (Debian's %s package; `bash scripts/sandbox start` installs it)", name, pkg)
	}
	return p
}

// TestAlertRulesPromtool: the rules parse, and each alert fires on the
// series that should raise it and on no other (the unit tests in
// sluice-alerts.test.yml list the exact set of firing alerts per time).
func TestAlertRulesPromtool(t *testing.T) {
	promtool := tool(t, "promtool", "prometheus")
	for _, args := range [][]string{{"check", "rules", rulesFile}, {"test", "rules", rulesTestFile}} {
		out, err := exec.Command(promtool, args...).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "SUCCESS") {
			t.Fatalf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	// Every alert of the file has a unit test.
	rules, err := os.ReadFile(rulesFile)
	if err != nil {
		t.Fatal(err)
	}
	tests, err := os.ReadFile(rulesTestFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`(?m)^\s*- alert: (\S+)`).FindAllStringSubmatch(string(rules), -1) {
		if !strings.Contains(string(tests), "alertname: "+m[1]+"\n") {
			t.Errorf("alert %s has no test in %s", m[1], rulesTestFile)
		}
	}
}

// dashboard is the part of a Grafana dashboard the tests read.
type dashboard struct {
	Panels []panel `json:"panels"`
}

type panel struct {
	ID      int    `json:"id"`
	Type    string `json:"type"`
	Title   string `json:"title"`
	GridPos struct {
		H, W, X, Y int
	} `json:"gridPos"`
	Targets []struct {
		Expr string `json:"expr"`
	} `json:"targets"`
	Panels []panel `json:"panels"`
}

func loadDashboard(t *testing.T) []panel {
	t.Helper()
	b, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	var out []panel
	for _, p := range d.Panels {
		out = append(out, p)
		out = append(out, p.Panels...)
	}
	return out
}

// TestDashboardShape: unique ids, panels inside Grafana's 24 columns, and
// a query on every panel that is not a row.
func TestDashboardShape(t *testing.T) {
	ids := map[int]bool{}
	for _, p := range loadDashboard(t) {
		if ids[p.ID] {
			t.Errorf("panel id %d twice", p.ID)
		}
		ids[p.ID] = true
		if p.GridPos.X+p.GridPos.W > 24 || p.GridPos.W <= 0 {
			t.Errorf("panel %q: gridPos x=%d w=%d outside 24 columns", p.Title, p.GridPos.X, p.GridPos.W)
		}
		if p.Type != "row" && (len(p.Targets) == 0 || p.Targets[0].Expr == "") {
			t.Errorf("panel %q has no query", p.Title)
		}
	}
}
