package testenv

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// mariadbReadyTimeout bounds the wait for a throwaway server to accept connections.
const mariadbReadyTimeout = 90 * time.Second

// errPortTaken means another process bound the chosen port between our probe and the server's bind.
var errPortTaken = errors.New("port taken")

// mariadbDefaults are the sandbox's settings (scripts/sandbox), except a smaller buffer pool:
// several of these servers may run at once next to the sandbox. Later arguments win in
// mariadbd, so StartMariaDB's extraArgs override any of these.
func mariadbDefaults(dataDir, runDir string, port int) []string {
	args := []string{
		"--no-defaults", // must come first: ignore /etc/mysql and ~/.my.cnf
		"--datadir=" + dataDir,
		"--socket=" + filepath.Join(runDir, "mysqld.sock"),
		"--port=" + strconv.Itoa(port),
		"--bind-address=127.0.0.1",
		"--pid-file=" + filepath.Join(runDir, "mysqld.pid"),
		"--log-error=" + filepath.Join(runDir, "error.log"),
		"--tmpdir=" + runDir, // not the shared /tmp (see scripts/sandbox)
		"--skip-name-resolve",
		"--log-bin=" + filepath.Join(dataDir, "mysql-bin"),
		"--binlog-format=ROW",
		"--binlog-row-image=FULL",
		"--binlog-row-metadata=FULL",
		"--server-id=1",
		"--gtid-strict-mode=ON",
		"--log-slave-updates=ON",
		"--binlog-expire-logs-seconds=2592000",
		"--sync-binlog=0",
		"--max-allowed-packet=256M",
		"--innodb-buffer-pool-size=128M",
		"--innodb-flush-log-at-trx-commit=2",
		"--character-set-server=utf8mb4",
		"--collation-server=utf8mb4_general_ci",
		"--max-connections=200",
	}
	if os.Geteuid() == 0 {
		args = append(args, "--user=root")
	}
	return args
}

// StartMariaDB starts an extra throwaway mariadbd on a free 127.0.0.1 port, with its data
// directory under t.TempDir() and the sandbox's settings unless extraArgs override them (e.g.
// "--binlog-format=STATEMENT"). The server is stopped (by its PID) when the test ends. It returns
// the admin URL mysql://root:root@127.0.0.1:PORT/; the sluice/sluice account exists too.
// Without the MariaDB binaries the test is skipped, or, with CI=true, fails.
func StartMariaDB(t testing.TB, extraArgs ...string) string {
	t.Helper()
	return startMariaDB(t, extraArgs...).url()
}

// startMariaDB is StartMariaDB returning the server (mariadb_kill.go).
func startMariaDB(t testing.TB, extraArgs ...string) *mariadbServer {
	t.Helper()
	mariadbd, installDB, err := mariadbBinaries()
	if err != nil {
		if InCI() {
			t.Fatalf("testenv: CI=true but %v", err)
		}
		t.Skipf("testenv: %v", err)
	}
	dataDir := filepath.Join(t.TempDir(), "data")
	// The socket path must stay under 108 bytes, which t.TempDir() (named after the test) may not.
	runDir, err := os.MkdirTemp("", "sluice-mdb-")
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(runDir) })

	if err := installDataDir(installDB, dataDir); err != nil {
		t.Fatalf("testenv: %v", err)
	}
	var srv *mariadbServer
	for attempt := 1; ; attempt++ {
		port, err := freePort()
		if err != nil {
			t.Fatalf("testenv: %v", err)
		}
		args := append(mariadbDefaults(dataDir, runDir, port), extraArgs...)
		srv, err = launchMariaDB(mariadbd, args, runDir, port)
		if err == nil {
			break
		}
		if !errors.Is(err, errPortTaken) || attempt == 3 {
			t.Fatalf("testenv: start mariadbd %s: %v", strings.Join(extraArgs, " "), err)
		}
	}
	t.Cleanup(func() {
		if err := srv.stop(); err != nil {
			t.Errorf("testenv: %v", err)
		}
	})
	if err := srv.provision(); err != nil {
		t.Fatalf("testenv: set up accounts on throwaway mariadbd: %v", err)
	}
	return srv
}

// url is the server's admin URL, mysql://root:root@127.0.0.1:PORT/.
func (s *mariadbServer) url() string { return fmt.Sprintf("mysql://root:root@127.0.0.1:%d/", s.port) }

func mariadbBinaries() (mariadbd, installDB string, err error) {
	mariadbd, err = exec.LookPath("mariadbd")
	if err != nil {
		if _, statErr := os.Stat("/usr/sbin/mariadbd"); statErr != nil {
			return "", "", errors.New("mariadbd not found (install mariadb-server, e.g. `bash scripts/sandbox start`)")
		}
		mariadbd = "/usr/sbin/mariadbd"
	}
	installDB, err = exec.LookPath("mariadb-install-db")
	if err != nil {
		return "", "", errors.New("mariadb-install-db not found (install mariadb-server, e.g. `bash scripts/sandbox start`)")
	}
	return mariadbd, installDB, nil
}

