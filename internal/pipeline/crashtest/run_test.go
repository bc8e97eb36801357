package crashtest

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/testenv"
)

// e2eRun is the start every end-to-end test here shares: a database on the
// sandbox MariaDB, a private PostgreSQL, one log file for all sluice runs
// and the flags every sluice command of the test takes.
type e2eRun struct {
	env     *testenv.Env
	pg      *testenv.Postgres
	db      string
	my      *sql.DB
	logPath string
	common  []string
}

// startSnapshotted creates the database with ddl, starts the private
// PostgreSQL and runs `sluice snapshot` of the database under stream to
// the end; the test fails if the snapshot does not exit 0.
func startSnapshotted(t *testing.T, prefix, stream string, ddl ...string) *e2eRun {
	t.Helper()
	requireImplemented(t, "replicate")
	env := testenv.Get(t)
	r := &e2eRun{env: env, pg: testenv.StartPostgres(t), db: env.NewDatabase(t, prefix)}
	r.my = env.MySQL(t, r.db)
	mustExec(t, r.my, ddl...)
	r.logPath = logFile(t)
	t.Logf("sluice output: %s", r.logPath)
	r.common = []string{"--source", env.SourceURL(r.db), "--target", r.pg.URL(), "--include", r.db,
		"--stream", stream, "--log-format", "text"}
	if code := runToEnd(t, r.logPath, 3*time.Minute, append([]string{"snapshot"}, r.common...)...); code != 0 {
		t.Fatalf("snapshot: exit %d\n%s", code, logTail(r.logPath, 30))
	}
	return r
}

// targetConn connects to the private PostgreSQL until the test ends.
func (r *e2eRun) targetConn(t *testing.T) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), r.pg.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}
