package testenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// StartMySQL9Server starts a throwaway MySQL 9 mysqld (GTIDs on,
// log_replica_updates) on a free 127.0.0.1 port from the tree
// scripts/sandbox unpacked (SLUICE_MYSQL9_CACHE, default
// /var/cache/sluice-mysql9), run through that tree's own loader as the
// sandbox runs it. Accounts as StartMariaDB's; stopped when the test ends.
// Without the tree the test is skipped, or, with CI=true, fails.
func StartMySQL9Server(t testing.TB, extraArgs ...string) *MySQLServer {
	t.Helper()
	root := filepath.Join(envOr("SLUICE_MYSQL9_CACHE", "/var/cache/sluice-mysql9"), "root")
	ld := filepath.Join(root, "usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2")
	mysqld := filepath.Join(root, "usr/sbin/mysqld")
	if _, err := os.Stat(mysqld); err != nil {
		if InCI() {
			t.Fatalf("testenv: CI=true but no MySQL 9 tree: %v (bash scripts/sandbox start unpacks it)", err)
		}
		t.Skipf("testenv: no MySQL 9 tree: %v", err)
	}
	prefix := []string{"--library-path", filepath.Join(root, "usr/lib/x86_64-linux-gnu") + ":" + filepath.Join(root, "lib/x86_64-linux-gnu"), mysqld, "--no-defaults"}
	dataDir := filepath.Join(t.TempDir(), "data")
	runDir, err := os.MkdirTemp("", "sluice-m9-")
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(runDir) })
	base := []string{"--basedir=" + filepath.Join(root, "usr"), "--lc-messages-dir=" + filepath.Join(root, "usr/share/mysql"),
		"--plugin-dir=" + filepath.Join(root, "usr/lib/mysql/plugin"), "--datadir=" + dataDir}
	if os.Geteuid() == 0 {
		base = append(base, "--user=root")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	out, err := exec.CommandContext(ctx, ld, append(append(prefix, base...), "--initialize-insecure", "--log-error="+filepath.Join(runDir, "init.log"))...).CombinedOutput()
	cancel()
	if err != nil {
		init, _ := os.ReadFile(filepath.Join(runDir, "init.log"))
		t.Fatalf("testenv: mysqld --initialize-insecure: %v\n%s\n%s", err, out, Tail(string(init), 20))
	}
	var srv *mariadbServer
	for attempt := 1; ; attempt++ {
		port, err := freePort()
		if err != nil {
			t.Fatalf("testenv: %v", err)
		}
		args := append(append(append(prefix, base...), mysql9Defaults(runDir, port)...), extraArgs...)
		srv, err = launchMariaDB(ld, args, runDir, port)
		if err == nil {
			break
		}
		if !errors.Is(err, errPortTaken) || attempt == 3 {
			t.Fatalf("testenv: start MySQL 9: %v", err)
		}
	}
	t.Cleanup(func() {
		if err := srv.stop(); err != nil {
			t.Errorf("testenv: %v", err)
		}
	})
	if err := srv.provision(); err != nil {
		t.Fatalf("testenv: set up accounts on throwaway MySQL 9: %v", err)
	}
	return &MySQLServer{URL: srv.url(), Port: srv.port, srv: srv, mysql: true}
}

// mysql9Defaults are the sandbox's MySQL 9 settings, smaller.
func mysql9Defaults(runDir string, port int) []string {
	return []string{
		"--socket=" + filepath.Join(runDir, "mysqld.sock"),
		"--port=" + strconv.Itoa(port),
		"--bind-address=127.0.0.1",
		"--pid-file=" + filepath.Join(runDir, "mysqld.pid"),
		"--log-error=" + filepath.Join(runDir, "error.log"),
		"--tmpdir=" + runDir,
		"--secure-file-priv=" + runDir,
		"--mysqlx=OFF",
		"--skip-name-resolve",
		"--server-id=1",
		"--log-bin=" + filepath.Join(runDir, "binlog"),
		"--binlog-format=ROW",
		"--binlog-row-image=FULL",
		"--binlog-row-metadata=FULL",
		"--gtid-mode=ON",
		"--enforce-gtid-consistency=ON",
		"--log-replica-updates=ON",
		"--sync-binlog=0",
		"--performance-schema=OFF",
		"--innodb-buffer-pool-size=64M",
		"--innodb-flush-log-at-trx-commit=2",
		"--character-set-server=utf8mb4",
		"--max-connections=200",
		fmt.Sprintf("--report-port=%d", port),
	}
}
