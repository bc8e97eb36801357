package replicate

import (
	"fmt"
	"testing"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestMySQLTargetSchemaChangesKeepCollations replays schema changes whose
// charset clauses name no collation (CREATE TABLE, ADD COLUMN, MODIFY,
// CONVERT TO) from a MariaDB source: each means the source's default
// collation of the charset, which is not the target's on MariaDB 11.8
// (uca1400; the version matrix runs this test into it). Before, a MariaDB
// 10.11 source's "ADD COLUMN c TEXT CHARACTER SET utf16" became
// utf16_uca1400_ai_ci on the target (found by the CI fuzz test).
func TestMySQLTargetSchemaChangesKeepCollations(t *testing.T) {
	env := testenv.GetFlavor(t, testenv.MariaDB)
	g := newMyRig(t, env, "mt_coll", "")
	g.exec(
		"CREATE TABLE a (id INT PRIMARY KEY, s TEXT CHARACTER SET utf16, u VARCHAR(5)) DEFAULT CHARSET=utf8mb4",
		"INSERT INTO a VALUES (1, 's', 'u')",
		"ALTER TABLE a ADD COLUMN r VARCHAR(5) CHARACTER SET ucs2 DEFAULT ''",
		"ALTER TABLE a MODIFY COLUMN u VARCHAR(8) CHARACTER SET utf32",
		"CREATE TABLE b (id INT PRIMARY KEY, v VARCHAR(5)) DEFAULT CHARSET=latin1",
		"ALTER TABLE b CONVERT TO CHARACTER SET utf8mb3",
		"CREATE TABLE c (id INT PRIMARY KEY, v VARCHAR(5)) CHARACTER SET = utf16",
		"INSERT INTO b VALUES (1, 'v')",
		"INSERT INTO c VALUES (1, 'v')",
	)
	g.catchUp()
	g.compare()
	q := `SELECT CONCAT(c.TABLE_NAME, '.', c.COLUMN_NAME, ' ', COALESCE(c.COLLATION_NAME, '-'), ' table ', t.TABLE_COLLATION)
		FROM information_schema.COLUMNS c JOIN information_schema.TABLES t ON t.TABLE_SCHEMA = c.TABLE_SCHEMA AND t.TABLE_NAME = c.TABLE_NAME
		WHERE c.TABLE_SCHEMA = ? ORDER BY c.TABLE_NAME, c.ORDINAL_POSITION`
	want, got := testenv.MySQLTexts(t, g.my, q, g.db), testenv.MySQLTexts(t, g.tgt, q, g.tdb)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("target collations:\n%v\nsource:\n%v", got, want)
	}
}
