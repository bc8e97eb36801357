package preflight

import (
	"strings"
	"testing"
)

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
