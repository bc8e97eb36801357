package replicate

import (
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestMySQLTargetRunsDDLInTheSourceSession replays schema changes into a
// MySQL target in the session the source ran them in:
//   - at the source's statement time: ADD COLUMN … DEFAULT
//     CURRENT_TIMESTAMP(6) filled the existing rows with the target's clock
//     before, so an update keyed on that column (after it became part of the
//     primary key) matched nothing and replication stopped;
//   - without foreign key checks when the source had them off: DROP TABLE of
//     a referenced parent failed on the target with Error 1451 before, and
//     replication stopped.
func TestMySQLTargetRunsDDLInTheSourceSession(t *testing.T) {
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		g := newMyRig(t, env, "mt_ddlsess", "")
		g.exec(
			"CREATE TABLE p (id INT PRIMARY KEY)",
			"CREATE TABLE c (id INT PRIMARY KEY, p INT, FOREIGN KEY (p) REFERENCES p (id))",
			"INSERT INTO p VALUES (1), (2)",
			"INSERT INTO c VALUES (1, 1), (2, 2)",
			"CREATE TABLE t (id INT NOT NULL, v INT)",
			"INSERT INTO t VALUES (1, 10), (2, 20), (3, 30)",
		)
		g.catchUp()
		// The target's clock would now give a later time than the source's
		// statement: one second passes before the source runs it, and the
		// replicator only applies it after.
		bg := g.start2()
		time.Sleep(1100 * time.Millisecond)
		g.exec(
			"ALTER TABLE t ADD COLUMN ts TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)",
			"ALTER TABLE t ADD PRIMARY KEY (id, ts)",
		)
		time.Sleep(1100 * time.Millisecond)
		g.exec(
			"UPDATE t SET v = v + 1 WHERE id = 2",
			"DELETE FROM t WHERE id = 3",
			"SET SESSION foreign_key_checks = 0",
			"DROP TABLE p",
			"SET SESSION foreign_key_checks = 1",
		)
		if err := bg.stop(30 * time.Second); err != nil {
			t.Fatalf("replicate: %v", err)
		}
		g.catchUp()
		g.compare()
		if n := testenv.MySQLTexts(t, g.tgt, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'p'", g.tdb); n[0][0].String != "0" {
			t.Errorf("the target still has the dropped parent table p")
		}
		fk := testenv.MySQLTexts(t, g.tgt, "SELECT @@foreign_key_checks")
		if fk[0][0].String != "1" {
			t.Errorf("foreign_key_checks of a fresh root session on the target: %s", fk[0][0].String)
		}
	})
}
