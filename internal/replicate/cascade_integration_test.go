package replicate

import (
	"testing"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestReplicateOnUpdateCascade: a parent key change with ON UPDATE CASCADE
// children. MariaDB leaves the cascaded child rows out of the binlog (the
// target's own cascade makes them); MySQL 9 (foreign keys in the SQL layer)
// writes them, before the parent row. Both must replicate: the target's
// cascading foreign keys are checked at commit.
func TestReplicateOnUpdateCascade(t *testing.T) {
	testenv.Flavors(t, testReplicateOnUpdateCascade)
}

func testReplicateOnUpdateCascade(t *testing.T, env *testenv.Env) {
	g := newRigOn(t, env, "rp_cascade", `
		CREATE TABLE p (k CHAR(4) PRIMARY KEY, name VARCHAR(10));
		CREATE TABLE c (id INT PRIMARY KEY, k CHAR(4), FOREIGN KEY (k) REFERENCES p (k) ON UPDATE CASCADE ON DELETE CASCADE);
		CREATE TABLE gc (id INT PRIMARY KEY, cid INT, FOREIGN KEY (cid) REFERENCES c (id) ON UPDATE CASCADE ON DELETE SET NULL)`)
	g.exec("INSERT INTO p VALUES ('a', 'A'), ('b', 'B')", "INSERT INTO c VALUES (1, 'a'), (2, 'a'), (3, 'b')",
		"INSERT INTO gc VALUES (10, 1), (20, 3)")
	g.snapshot(g.stream, "")
	g.exec("UPDATE p SET k = 'z' WHERE k = 'a'", // children 1 and 2 follow
		"UPDATE c SET id = 30 WHERE id = 3", // grandchild 20 follows
		"UPDATE p SET k = 'y', name = 'Y' WHERE k = 'b'",
		"INSERT INTO p VALUES ('a', 'again')", "INSERT INTO c VALUES (4, 'a')",
		"DELETE FROM p WHERE k = 'z'") // children 1, 2 go; grandchild 10 is set NULL
	g.catchUp(g.options())
	g.compare()
	if n := g.count("c"); n != 2 {
		t.Errorf("c has %d rows, want 2", n)
	}
}
