package realworld

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestGeneratedLeftOutRefused: MariaDB 11.8 leaves generated columns out of
// UPDATE row images, so a generated column sluice copies into PostgreSQL as a
// plain column (LENGTH() has no exact PostgreSQL expression) has no new value.
// Replication refuses it with exit 2, naming the column and the fix, and
// writes nothing of the update; the fuzz test generates, on 11.8 into
// PostgreSQL, only generated columns PostgreSQL computes (computedGenerated).
func TestGeneratedLeftOutRefused(t *testing.T) {
	t.Parallel()
	env := testenv.Get(t)
	if !env.MariaDBAtLeast(t, 11, 8) {
		t.Skip("MariaDB 10.11 and MySQL write generated columns in every row image (SLUICE_TEST_MARIADB=11.8)")
	}
	db := env.NewDatabase(t, "rw_genref")
	my := openSource(t, env, db, "")
	mustExecAll(t, my,
		"CREATE TABLE t (id INT PRIMARY KEY, s VARCHAR(20), `len s` BIGINT AS (LENGTH(s)) STORED, up VARCHAR(20) AS (UPPER(s)) VIRTUAL)",
		"INSERT INTO t (id, s) VALUES (1, 'ab'), (2, 'é')")
	stream := testenv.UniqueName("rw")
	forgetStream(t, env, stream)
	r := newSluiceRun(t, env, db, env.TargetURL(), stream)
	if code := r.run("migrate", "--until-caught-up", "--snapshot-method", "single-session"); code != 0 {
		t.Fatalf("migrate: exit %d\n%s", code, r.tail(40))
	}
	mustExecAll(t, my, "UPDATE t SET s = 'abcd' WHERE id = 1")
	code := r.run("replicate", "--until-caught-up")
	out := r.output()
	if code != 2 || !strings.Contains(out, "generated columns len s out of UPDATE and DELETE row images") ||
		!strings.Contains(out, "--exclude-columns") {
		t.Fatalf("replicate of an UPDATE without the copied generated column: exit %d, want 2 naming `len s` and --exclude-columns\n%s",
			code, r.tail(20))
	}
	// up is computed by PostgreSQL (UPPER translates), so only `len s` is named.
	if strings.Contains(out, "len s, up") {
		t.Errorf("the refusal names the column PostgreSQL computes:\n%s", r.tail(20))
	}
	var s string
	var n int64
	if err := env.PG(t).QueryRow(t.Context(), `SELECT s, "len s" FROM "`+db+`".t WHERE id = 1`).Scan(&s, &n); err != nil {
		t.Fatal(err)
	}
	if s != "ab" || n != 2 {
		t.Errorf("row 1 on PostgreSQL after the refusal: s %q, len %d; want the snapshot's ab, 2", s, n)
	}
}

// sluiceRun runs the sluice commands of one stream of a test database, every
// one with the same source, target, scope and stream, all logging to one file.
type sluiceRun struct {
	t        *testing.T
	bin, log string
	common   []string
}

func newSluiceRun(t *testing.T, env *testenv.Env, db, target, stream string) *sluiceRun {
	return &sluiceRun{t: t, bin: testenv.SluiceBinary(t), log: filepath.Join(t.TempDir(), "sluice.log"),
		common: []string{"--source", env.SourceURL(db), "--target", target, "--include", db, "--stream", stream, "--log-level", "warn"}}
}

// run runs one command (its arguments, then the common ones) and returns its exit code.
func (r *sluiceRun) run(args ...string) int {
	return runSluice(r.t, r.bin, r.log, append(args, r.common...)...)
}

// output is everything the commands printed so far.
func (r *sluiceRun) output() string {
	b, _ := os.ReadFile(r.log)
	return string(b)
}

func (r *sluiceRun) tail(n int) string { return tailFile(r.log, n) }

func mustExecAll(t *testing.T, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}
