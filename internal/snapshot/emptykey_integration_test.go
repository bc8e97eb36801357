package snapshot

import (
	"context"
	"strings"
	"testing"

	mysnap "github.com/sluice-db/sluice/internal/source/mysql/consistent"
	"github.com/sluice-db/sluice/internal/testenv"
)

// emptyKeyFixture has the key of fuzz seed 400's lost row (BINARY(20)
// padded with 0x00, then an empty PAD SPACE latin1_bin VARCHAR) and
// other empty key values, so that with one row per chunk every one of them
// is a chunk bound.
const emptyKeyFixture = `SET SESSION sql_mode = '';
CREATE TABLE seed400 (a BINARY(20) NOT NULL, b VARCHAR(5) CHARACTER SET latin1 COLLATE latin1_bin NOT NULL, v INT, PRIMARY KEY (a, b));
INSERT INTO seed400 VALUES (x'5c2727615cff80c3ffffc3c3dd', '', 1), (x'5c2727615cff80c3ffffc3c3dd', 'a', 2),
  (x'5c2727615cff80c3ffffc3c3dd', '\t', 3), (x'', '', 4), (x'', 'x', 5), (x'20', '', 6), (x'ff', '', 7), (x'61', 'a  ', 8);
CREATE TABLE vb (b VARBINARY(5) PRIMARY KEY, v INT);
INSERT INTO vb VALUES (x'', 1), (x'00', 2), (x'20', 3), (x'ff', 4);
CREATE TABLE vc (s VARCHAR(5) PRIMARY KEY, v INT);
INSERT INTO vc VALUES ('', 1), ('\t', 2), ('a', 3), ('b ', 4);`

// TestSnapshotChunkBoundOnEmptyKey copies tables whose chunk bounds hold
// empty key values (one row per chunk) into PostgreSQL and the MariaDB
// target and checks that no row is missing: a bound's empty value was sent
// as NULL, and the row at that bound was in no chunk.
func TestSnapshotChunkBoundOnEmptyKey(t *testing.T) {
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		want := map[string]string{"seed400": "8 36", "vb": "4 10", "vc": "4 10"}
		t.Run("postgres", func(t *testing.T) {
			db := env.NewDatabase(t, "snap_emptykey")
			mustExec(t, env.MySQL(t, db), emptyKeyFixture)
			opts := testOptions(t, env, db)
			opts.ChunkRows = 1
			opts.Method = mysnap.MethodLockFree
			if env.IsMySQL() {
				opts.Method = mysnap.MethodTableLock
			}
			if _, err := Run(context.Background(), opts); err != nil {
				t.Fatal(err)
			}
			pg := env.PG(t)
			for table, w := range want {
				got := testenv.PGRows(t, pg, `SELECT count(*)::text || ' ' || sum(v)::text FROM "`+db+`".`+table)
				if len(got) != 1 || got[0] != w {
					t.Errorf("%s: count and sum %v, want %s", table, got, w)
				}
			}
		})
		t.Run("mysql", func(t *testing.T) {
			db := env.NewDatabase(t, "mysnap_emptykey")
			mustExec(t, env.MySQL(t, db), emptyKeyFixture)
			dst := testenv.UniqueName("mysnap_emptykey_dst")
			opts, admin := myTestOptions(t, env, db, dst)
			opts.ChunkRows = 1
			if _, err := Run(context.Background(), opts); err != nil {
				t.Fatal(err)
			}
			for table, w := range want {
				got := testenv.MySQLRows(t, admin, "SELECT CONCAT(COUNT(*), ' ', SUM(v)) FROM `"+dst+"`.`"+table+"`")
				if len(got) != 1 || strings.TrimSpace(got[0]) != w {
					t.Errorf("%s: count and sum %v, want %s", table, got, w)
				}
			}
		})
	})
}
