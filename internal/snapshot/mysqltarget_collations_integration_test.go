package snapshot

import (
	"context"
	"database/sql"
	"fmt"
	"testing"

	"github.com/sluice-db/sluice/internal/testenv"
)

// collationsQuery lists a database's column and table collations.
const collationsQuery = `SELECT CONCAT(c.TABLE_NAME, '.', c.COLUMN_NAME, ' ', COALESCE(c.COLLATION_NAME, '-'), ' table ', t.TABLE_COLLATION)
	FROM information_schema.COLUMNS c JOIN information_schema.TABLES t ON t.TABLE_SCHEMA = c.TABLE_SCHEMA AND t.TABLE_NAME = c.TABLE_NAME
	WHERE c.TABLE_SCHEMA = ? ORDER BY c.TABLE_NAME, c.ORDINAL_POSITION`

func collationsOf(t *testing.T, db *sql.DB, schema string) []string {
	t.Helper()
	var out []string
	for _, r := range testenv.MySQLTexts(t, db, collationsQuery, schema) {
		out = append(out, r[0].String)
	}
	return out
}

// TestMySQLTargetKeepsCollations copies tables whose charset clauses name no
// collation (SHOW CREATE TABLE prints none when it is the charset's default)
// into a MariaDB target: every column and table keeps the source's
// collation, on a target whose defaults differ too (MariaDB 11.8's uca1400,
// in the version matrix: utf16 became utf16_uca1400_ai_ci there, and the CI
// fuzz test found the column changed). A second run with --data-only reuses
// the created tables: their definition compares equal.
func TestMySQLTargetKeepsCollations(t *testing.T) {
	env := testenv.GetFlavor(t, testenv.MariaDB)
	ctx := context.Background()
	db := env.NewDatabase(t, "mysnap_coll")
	dst := db + "_dst"
	my := env.MySQL(t, db)
	mustExec(t, my, "CREATE TABLE c (id INT PRIMARY KEY, a TEXT CHARACTER SET utf16, b VARCHAR(10) CHARACTER SET ucs2, "+
		"e ENUM('x','y') CHARACTER SET utf32, l VARCHAR(5) CHARACTER SET latin1, u VARCHAR(5), "+
		"k VARCHAR(5) CHARACTER SET latin1 COLLATE latin1_bin) DEFAULT CHARSET=utf8mb4")
	mustExec(t, my, "CREATE TABLE d (id INT PRIMARY KEY, v VARCHAR(5)) DEFAULT CHARSET=utf8mb3")
	mustExec(t, my, "INSERT INTO c VALUES (1, 'a', 'b', 'x', 'l', 'u', 'k'), (2, 'A', 'B', 'y', 'L', 'U', 'K')")
	mustExec(t, my, "INSERT INTO d VALUES (1, 'v')")
	opts, admin := myTestOptions(t, env, db, dst)
	if _, err := Run(ctx, opts); err != nil {
		t.Fatal(err)
	}
	want := collationsOf(t, my, db)
	if got := collationsOf(t, admin, dst); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("target collations:\n%v\nsource:\n%v", got, want)
	}
	// The same tables again, data only, into the tables the first run made.
	mustExec(t, admin, "DELETE FROM `"+dst+"`.c")
	mustExec(t, admin, "DELETE FROM `"+dst+"`.d")
	for _, tbl := range []string{"snapshot_chunk", "snapshot_table", "snapshot_run", "checkpoint", "schema_history"} {
		mustExec(t, admin, "DELETE FROM sluice."+tbl+" WHERE stream = '"+opts.Stream+"'")
	}
	opts.DataOnly = true
	if _, err := Run(ctx, opts); err != nil {
		t.Fatalf("--data-only into the tables of the first run: %v", err)
	}
	got := testenv.MySQLTexts(t, admin, "SELECT COUNT(*) FROM `"+dst+"`.c")
	if got[0][0].String != "2" {
		t.Errorf("--data-only copied %s rows of c, want 2", got[0][0].String)
	}
}
