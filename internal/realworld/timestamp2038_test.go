package realworld

import (
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestTimestampAfter2038Refused: MariaDB 11.5+ holds a TIMESTAMP up to 2106,
// MariaDB 10.11 (and MySQL) up to 2038-01-19 03:14:07 UTC. Into such a target
// the server stored a later value as the epoch plus its fraction, with a
// warning only, and a later keyless DELETE found no row (the fuzz test's
// seed 1, 11.8 into 10.11). The snapshot and replication refuse it, exit 2,
// naming the column and the value, and write no row of it.
func TestTimestampAfter2038Refused(t *testing.T) {
	t.Parallel()
	env := testenv.Get(t)
	if !env.MariaDBAtLeast(t, 11, 5) {
		t.Skip("the source's TIMESTAMP ends at 2038 too (SLUICE_TEST_MARIADB=11.8)")
	}
	var version string
	if err := env.MySQLTarget(t).Admin(t).QueryRow("SELECT VERSION()").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(version, "10.") {
		t.Skipf("the MariaDB target %s holds TIMESTAMPs up to 2106 (SLUICE_TEST_MARIADB_TARGET=10.11)", version)
	}
	const late = "INSERT INTO t VALUES (2, '2040-01-01 00:00:00.5')"
	for _, phase := range []string{"snapshot", "replicate"} {
		t.Run(phase, func(t *testing.T) {
			db := env.NewDatabase(t, "rw_ts38")
			my := openSource(t, env, db, "")
			mustExecAll(t, my, "CREATE TABLE t (id INT PRIMARY KEY, ts TIMESTAMP(1) NULL)",
				"INSERT INTO t VALUES (1, '2038-01-19 03:14:07.9')")
			if phase == "snapshot" {
				mustExecAll(t, my, late)
			}
			stream := testenv.UniqueName("rw")
			side := intoMySQL("").side(t, env, db, stream)
			r := newSluiceRun(t, env, db, side.url, stream)
			code := r.run("migrate", "--until-caught-up", "--snapshot-method", "single-session")
			if phase == "replicate" {
				if code != 0 {
					t.Fatalf("migrate: exit %d\n%s", code, r.tail(30))
				}
				mustExecAll(t, my, late)
				code = r.run("replicate", "--until-caught-up")
			}
			if code != 2 || !strings.Contains(r.output(), "column ts: TIMESTAMP 2040-01-01 00:00:00.5 is after 2038-01-19 03:14:07 UTC") {
				t.Fatalf("%s of a TIMESTAMP after 2038 into %s: exit %d, want 2 naming ts and the value\n%s", phase, version, code, r.tail(20))
			}
			var n int
			if err := side.tgt.QueryRow("SELECT COUNT(*) FROM `" + side.tdb + "`.t WHERE id = 2").Scan(&n); err != nil && !strings.Contains(err.Error(), "doesn't exist") {
				t.Fatal(err)
			}
			if n != 0 {
				t.Errorf("%s: the target holds row 2 (%d), want none", phase, n)
			}
		})
	}
}
