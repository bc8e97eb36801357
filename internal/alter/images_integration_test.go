package alter

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestAlterRowImagesEveryType changes rows of every kind of column while
// the copy runs (special values: extremes, zero dates, NUL and backslash
// bytes, 4-byte characters, a latin1 column converted to utf8mb4, BIT(64)
// with its top bit), so that their binlog row images are written to the
// shadow table. A twin table gets the same changes and then the same ALTER
// from the server itself: every value read back must be equal.
func TestAlterRowImagesEveryType(t *testing.T) {
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		name := env.NewDatabase(t, "alter_images")
		db := env.MySQL(t, name)
		ctx := context.Background()
		json := ""
		if env.Flavor() == testenv.MariaDB {
			json = ", js JSON" // MySQL's binary JSON is re-read (images.go)
		}
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		// Zero dates are stored as the application wrote them; TIMESTAMPs
		// are written in a zone other than the server's.
		for _, q := range []string{"SET SESSION sql_mode = ''", "SET time_zone = '-07:00'"} {
			if _, err := conn.ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		// Errorf, not Fatalf: the changes run on a copy worker's goroutine.
		exec := func(q string, args ...any) {
			t.Helper()
			if _, err := conn.ExecContext(ctx, q, args...); err != nil {
				t.Errorf("%s: %v", q, err)
			}
		}
		for _, tbl := range []string{"t", "u"} {
			exec("CREATE TABLE " + tbl + ` (id BIGINT NOT NULL PRIMARY KEY,
				ti TINYINT UNSIGNED, bu BIGINT UNSIGNED, de DECIMAL(30,10), fl FLOAT, db DOUBLE, bi BIT(64),
				da DATE, dt DATETIME(6), ts TIMESTAMP(3) NULL, tm TIME(6), yr YEAR,
				cl CHAR(10) CHARACTER SET latin1, vc VARCHAR(40) CHARACTER SET utf8mb4, tx TEXT CHARACTER SET utf8mb4,
				bn BINARY(8), vb VARBINARY(20), bl BLOB, en ENUM('a','b','c'), st SET('x','y','z'), ` + "`prénom ☃`" + ` VARCHAR(10)` + json + `) ENGINE=InnoDB`)
			var vals []string
			for i := 1; i <= 300; i++ {
				vals = append(vals, fmt.Sprintf("(%d, %d, %d, %d.5, %d.25, %d.125, %d, '2020-01-02', '2021-03-04 05:06:07.%06d', '2022-01-01 00:00:%02d.5', '12:34:56', 2000, 'r%d', 'row %d', 'text %d', 'b%d', 'vb%d', 'blob %d', 'b', 'y', 'p%d'%s)",
					i, i%256, i, i, i, i, i, i, i%60, i, i, i, i, i, i, i, map[bool]string{true: fmt.Sprintf(", '{\"n\": %d}'", i), false: ""}[json != ""]))
			}
			exec("INSERT INTO " + tbl + " VALUES " + strings.Join(vals, ", "))
		}
		if t.Failed() {
			t.FailNow()
		}
		// The changes, run on both tables while the copy is between chunks.
		changes := func(tbl string) {
			js := func(v string) string {
				if json == "" {
					return ""
				}
				return ", " + v
			}
			exec("INSERT INTO "+tbl+" VALUES (1000, 255, 18446744073709551615, -12345678901234567890.0123456789, 0.1, -1.7976931348623157e308, b'1000000000000000000000000000000000000000000000000000000000000001', "+
				"'0000-00-00', '0000-00-00 00:00:00.000000', '2038-01-18 20:14:07.999', '-838:59:59.000000', 2155, "+
				"?, ?, ?, UNHEX('005C27000A0D1A00'), UNHEX('FF005C27FE'), UNHEX(REPEAT('AB005C', 700)), 'c', 'x,z', 'ü'"+js(`'{"a": [1, 2.5, "é\\\\u00e9"], "b": null}'`)+")",
				"Ünïcødé", "😀 emoji \\ quote' end", "multi\nline\x00nul\r\n")
			exec("INSERT INTO " + tbl + " VALUES (1001, 0, 0, 0, -0.0, 5e-324, b'0', '1000-01-01', '9999-12-31 23:59:59.999999', '1970-01-01 07:00:01.000', '838:59:59.999999', 0, " +
				"'', '', '', '', '', '', '', '', ''" + js("'[]'") + ")")
			exec("INSERT INTO " + tbl + " (id) VALUES (1002)") // NULLs
			// Updates in copied and not yet copied chunks, to special values.
			exec("UPDATE "+tbl+" SET cl = ?, vc = ?, da = '2020-00-00', ts = '2001-02-03 04:05:06.789', bi = b'1111111111111111111111111111111111111111111111111111111111111111' WHERE id IN (3, 150, 299)",
				"àéîõü", "𝄞 clef")
			exec("UPDATE " + tbl + " SET de = NULL, fl = NULL, tx = NULL, bl = NULL, en = NULL, st = NULL WHERE id IN (4, 151)")
			exec("UPDATE " + tbl + " SET id = 5005 WHERE id = 5") // a moved key
			exec("DELETE FROM " + tbl + " WHERE id IN (6, 200, 201)")
			exec("UPDATE " + tbl + " SET id = 6, yr = 1901 WHERE id = 7") // moved onto a deleted key
			exec("UPDATE " + tbl + " SET id = 7 WHERE id = 8")            // and another onto its old key
			exec("INSERT INTO " + tbl + " (id, vc) VALUES (200, 'back')") // a deleted key inserted again
			exec("UPDATE " + tbl + " SET tm = '-00:00:00.000001', dt = '2024-02-29 23:59:59.999999' WHERE id BETWEEN 100 AND 120")
			exec("UPDATE " + tbl + " SET vb = NULL, `prénom ☃` = 'é☃' WHERE id = 1000")
			exec("UPDATE " + tbl + " SET vb = UNHEX('5C5C00') WHERE id = 1000")
		}
		clauses := "ADD COLUMN z INT NOT NULL DEFAULT 7, MODIFY cl VARCHAR(20) CHARACTER SET utf8mb4, MODIFY ti INT UNSIGNED, ADD INDEX idt (dt)"
		o := alterOptions(t, env, name, clauses)
		o.ChunkRows = 30
		var once sync.Once
		o.afterChunk = func(seq int) {
			if seq >= 2 {
				once.Do(func() {
					changes("t")
					changes("u")
				})
			}
		}
		rep, err := Run(ctx, o)
		if t.Failed() {
			t.FailNow()
		}
		if err != nil {
			t.Fatalf("alter: %v", err)
		}
		if rep.Apply != applyImages || rep.Keys == 0 {
			t.Fatalf("changed keys: %d applied by %q, want row images", rep.Keys, rep.Apply)
		}
		exec("ALTER TABLE u " + clauses)
		got, want := dump(t, conn, "t"), dump(t, conn, "u")
		if len(got) != len(want) {
			t.Fatalf("%d rows after sluice alter, %d after the server's ALTER", len(got), len(want))
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Errorf("row %d differs:\n sluice: %q\n server: %q", i, got[i], want[i])
			}
		}
		t.Logf("%d rows equal (%d changed keys written from row images)", len(got), rep.Keys)
	})
}

// dump reads every row of tbl as the server's text of each column (NULL
// apart), joined.
func dump(t *testing.T, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, tbl string) [][]byte {
	t.Helper()
	rows, err := q.QueryContext(context.Background(), "SELECT * FROM "+tbl+" ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]byte
	for rows.Next() {
		raw := make([]sql.RawBytes, len(cols))
		ptrs := make([]any, len(cols))
		for i := range raw {
			ptrs[i] = &raw[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		var row []byte
		for i, v := range raw {
			if v == nil {
				row = append(row, "NULL"...)
			} else {
				row = append(row, fmt.Sprintf("%s=%x", cols[i], []byte(v))...)
			}
			row = append(row, '|')
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
