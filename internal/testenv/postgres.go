package testenv

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgBin is where Debian's PostgreSQL 15 server binaries live (the sandbox uses the same).
const pgBin = "/usr/lib/postgresql/15/bin"

// Postgres is a PostgreSQL 15 instance private to one test, run as the
// postgres OS user from a temporary directory, so the test may kill it
// without touching the shared sandbox servers.
type Postgres struct {
	t    testing.TB
	dir  string
	port int
	tls  bool // TCP only over TLS (PGWithTLS): readiness is checked on the socket
}

// PGOption changes how StartPostgres sets up its server.
type PGOption func(*pgSetup)

type pgSetup struct {
	tls *Certs
}

// PGWithTLS serves TLS with the certificates and admits TCP connections
// only through it (pg_hba.conf: hostssl with a password, hostnossl
// rejected); the role sluice/sluice is created for them.
func PGWithTLS(c Certs) PGOption { return func(s *pgSetup) { s.tls = &c } }

// StartPostgres initialises and starts a throwaway PostgreSQL 15 of its own
// (trust authentication on 127.0.0.1, wal_level=logical), for tests that
// stop, restart or kill the target; it is stopped and removed at cleanup.
func StartPostgres(t testing.TB, opts ...PGOption) *Postgres {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("the throwaway PostgreSQL runs as the postgres user: needs root (as the sandbox does)")
	}
	if _, err := os.Stat(filepath.Join(pgBin, "initdb")); err != nil {
		t.Skipf("no PostgreSQL 15 server binaries in %s", pgBin)
	}
	dir, err := os.MkdirTemp("", "sluice-crash-pg-")
	if err != nil {
		t.Fatal(err)
	}
	p := &Postgres{t: t, dir: dir, port: pgFreePort(t)}
	t.Cleanup(func() {
		_ = p.asPostgres("pg_ctl", "-D", p.data(), "-m", "immediate", "-w", "-t", "30", "stop").Run()
		os.RemoveAll(dir)
	})
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("chown", "postgres:postgres", dir).CombinedOutput(); err != nil {
		t.Fatalf("chown %s: %v %s", dir, err, out)
	}
	if out, err := p.asPostgres("initdb", "-D", p.data(), "-U", "postgres", "--auth=trust",
		"--encoding=UTF8", "--locale=C.UTF-8").CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	conf := fmt.Sprintf("\nlisten_addresses = '127.0.0.1'\nport = %d\nunix_socket_directories = '%s'\n"+
		"shared_buffers = 128MB\nmax_connections = 60\nwal_level = logical\nfsync = on\nsynchronous_commit = on\n", p.port, dir)
	f, err := os.OpenFile(filepath.Join(p.data(), "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(conf); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var setup pgSetup
	for _, o := range opts {
		o(&setup)
	}
	if setup.tls != nil {
		p.configureTLS(*setup.tls)
		p.tls = true
	}
	p.Start()
	if setup.tls != nil {
		if _, err := p.Exec("CREATE ROLE sluice LOGIN SUPERUSER PASSWORD 'sluice'"); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// configureTLS copies the certificates where the postgres user may read
// them (the key: 0600, its own) and admits TCP clients only over TLS.
func (p *Postgres) configureTLS(c Certs) {
	p.t.Helper()
	for name, src := range map[string]string{"server.crt": c.ServerCert, "server.key": c.ServerKey, "ca.crt": c.CA} {
		b, err := os.ReadFile(src)
		if err != nil {
			p.t.Fatal(err)
		}
		dst := filepath.Join(p.data(), name)
		if err := os.WriteFile(dst, b, 0o600); err != nil {
			p.t.Fatal(err)
		}
		if out, err := exec.Command("chown", "postgres:postgres", dst).CombinedOutput(); err != nil {
			p.t.Fatalf("chown %s: %v %s", dst, err, out)
		}
	}
	appendFile := func(name, text string) {
		f, err := os.OpenFile(filepath.Join(p.data(), name), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			p.t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(text); err != nil {
			p.t.Fatal(err)
		}
	}
	appendFile("postgresql.conf", "ssl = on\nssl_cert_file = 'server.crt'\nssl_key_file = 'server.key'\nssl_ca_file = 'ca.crt'\n")
	// pg_hba.conf is read top down: the socket stays trusted (the test's
	// own admin connections), TCP needs TLS and a password.
	hba := "local all all trust\nhostssl all all 127.0.0.1/32 scram-sha-256\nhostnossl all all 127.0.0.1/32 reject\n"
	if err := os.WriteFile(filepath.Join(p.data(), "pg_hba.conf"), []byte(hba), 0o600); err != nil {
		p.t.Fatal(err)
	}
	if out, err := exec.Command("chown", "postgres:postgres", filepath.Join(p.data(), "pg_hba.conf")).CombinedOutput(); err != nil {
		p.t.Fatalf("chown pg_hba.conf: %v %s", err, out)
	}
}

// Exec runs SQL as the superuser (over the socket when the server admits
// TCP only with TLS).
func (p *Postgres) Exec(sql string) (string, error) {
	out, err := p.asPostgres("psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", p.dir, "-p", strconv.Itoa(p.port),
		"-U", "postgres", "-d", "postgres", "-c", sql).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("psql %q: %v: %s", sql, err, out)
	}
	return string(out), nil
}

// SluiceURL is the sluice role's URL over TCP with extra query parameters
// (a server started PGWithTLS: e.g. sslmode=verify-full&sslrootcert=...).
func (p *Postgres) SluiceURL(db, query string) string {
	u := fmt.Sprintf("postgres://sluice:sluice@127.0.0.1:%d/%s", p.port, db)
	if query != "" {
		u += "?" + query
	}
	return u
}

func (p *Postgres) data() string { return filepath.Join(p.dir, "data") }

// URL is a superuser connection URL (trust authentication on 127.0.0.1).
func (p *Postgres) URL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres", p.port)
}

func (p *Postgres) asPostgres(bin string, args ...string) *exec.Cmd {
	cmd := exec.Command("runuser", append([]string{"-u", "postgres", "--", filepath.Join(pgBin, bin)}, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // not in the test's process group
	return cmd
}

func (p *Postgres) Start() {
	p.t.Helper()
	logFile := filepath.Join(p.dir, "postgres.log")
	if out, err := p.asPostgres("pg_ctl", "-D", p.data(), "-l", logFile, "-w", "-t", "120", "start").CombinedOutput(); err != nil {
		log, _ := os.ReadFile(logFile)
		p.t.Fatalf("pg_ctl start: %v\n%s\n%s", err, out, Tail(string(log), 20))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	url := p.URL()
	if p.tls {
		url = fmt.Sprintf("postgres://postgres@/postgres?host=%s&port=%d", p.dir, p.port)
	}
	for {
		conn, err := pgx.Connect(ctx, url)
		if err == nil {
			conn.Close(ctx)
			return
		}
		if ctx.Err() != nil {
			p.t.Fatalf("throwaway PostgreSQL does not accept connections: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// Kill9AndRestart SIGKILLs the postmaster and every process it started (all of them
// started by this test), waits until they are gone, and starts the server
// again: PostgreSQL recovers from its WAL as after a machine crash.
func (p *Postgres) Kill9AndRestart() {
	p.t.Helper()
	b, err := os.ReadFile(filepath.Join(p.data(), "postmaster.pid"))
	if err != nil {
		p.t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	if err != nil {
		p.t.Fatal(err)
	}
	victims := append([]int{pid}, childrenOf(pid)...)
	for _, v := range victims {
		_ = syscall.Kill(v, syscall.SIGKILL)
	}
	deadline := time.Now().Add(30 * time.Second)
	for _, v := range victims {
		for syscall.Kill(v, 0) == nil {
			if time.Now().After(deadline) {
				p.t.Fatalf("PostgreSQL process %d survived SIGKILL", v)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	p.Start()
}

// childrenOf lists the processes whose parent is pid.
func childrenOf(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// Fields after the command, which is in parentheses and may contain spaces.
		s := string(stat)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			out = append(out, child)
		}
	}
	return out
}

func pgFreePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Stop shuts the server down (fast mode: sessions are ended, as in a
// restart by the DBA); Start brings it back.
func (p *Postgres) Stop() {
	p.t.Helper()
	if out, err := p.asPostgres("pg_ctl", "-D", p.data(), "-m", "fast", "-w", "-t", "60", "stop").CombinedOutput(); err != nil {
		p.t.Fatalf("pg_ctl stop: %v\n%s", err, out)
	}
}
