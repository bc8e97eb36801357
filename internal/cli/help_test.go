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
		"--on-error":       "applies to the reverse stream",
	}
	for flag, says := range refusals {
		if strings.Contains(help, flag+" ") {
			t.Errorf("migrate --help lists %s, which migrate refuses", flag)
		}
		args := []string{"migrate", flag}
		switch flag {
		case "--start-gtid", "--start-position":
			args = append(args, "x")
		case "--on-error":
			args = append(args, "skip-and-log")
		}
		code, _, errOut := runCLI(context.Background(), args...)
		if code != 2 || !strings.Contains(errOut, says) {
			t.Errorf("migrate %s: exit %d, want 2 saying %q: %s", flag, code, says, errOut)
		}
	}
	if strings.Contains(help, "with --dry-run") {
		t.Errorf("migrate --help mentions --dry-run:\n%s", help)
	}
}

// TestSourceHelpNamesTheWayBack: replicate and status take a postgres://
// --source (the way back); their --source help says so, and no command's
// help pins MySQL to 5.7/8.0 (9.7 is tested).
func TestSourceHelpNamesTheWayBack(t *testing.T) {
	for _, c := range []string{"replicate", "status", "snapshot"} {
		_, help, _ := runCLI(context.Background(), c, "--help")
		line := ""
		for _, l := range strings.Split(help, "\n") {
			if strings.Contains(l, "--source string") {
				line = l
			}
		}
		wantReverse := c != "snapshot"
		if strings.Contains(line, "postgres://") != wantReverse || !strings.Contains(line, "MySQL 5.7 and later") {
			t.Errorf("%s --help: --source line %q (postgres:// source expected: %v)", c, line, wantReverse)
		}
	}
}
