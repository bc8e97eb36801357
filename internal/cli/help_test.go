package cli

import (
	"context"
	"strings"
	"testing"
)

// TestMigrateHelpListsOnlyWhatItTakes: migrate shares the snapshot and
// replicate flag groups but refuses --dry-run, --schema-only, --start-gtid
// and --start-position; its help must not list them, and each is still
// refused (exit 2) naming the command that has it.
func TestMigrateHelpListsOnlyWhatItTakes(t *testing.T) {
	_, help, _ := runCLI(context.Background(), "migrate", "--help")
	if !strings.Contains(help, "--until-caught-up") {
		t.Fatalf("migrate --help printed no flags:\n%s", help)
	}
	refusals := map[string]string{
		"--dry-run":        "sluice snapshot --dry-run",
		"--schema-only":    "is for 'sluice snapshot'",
		"--start-gtid":     "are for 'sluice replicate'",
		"--start-position": "are for 'sluice replicate'",
	}
	for flag, says := range refusals {
		if strings.Contains(help, flag+" ") {
			t.Errorf("migrate --help lists %s, which migrate refuses", flag)
		}
		args := []string{"migrate", flag}
		if flag == "--start-gtid" || flag == "--start-position" {
			args = append(args, "x")
		}
		code, _, errOut := runCLI(context.Background(), args...)
		if code != 2 || !strings.Contains(errOut, says) {
			t.Errorf("migrate %s: exit %d, want 2 saying %q: %s", flag, code, says, errOut)
		}
	}
}