// installDataDir creates the system tables. root@localhost gets no password ("normal" auth) so
// that provision can log in over the socket whatever OS user runs the tests.
func installDataDir(installDB, dataDir string) error {
	args := []string{"--no-defaults", "--datadir=" + dataDir, "--auth-root-authentication-method=normal",
		"--skip-test-db", "--skip-name-resolve"}
	if u, err := user.Current(); err == nil {
		args = append(args, "--user="+u.Username)
	}
	var err error
	for attempt := 1; attempt <= 2; attempt++ {
		// A bootstrap that fails on a loaded machine (seen once, cause not
		// in its output tail) is retried once from an empty directory.
		if err = os.RemoveAll(dataDir); err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		out, runErr := exec.CommandContext(ctx, installDB, args...).CombinedOutput()
		cancel()
		if runErr == nil {
			return nil
		}
		lines := strings.Split(string(out), "\n")
		err = fmt.Errorf("mariadb-install-db: %w\n%s\n…\n%s", runErr, strings.Join(lines[:min(10, len(lines))], "\n"), Tail(string(out), 10))
	}
	return err
}

// freePort asks the kernel for a free 127.0.0.1 port. Another process may take it before
// mariadbd binds it; StartMariaDB then retries with a new port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// mariadbServer is a running throwaway mariadbd started by this process.
type mariadbServer struct {
	cmd    *exec.Cmd
	exited chan error // receives cmd.Wait's result once
	port   int
	socket string
	logs   []string // error log and stdout/stderr, for messages
}

func launchMariaDB(mariadbd string, args []string, runDir string, port int) (*mariadbServer, error) {
	outPath := filepath.Join(runDir, "mariadbd.out")
	out, err := os.Create(outPath)
	if err != nil {
		return nil, err
	}
	defer out.Close() // the child has its own copy of the descriptor
	cmd := exec.Command(mariadbd, args...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = serverProcAttr()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	srv := &mariadbServer{cmd: cmd, exited: make(chan error, 1), port: port,
		socket: filepath.Join(runDir, "mysqld.sock"),
		logs:   []string{filepath.Join(runDir, "error.log"), outPath}}
	go func() { srv.exited <- cmd.Wait() }()
	if err := srv.waitReady(); err != nil {
		return nil, err
	}
	return srv, nil
}

// waitReady polls the socket until the server answers, it exits, or the timeout passes.
func (s *mariadbServer) waitReady() error {
	deadline := time.Now().Add(mariadbReadyTimeout)
	for time.Now().Before(deadline) {
		select {
		case err := <-s.exited:
			s.exited <- err // keep it for stop
			logs := s.logTail()
			if strings.Contains(logs, "Address already in use") || strings.Contains(logs, "Do you already have another") {
				return fmt.Errorf("%w: %d", errPortTaken, s.port)
			}
			return fmt.Errorf("mariadbd exited during start-up (%v):\n%s", err, logs)
		case <-time.After(200 * time.Millisecond):
		}
		if s.ping() == nil {
			return nil
		}
	}
	_ = s.stop()
	return fmt.Errorf("mariadbd did not accept connections within %s:\n%s", mariadbReadyTimeout, s.logTail())
}

func (s *mariadbServer) ping() error {
	db, err := sql.Open("mysql", "root@unix("+s.socket+")/")
	if err != nil {
		return err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return db.PingContext(ctx)
}

// provision gives root the password 'root' (socket and 127.0.0.1) and creates sluice/sluice.
func (s *mariadbServer) provision() error {
	db, err := sql.Open("mysql", "root@unix("+s.socket+")/?multiStatements=true")
	if err != nil {
		return err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = db.ExecContext(ctx, `
CREATE USER IF NOT EXISTS 'root'@'127.0.0.1';
GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;
ALTER USER 'root'@'127.0.0.1' IDENTIFIED BY 'root';
CREATE USER IF NOT EXISTS 'sluice'@'%' IDENTIFIED BY 'sluice';
CREATE USER IF NOT EXISTS 'sluice'@'127.0.0.1' IDENTIFIED BY 'sluice';
CREATE USER IF NOT EXISTS 'sluice'@'localhost' IDENTIFIED BY 'sluice';
GRANT ALL PRIVILEGES ON *.* TO 'sluice'@'%' WITH GRANT OPTION;
GRANT ALL PRIVILEGES ON *.* TO 'sluice'@'127.0.0.1' WITH GRANT OPTION;
GRANT ALL PRIVILEGES ON *.* TO 'sluice'@'localhost' WITH GRANT OPTION;
ALTER USER 'root'@'localhost' IDENTIFIED BY 'root';`)
	return err
}

// stop sends SIGTERM to the server's PID and waits for it to exit; SIGKILL after a minute.
func (s *mariadbServer) stop() error {
	select {
	case err := <-s.exited:
		s.exited <- err
		return nil // already gone
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.exited:
		s.exited <- err
		return nil
	case <-time.After(60 * time.Second):
	}
	_ = s.cmd.Process.Kill()
	s.exited <- <-s.exited
	return fmt.Errorf("mariadbd pid %d ignored SIGTERM for 60s and was killed", s.cmd.Process.Pid)
}

func (s *mariadbServer) logTail() string {
	var b strings.Builder
	for _, p := range s.logs {
		data, err := os.ReadFile(p)
		if err != nil || len(data) == 0 {
			continue
		}
		fmt.Fprintf(&b, "---- %s ----\n%s\n", p, Tail(string(data), 25))
	}
	return b.String()
}
