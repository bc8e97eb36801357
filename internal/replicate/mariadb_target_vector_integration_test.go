package replicate

import (
	"testing"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestMariaDBTargetVector replays MariaDB 11.8's VECTOR columns into the
// MariaDB target: the snapshot's rows, a replicated CREATE TABLE, INSERT,
// UPDATE and ADD COLUMN arrive byte for byte (4 bytes per float, little
// endian). MariaDB 10.11 and MySQL have no such type (MySQL 9's VECTOR:
// TestMySQLTargetVectorDDL); PostgreSQL refuses it (docs/types.md).
func TestMariaDBTargetVector(t *testing.T) {
	env := testenv.Get(t)
	if !env.MariaDBAtLeast(t, 11, 7) {
		t.Skip("VECTOR is MariaDB 11.7+ (SLUICE_TEST_MARIADB=11.8)")
	}
	g := newMyRig(t, env, "mt_mvec", "")
	var version string
	if err := g.tgt.QueryRow("SELECT VERSION()").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if version < "11.7" {
		t.Skipf("the MariaDB target %s has no VECTOR (SLUICE_TEST_MARIADB_TARGET=11.8)", version)
	}
	g.exec(
		"CREATE TABLE v (id INT PRIMARY KEY, emb VECTOR(3) NOT NULL)",
		"INSERT INTO v VALUES (1, VEC_FromText('[1.5,2,-3]')), (2, VEC_FromText('[0,-0,1e-3]'))",
		"ALTER TABLE v ADD COLUMN emb2 VECTOR(2) NULL",
		"INSERT INTO v VALUES (3, VEC_FromText('[65504.5,-0.125,7]'), VEC_FromText('[-1,2]'))",
		"UPDATE v SET emb2 = VEC_FromText('[9,8]'), emb = VEC_FromText('[0.1,0.2,0.3]') WHERE id = 1",
		"DELETE FROM v WHERE id = 2",
	)
	g.catchUp()
	g.compare()
	got := testenv.MySQLTexts(t, g.tgt, "SELECT id, HEX(emb), VEC_ToText(emb2) FROM `"+g.tdb+"`.v ORDER BY id")
	want := [][3]string{{"1", "CDCCCC3DCDCC4C3E9A99993E", "[9,8]"}, {"3", "80E07F47000000BE0000E040", "[-1,2]"}}
	if len(got) != len(want) {
		t.Fatalf("target rows %v, want %v", got, want)
	}
	for i, w := range want {
		if got[i][0].String != w[0] || got[i][1].String != w[1] || got[i][2].String != w[2] {
			t.Errorf("row %d on the target: %v %v %v, want %v", i, got[i][0].String, got[i][1].String, got[i][2].String, w)
		}
	}
}
