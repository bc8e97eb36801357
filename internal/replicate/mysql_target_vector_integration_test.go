package replicate

import (
	"slices"
	"testing"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestMySQLTargetVectorDDL replays MySQL 9's VECTOR columns into a MySQL 9.7
// target: a CREATE TABLE and an ADD COLUMN with one used to stop replication
// ("no PostgreSQL mapping"), as the DDL translator checked the new columns
// against the PostgreSQL mapping. The vectors arrive byte for byte.
func TestMySQLTargetVectorDDL(t *testing.T) {
	testenv.MySQLToMySQL9(t, func(t *testing.T, env *testenv.Env) {
		g := newMyRig(t, env, "mt_vec", "")
		g.exec(
			"CREATE TABLE v (id INT PRIMARY KEY, emb VECTOR(3))",
			"INSERT INTO v VALUES (1, STRING_TO_VECTOR('[1.5,2,3]')), (2, NULL)",
			"ALTER TABLE v ADD COLUMN emb2 VECTOR(2) NULL, ADD COLUMN n INT NOT NULL DEFAULT 7",
			"INSERT INTO v VALUES (3, STRING_TO_VECTOR('[0,0,-1]'), STRING_TO_VECTOR('[-1e30,2e-30]'), 1)",
			"UPDATE v SET emb2 = STRING_TO_VECTOR('[9,8]'), emb = NULL WHERE id = 1",
		)
		g.catchUp()
		g.compare()
		if n := g.count("v"); n != 3 {
			t.Errorf("v has %d rows on the target, want 3", n)
		}
		cols := func(schema string) []string {
			var out []string
			for _, r := range testenv.MySQLTexts(t, g.tgt, `SELECT COLUMN_NAME, COLUMN_TYPE FROM information_schema.COLUMNS
				WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'v' ORDER BY ORDINAL_POSITION`, schema) {
				out = append(out, r[0].String+" "+r[1].String)
			}
			return out
		}
		want := []string{"id int", "emb vector(3)", "emb2 vector(2)", "n int"}
		if got := cols(g.tdb); !slices.Equal(got, want) {
			t.Errorf("target columns %v, want %v", got, want)
		}
	})
}
