package cli

import (
	"context"
	"database/sql"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestTLSSourceSnapshotAndReplicate: a source user that only TLS admits
// (REQUIRE SSL) snapshots and replicates — the binlog stream included — when
// the URL asks for TLS with the source's CA, and is refused by pre-flight
// (exit 2, naming the fix) when it does not.
func TestTLSSourceSnapshotAndReplicate(t *testing.T) {
	env := testenv.Get(t)
	certs := testenv.NewCerts(t)
	admin := testenv.StartMariaDB(t, "--ssl-ca="+certs.CA, "--ssl-cert="+certs.ServerCert, "--ssl-key="+certs.ServerKey)
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatal(err)
	}
	root, err := sql.Open("mysql", "root:root@tcp("+u.Host+")/?multiStatements=true")
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	db := testenv.UniqueName("tls")
	if _, err := root.Exec("CREATE DATABASE " + db + `;
		CREATE TABLE ` + db + `.t (id INT PRIMARY KEY, v VARCHAR(20));
		INSERT INTO ` + db + `.t VALUES (1, 'before');
		CREATE USER 'secure'@'%' IDENTIFIED BY 'pw' REQUIRE SSL;
		GRANT SELECT, RELOAD, REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'secure'@'%'`); err != nil {
		t.Fatal(err)
	}
	stream := testenv.UniqueName("tls")
	forgetStream(t, env, stream)
	t.Cleanup(func() {
		_, _ = env.PG(t).Exec(context.Background(), `DROP SCHEMA IF EXISTS "`+db+`" CASCADE`)
	})
	plain := "mysql://secure:pw@" + u.Host + "/" + db
	secure := plain + "?tls=verify-full&ssl-ca=" + url.QueryEscape(certs.CA)

	code, _, errOut := runCLI(context.Background(), "snapshot", "--source", plain, "--target", env.TargetURL(), "--stream", stream)
	if code != 2 || !strings.Contains(errOut, "tls=") {
		t.Fatalf("snapshot without TLS by a REQUIRE SSL user: exit %d, want 2 naming the tls setting:\n%q", code, errOut)
	}
	code, _, errOut = runCLI(context.Background(), "snapshot", "--source", secure, "--target", env.TargetURL(),
		"--stream", stream, "--snapshot-method", "global-read-lock", "--log-level", "warn")
	if code != 0 {
		t.Fatalf("snapshot over TLS: exit %d:\n%s", code, errOut)
	}
	if _, err := root.Exec("INSERT INTO " + db + ".t VALUES (2, 'after'); UPDATE " + db + ".t SET v = 'changed' WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// The same settings as flags instead of URL parameters.
	code, _, errOut = runCLI(ctx, "replicate", "--source", plain, "--source-ssl-mode", "verify-full", "--source-ssl-ca", certs.CA,
		"--target", env.TargetURL(), "--stream", stream, "--until-caught-up", "--log-level", "warn")
	if code != 0 {
		t.Fatalf("replicate over TLS: exit %d:\n%s", code, errOut)
	}
	got := testenv.PGRows(t, env.PG(t), `SELECT id, v FROM "`+db+`".t ORDER BY id`)
	if strings.Join(got, ";") != "1|changed;2|after" {
		t.Fatalf("replicated rows %v", got)
	}
}

// TestTLSTargetSnapshotReplicateVerify: a PostgreSQL target that admits TCP
// clients only over TLS (hostssl, hostnossl rejected) takes the snapshot,
// replication and verification when the URL asks for verify-full with the
// server's CA, and pre-flight refuses a sslmode=disable URL with exit 2,
// naming the fix.
func TestTLSTargetSnapshotReplicateVerify(t *testing.T) {
	env := testenv.Get(t)
	certs := testenv.NewCerts(t)
	pg := testenv.StartPostgres(t, testenv.PGWithTLS(certs))
	db := env.NewDatabase(t, "tlspg")
	my := env.MySQL(t, db)
	if _, err := my.Exec("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20)); INSERT INTO t VALUES (1, 'before'), (2, 'two')"); err != nil {
		t.Fatal(err)
	}
	stream := testenv.UniqueName("tlspg")
	plain := pg.SluiceURL("postgres", "sslmode=disable")
	secure := pg.SluiceURL("postgres", "sslmode=verify-full&sslrootcert="+url.QueryEscape(certs.CA))

	code, _, errOut := runCLI(context.Background(), "snapshot", "--source", env.SourceURL(db), "--target", plain, "--stream", stream)
	if code != 2 || !strings.Contains(errOut, "sslmode=") {
		t.Fatalf("snapshot into a TLS-only PostgreSQL with sslmode=disable: exit %d, want 2 naming sslmode:\n%s", code, errOut)
	}
	code, _, errOut = runCLI(context.Background(), "snapshot", "--source", env.SourceURL(db), "--target", secure,
		"--stream", stream, "--log-level", "warn")
	if code != 0 {
		t.Fatalf("snapshot over TLS: exit %d:\n%s", code, errOut)
	}
	if _, err := my.Exec("INSERT INTO t VALUES (3, 'after'); UPDATE t SET v = 'changed' WHERE id = 1; DELETE FROM t WHERE id = 2"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code, _, errOut = runCLI(ctx, "replicate", "--source", env.SourceURL(db), "--target", secure, "--stream", stream,
		"--until-caught-up", "--log-level", "warn")
	if code != 0 {
		t.Fatalf("replicate over TLS: exit %d:\n%s", code, errOut)
	}
	// The same settings as flags instead of URL parameters.
	code, out, errOut := runCLI(ctx, "verify", "--source", env.SourceURL(db), "--target", pg.SluiceURL("postgres", ""),
		"--target-ssl-mode", "verify-full", "--target-ssl-ca", certs.CA, "--log-level", "warn")
	if code != 0 {
		t.Fatalf("verify over TLS: exit %d:\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCLI(ctx, "status", "--target", secure, "--stream", stream)
	if code != 0 || !strings.Contains(out, "schema version:  1") {
		t.Fatalf("status over TLS: exit %d:\n%s%s", code, out, errOut)
	}
	rows, err := pg.Exec(`SELECT string_agg(id || '|' || v, ';' ORDER BY id) FROM "` + db + `".t`)
	if err != nil || !strings.Contains(rows, "1|changed;3|after") {
		t.Fatalf("replicated rows %q, %v", rows, err)
	}
}
