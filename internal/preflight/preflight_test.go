package preflight

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/config"
)

// Nothing listens on port 1: both sides must fail fast, each with its own
// one-line reason, and never show the password.
func TestUnreachableServers(t *testing.T) {
	src, err := config.ParseSource("mysql://bad:hunter2@127.0.0.1:1/x")
	if err != nil {
		t.Fatal(err)
	}
	dst, err := config.ParseAnyTarget("postgres://bad:hunter2@127.0.0.1:1/x")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	rep := Run(context.Background(), src, dst, Needs{Source: true, Binlog: true, Target: true, TargetCreate: true})
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("pre-flight took %s, want < 10s", d)
	}
	errs := rep.Errors()
	if len(errs) != 2 {
		t.Fatalf("want one problem per side, got %v", errs)
	}
	msg := rep.Err().Error()
	if strings.Contains(msg, "hunter2") {
		t.Fatalf("password printed: %s", msg)
	}
	for _, want := range []string{"source: cannot reach 127.0.0.1:1: connection refused", "target: cannot reach 127.0.0.1:1: connection refused"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
}

func TestBinlogSettingsNameSettingAndFix(t *testing.T) {
	probs := checkBinlogSettings(map[string]string{
		"log_bin": "ON", "binlog_format": "STATEMENT", "binlog_row_image": "MINIMAL",
		"binlog_row_value_options": "PARTIAL_JSON",
	}, SourceInfo{ServerID: 0})
	got := make([]string, len(probs))
	for i, p := range probs {
		got[i] = p.String()
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{
		"binlog_format is STATEMENT, sluice needs ROW; fix: SET GLOBAL binlog_format = 'ROW'",
		"binlog_row_image is MINIMAL",
		"server_id is 0",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("missing %q in:\n%s", want, all)
		}
	}
	if strings.Contains(all, "binlog_row_value_options") {
		t.Errorf("partial JSON updates are supported, yet:\n%s", all)
	}
	if len(probs) != 3 {
		t.Errorf("want 3 problems, got %d:\n%s", len(probs), all)
	}
	if p := checkBinlogSettings(map[string]string{"log_bin": "ON", "binlog_format": "ROW", "binlog_row_image": "FULL"}, SourceInfo{ServerID: 1}); len(p) != 0 {
		t.Errorf("a correct server has problems: %v", p)
	}
}
