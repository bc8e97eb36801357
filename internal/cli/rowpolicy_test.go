package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRowPolicyFlags: a command that does not apply row filters and masks
// refuses them in a config file (instead of copying, comparing or
// repairing in clear); the mask key is never a flag value; a malformed
// --where or --mask stops before any connection.
func TestRowPolicyFlags(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(cfg, []byte("source: mysql://u@127.0.0.1:1/shop\ntarget: postgres://u:p@127.0.0.1:1/x\nwhere:\n  - shop.orders=tenant = 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"verify", "cutover"} {
		code, _, errOut := runCLI(context.Background(), cmd, "--config", cfg)
		if code != 2 || !strings.Contains(errOut, "does not apply row filters and column masks") {
			t.Errorf("%s with where: in the config file: exit %d: %s", cmd, code, errOut)
		}
	}
	code, _, errOut := runCLI(context.Background(), "replicate", "--source", "mysql://u@127.0.0.1:1/shop", "--target", "postgres://u:p@127.0.0.1:1/x",
		"--mask-key", "secret-value-123456")
	if code == 0 || strings.Contains(errOut, "secret-value-123456") {
		t.Errorf("--mask-key on the command line: exit %d: %s", code, errOut)
	}
	for _, bad := range [][]string{{"--where", "shop.orders"}, {"--mask", "shop.orders.email=scramble"}, {"--mask", "shop.email=hash"}} {
		code, _, errOut := runCLI(context.Background(), append([]string{"snapshot", "--source", "mysql://u@127.0.0.1:1/shop", "--target", "postgres://u:p@127.0.0.1:1/x"}, bad...)...)
		if code != 2 || !strings.Contains(errOut, bad[0]) {
			t.Errorf("%v: exit %d: %s", bad, code, errOut)
		}
	}
	code, _, errOut = runCLI(context.Background(), "replicate", "--source", "postgres://u:p@127.0.0.1:1/x", "--target", "mysql://u@127.0.0.1:1/shop",
		"--where", "shop.orders=tenant = 1")
	if code != 2 || !strings.Contains(errOut, "reverse stream") {
		t.Errorf("--where on the way back: exit %d: %s", code, errOut)
	}
	key := filepath.Join(dir, "short.key")
	if err := os.WriteFile(key, []byte("short\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runCLI(context.Background(), "replicate", "--source", "mysql://u@127.0.0.1:1/shop", "--target", "postgres://u:p@127.0.0.1:1/x",
		"--mask", "shop.t.c=hash", "--mask-key-file", key)
	if code != 2 || !strings.Contains(errOut, "at least 16") || strings.Contains(errOut, "short\n") {
		t.Errorf("a short key: exit %d: %s", code, errOut)
	}
	open := filepath.Join(dir, "open.key")
	if err := os.WriteFile(open, []byte("0123456789abcdef0123\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runCLI(context.Background(), "replicate", "--source", "mysql://u@127.0.0.1:1/shop", "--target", "postgres://u:p@127.0.0.1:1/x",
		"--mask", "shop.t.c=hash", "--mask-key-file", open)
	if code != 2 || !strings.Contains(errOut, "chmod 600") || strings.Contains(errOut, "0123456789abcdef") {
		t.Errorf("a key file others may read: exit %d: %s", code, errOut)
	}
}
