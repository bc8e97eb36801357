package realworld

import (
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
	for _, q := range []string{
		"CREATE TABLE t (id INT PRIMARY KEY, s VARCHAR(20), `len s` BIGINT AS (LENGTH(s)) STORED, up VARCHAR(20) AS (UPPER(s)) VIRTUAL)",
		"INSERT INTO t (id, s) VALUES (1, 'ab'), (2, 'é')",
	} {
		if _, err := my.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	stream := testenv.UniqueName("rw")
	forgetStream(t, env, stream)
	bin := testenv.SluiceBinary(t)
	logPath := filepath.Join(t.TempDir(), "sluice.log")
	common := []string{"--source", env.SourceURL(db), "--target", env.TargetURL(), "--include", db, "--stream", stream, "--log-level", "warn"}
	if code := runSluice(t, bin, logPath, append([]string{"migrate", "--until-caught-up", "--snapshot-method", "single-session"}, common...)...); code != 0 {
		t.Fatalf("migrate: exit %d\n%s", code, tailFile(logPath, 40))
	}
	if _, err := my.Exec("UPDATE t SET s = 'abcd' WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	code := runSluice(t, bin, logPath, append([]string{"replicate", "--until-caught-up"}, common...)...)
	out, _ := os.ReadFile(logPath)
	if code != 2 || !strings.Contains(string(out), "generated columns len s out of UPDATE and DELETE row images") ||
		!strings.Contains(string(out), "--exclude-columns") {
		t.Fatalf("replicate of an UPDATE without the copied generated column: exit %d, want 2 naming `len s` and --exclude-columns\n%s",
			code, tailFile(logPath, 20))
	}
	// up is computed by PostgreSQL (UPPER translates), so only `len s` is named.
	if strings.Contains(string(out), "len s, up") {
		t.Errorf("the refusal names the column PostgreSQL computes:\n%s", tailFile(logPath, 20))
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
