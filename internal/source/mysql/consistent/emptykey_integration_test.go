package consistent

import (
	"context"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestChunkBoundOnEmptyKeyValue plans chunks of 1, 2 and 3 rows over keys
// holding empty values (an empty VARCHAR and VARBINARY, and BINARY(n) padded with
// 0x00 next to a PAD SPACE latin1_bin column: the key of fuzz seed 400's
// lost row) and checks that the chunks read every row exactly once. A bound
// with an empty value was sent as NULL (a nil []byte), so the row at that
// bound was in no chunk.
func TestChunkBoundOnEmptyKeyValue(t *testing.T) {
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		db := env.NewDatabase(t, "snap_emptykey")
		my := env.MySQL(t, db)
		ctx := context.Background()
		noPad := "utf8mb4_nopad_bin"
		if env.IsMySQL() {
			noPad = "utf8mb4_0900_bin"
		}
		fixture := `
SET SESSION sql_mode = '';
CREATE TABLE seed400 (a BINARY(20) NOT NULL, b VARCHAR(5) CHARACTER SET latin1 COLLATE latin1_bin NOT NULL, v INT, PRIMARY KEY (a, b));
INSERT INTO seed400 VALUES (x'5c2727615cff80c3ffffc3c3dd', '', 1), (x'5c2727615cff80c3ffffc3c3dd', 'a', 2),
  (x'5c2727615cff80c3ffffc3c3dd', '\t', 3), (x'5c2727615cff80c3ffffc3c3dd00000000000001', '', 4),
  (x'', '', 5), (x'', 'x', 6), (x'20', '', 7), (x'2000', ' x', 8), (x'ff', '', 9), (x'61', 'a  ', 10);
CREATE TABLE vc (s VARCHAR(5) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PRIMARY KEY);
INSERT INTO vc VALUES (''), ('\t'), ('a'), ('b '), ('\0');
CREATE TABLE nopad (s VARCHAR(5) CHARACTER SET utf8mb4 COLLATE ` + noPad + ` PRIMARY KEY);
INSERT INTO nopad VALUES (''), (' '), ('  '), ('a'), ('a ');
CREATE TABLE vb (b VARBINARY(5) PRIMARY KEY, c CHAR(3) NOT NULL, UNIQUE KEY (c));
INSERT INTO vb VALUES (x'', ''), (x'00', 'a'), (x'0000', 'b'), (x'20', 'c'), (x'ff', 'd');
CREATE TABLE two (a VARCHAR(5) COLLATE utf8mb4_general_ci NOT NULL, b VARBINARY(5) NOT NULL, PRIMARY KEY (a, b));
INSERT INTO two VALUES ('', x''), ('', x'00'), ('', 'a'), ('a', x''), ('B', x''), ('b ', x'01');
`
		if _, err := my.ExecContext(ctx, fixture); err != nil {
			t.Fatalf("fixture: %v", err)
		}
		cat := loadTables(t, my, db)
		src := openSource(t, env, db, 1)
		s, err := src.session(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		for _, tbl := range cat.Tables {
			k, err := NewKey(tbl)
			if err != nil || k == nil {
				t.Fatalf("%s: key %v, %v", tbl.Name, k, err)
			}
			var cols []string
			for _, c := range tbl.Columns {
				cols = append(cols, "HEX("+schema.QuoteMySQL(c.Name)+")")
			}
			full := readAll(t, s, Query{SQL: "SELECT " + strings.Join(cols, ", ") + " FROM " + QuoteTable(tbl.TableID) + orderClause(k)})
			for step := int64(1); step <= 3; step++ {
				var got []string
				var lo Bound
				for n := 0; ; n++ {
					hi, err := k.NextBound(ctx, s, tbl.TableID, lo, step)
					if err != nil {
						t.Fatal(err)
					}
					q, err := ChunkQuery(k, tbl.TableID, cols, "", lo, hi)
					if err != nil {
						t.Fatal(err)
					}
					rows := readAll(t, s, q)
					if hi != nil && int64(len(rows)) != step {
						t.Errorf("%s step %d: %s: %d rows, want %d", tbl.Name, step, Chunk{Table: tbl.TableID, Lo: lo, Hi: hi}, len(rows), step)
					}
					got = append(got, rows...)
					if hi == nil || n > len(full) {
						break
					}
					lo = hi
				}
				if strings.Join(got, "\n") != strings.Join(full, "\n") {
					t.Errorf("%s step %d: chunks read\n%s\nwant\n%s", tbl.Name, step, strings.Join(got, "\n"), strings.Join(full, "\n"))
				}
			}
		}
	})
}
