package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/sluice-db/sluice/internal/config"
)

// TestConfigFileUnknownKey: a key no sluice command has is an error (exit
// 2) naming it; a key of another command is fine (one file serves all).
func TestConfigFileUnknownKey(t *testing.T) {
	dir := t.TempDir()
	typo := filepath.Join(dir, "typo.yaml")
	if err := os.WriteFile(typo, []byte("target: postgres://u:p@127.0.0.1:1/x\nwokers: 4\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCLI(context.Background(), "status", "--config", typo)
	if code != 2 || !strings.Contains(errOut, `unknown setting "wokers"`) {
		t.Errorf("typo: exit %d: %s", code, errOut)
	}
	other := filepath.Join(dir, "other.yaml")
	if err := os.WriteFile(other, []byte("target: postgres://u:p@127.0.0.1:1/x\nrepair: true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runCLI(context.Background(), "status", "--config", other)
	if strings.Contains(errOut, "unknown setting") {
		t.Errorf("a key of another command (verify --repair) must be accepted: exit %d: %s", code, errOut)
	}
}

func TestVersionFlag(t *testing.T) {
	code, out, _ := runCLI(context.Background(), "--version")
	code2, out2, _ := runCLI(context.Background(), "version")
	if code != 0 || code2 != 0 || !strings.HasPrefix(out, "sluice "+Version+" (commit ") || out != out2 {
		t.Errorf("--version: exit %d %q; version: exit %d %q", code, out, code2, out2)
	}
}

// TestMetricsAddrOnLongCommands: snapshot and verify take --metrics-addr
// like replicate; an address that cannot be served is a configuration error.
func TestMetricsAddrOnLongCommands(t *testing.T) {
	for _, cmd := range []string{"snapshot", "verify", "replicate", "migrate"} {
		root := NewRootCmd(&strings.Builder{}, &strings.Builder{})
		c, _, err := root.Find([]string{cmd})
		if err != nil || c.Flags().Lookup("metrics-addr") == nil {
			t.Errorf("%s has no --metrics-addr (%v)", cmd, err)
		}
	}
	code, _, errOut := runCLI(context.Background(), "verify", "--source", "mysql://u:p@127.0.0.1:1/x",
		"--target", "postgres://u:p@127.0.0.1:1/x", "--metrics-addr", "256.0.0.1:1")
	if code != 2 || !strings.Contains(errOut, "256.0.0.1") {
		t.Errorf("verify --metrics-addr 256.0.0.1:1: exit %d: %s", code, errOut)
	}
	// --pprof serves on the metrics port: alone it would silently serve nothing.
	code, _, errOut = runCLI(context.Background(), "verify", "--source", "mysql://u@127.0.0.1:1/x",
		"--target", "postgres://u@127.0.0.1:1/x", "--pprof")
	if code != 2 || !strings.Contains(errOut, "--pprof serves the profiler on --metrics-addr") {
		t.Errorf("verify --pprof without --metrics-addr: exit %d: %s", code, errOut)
	}
}

// TestEveryURLFlagHasAPasswordFile: every connection URL flag of every
// command (--source, --target, alter's --replica, stream's shards) takes
// its password from a file or the environment, so no documented command
// needs one on the command line.
func TestEveryURLFlagHasAPasswordFile(t *testing.T) {
	root := NewRootCmd(&strings.Builder{}, &strings.Builder{})
	var walk func(c *cobra.Command)
	seen := 0
	walk = func(c *cobra.Command) {
		for _, name := range []string{"source", "target", "replica"} {
			if c.Flags().Lookup(name) == nil {
				continue
			}
			seen++
			if c.Flags().Lookup(config.PasswordFileFlag(name)) == nil {
				t.Errorf("sluice %s --%s has no --%s", c.CommandPath(), name, config.PasswordFileFlag(name))
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	if seen < 15 {
		t.Errorf("only %d URL flags found", seen)
	}
}

// TestNotifyFlagsWhereverMetricsAddr: every command that serves
// --metrics-addr (every long-running one) takes the hooks and webhooks too.
func TestNotifyFlagsWhereverMetricsAddr(t *testing.T) {
	root := NewRootCmd(&strings.Builder{}, &strings.Builder{})
	var walk func(c *cobra.Command)
	seen := 0
	walk = func(c *cobra.Command) {
		if c.Flags().Lookup("metrics-addr") != nil {
			seen++
			for _, f := range []string{"hook", "hook-timeout", "notify-webhook", "notify-lag"} {
				if c.Flags().Lookup(f) == nil {
					t.Errorf("%s has --metrics-addr and no --%s", c.CommandPath(), f)
				}
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	if seen < 7 {
		t.Errorf("%d commands with --metrics-addr, want at least 7 (replicate and the way back, migrate, stream, alter, snapshot, verify, cutover)", seen)
	}
}
