package binlog

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/testenv"
)

// partialTable has a column of every kind before and after the JSON
// columns, so that walking a partial row image measures each of them.
const partialTable = `CREATE TABLE j (
	id INT PRIMARY KEY, ti TINYINT, si SMALLINT UNSIGNED, mi MEDIUMINT, bi BIGINT,
	de DECIMAL(20,6), dbig DECIMAL(65,30), fl FLOAT, du DOUBLE, bt BIT(10), b64 BIT(64),
	dt DATE, tm TIME(3), t0 TIME, dtt DATETIME(6), d0 DATETIME, ts TIMESTAMP(2) NULL, yr YEAR,
	ch CHAR(10), chw CHAR(100) CHARACTER SET utf8mb4, vc VARCHAR(300), vs VARCHAR(20),
	vb VARBINARY(10), bn BINARY(4), tb TINYBLOB, bl BLOB, tx MEDIUMTEXT, lt LONGTEXT,
	en ENUM('a','b'), st SET('x','y','z'), pt POINT, doc JSON, other JSON, note VARCHAR(20));
CREATE TABLE ref (step INT, id INT, doc JSON, other JSON, note VARCHAR(20), PRIMARY KEY (step, id))`

// TestPartialJSONUpdates: MySQL sessions with binlog_row_value_options=
// PARTIAL_JSON log JSON_SET/JSON_REPLACE/JSON_REMOVE updates as diffs; the
// stream applies every diff to the before image. After each step a plain
// session copies the documents into ref (a full image of each), and every
// document the stream rebuilt must equal, byte for byte after the PostgreSQL
// conversion, the full image of the same document.
func TestPartialJSONUpdates(t *testing.T) {
	env := testenv.GetFlavor(t, testenv.MySQL)
	f := newFixtureOn(t, env, "bl_pjson", "")
	for _, ddl := range strings.Split(partialTable, ";") {
		f.exec(ddl)
	}
	start := f.position()
	r := startStreamCap(t, f.config(start, ignoreOthers(f.db)), 64)
	big := strings.Repeat("0123456789", 20000)
	f.exec(`INSERT INTO j VALUES
		(1, -5, 65000, -8000000, -9000000000000, 12345678901234.123456, -1234567890.123456789012345678901234567890,
		 1.5, -2.25e300, b'1010101010', b'1111111111111111111111111111111111111111111111111111111111111111',
		 '2024-02-29', '-838:59:58.999', '12:00:00', '2024-01-02 03:04:05.123456', '1999-12-31 23:59:59',
		 '2024-01-02 03:04:05.12', 2155, 'abc', 'ünïcödé wide', REPEAT('v', 290), 'short', x'00ff10', x'01020304',
		 x'dead', REPEAT('b', 300), REPEAT('t', 70000), 'long text', 'b', 'x,z', ST_GeomFromText('POINT(1 2)'),
		 '{"a": 1, "b": [1, 2, 3], "n": {"x": 0, "y": 1, "z": false}, "pad": "xxxxxxxxxxxxxxxxxxxxxxxx"}',
		 '{"o": [10, 20, {"p": "q"}]}', 'n1'),
		(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
		 NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
		 '{"a": "two", "b": [{"deep": [1, {"deeper": null}]}, "s"], "n": {"x": 1.25, "y": [], "z": {}}}', NULL, NULL),
		(3, 3, 3, 3, 3, 3, 3, 3, 3, b'1', b'1', '2000-01-01', '00:00:00.001', '00:00:01', '2000-01-01 00:00:00',
		 '2000-01-01 00:00:00', NULL, 2000, '', '', '', '', '', x'00000000', '', '', '', '', 'a', '', NULL,
		 '[1, "two", [3, 4], {"five": 5}]', '{"k": "v"}', 'n3'),
		(4, 4, 4, 4, 4, 4, 4, 4, 4, b'0', b'0', NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'x', 'y', 'z', 'w', 'v', 'u', 't', 's',
		 'r', 'q', 'b', 'y', NULL, NULL, '{"a": 4}', 'n4')`)
	f.exec(`INSERT INTO j (id, doc, other) VALUES (5, JSON_OBJECT('big', '` + big + `', 'arr', JSON_ARRAY(1, 2, 3), 'k', 0), '{}')`)

	conn, err := f.my.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(t.Context(), "SET SESSION binlog_row_value_options = 'PARTIAL_JSON'"); err != nil {
		t.Fatal(err)
	}
	steps := []string{
		// several paths in one update, array index
		`UPDATE j SET doc = JSON_SET(doc, '$.a', 3, '$.b[1]', 20) WHERE id = 1`,
		// several rows in one event; strings, null, booleans
		`UPDATE j SET doc = JSON_REPLACE(doc, '$.n.x', 'str', '$.n.y', CAST('null' AS JSON), '$.n.z', true) WHERE id IN (1, 2)`,
		// removals of array elements and members
		`UPDATE j SET doc = JSON_REMOVE(doc, '$.b[0]', '$.pad') WHERE id = 1`,
		// new members (kept in MySQL's key order), quoted keys, nested values, appending past the end
		`UPDATE j SET doc = JSON_SET(doc, '$."quoted key"', 1.5, '$.new', JSON_OBJECT('k', JSON_ARRAY(1, 2, false, NULL)),
			'$.b[5]', 'appended', '$."a.b"', 'dot', '$."é"', 'accent', '$.zz', -7, '$."q\\"uote"', 'esc') WHERE id = 2`,
		// nested objects and arrays, [last]
		`UPDATE j SET doc = JSON_SET(doc, '$.b[0].deep[1].deeper', JSON_ARRAY('x', 'y'), '$.b[last]', 99, '$.n.y[0]', 'into') WHERE id = 2`,
		// top-level arrays
		`UPDATE j SET doc = JSON_SET(doc, '$[1]', 'TWO', '$[2][0]', 30, '$[3].six', 6), other = JSON_REMOVE(other, '$.k') WHERE id = 3`,
		`UPDATE j SET doc = JSON_REMOVE(doc, '$[0]', '$[last]') WHERE id = 3`,
		// one JSON column partial, the other replaced, other columns changed too
		`UPDATE j SET doc = JSON_SET(doc, '$.a', 'x'), other = JSON_OBJECT('full', 1), note = 'changed', ti = ti + 1, vc = 'new' WHERE id = 1`,
		// both JSON columns partial in one row
		`UPDATE j SET doc = JSON_SET(doc, '$.n.x', 2), other = JSON_SET(other, '$.o[2].p', 'r', '$.o[0]', 11) WHERE id = 1`,
		// a NULL document: JSON_SET of NULL is NULL
		`UPDATE j SET doc = JSON_SET(doc, '$.a', 1), note = 'still null' WHERE id = 4`,
		// numbers
		`UPDATE j SET doc = JSON_SET(doc, '$.a', 1.5e300, '$.i', 12.50, '$.u', 18446744073709551615, '$.neg', -2, '$.f', 0.1) WHERE id = 1`,
		// a large document
		`UPDATE j SET doc = JSON_SET(doc, '$.arr[1]', 'two', '$.k', JSON_OBJECT('big', 'no'), '$.arr[7]', 8) WHERE id = 5`,
		`UPDATE j SET doc = JSON_REMOVE(doc, '$.arr[0]'), other = JSON_SET(other, '$.x', 1) WHERE id = 5`,
		// array index of a scalar: JSON_SET wraps it in an array; [0] of a scalar is the scalar
		`UPDATE j SET doc = JSON_SET(doc, '$.n.x[1]', 'wrap', '$.a[0]', 'self') WHERE id = 1`,
		`UPDATE j SET doc = JSON_SET(doc, '$.n.x[0][0]', 'deep self', '$.missing.deep', 1), other = JSON_REMOVE(other, '$.nothing') WHERE id = 1`,
		// the whole document
		`UPDATE j SET doc = JSON_SET(doc, '$', JSON_OBJECT('root', JSON_ARRAY(1))) WHERE id = 3`,
		`UPDATE j SET doc = JSON_REPLACE(doc, '$.root[0]', 2, '$.root[5]', 9) WHERE id = 3`,
		// all rows at once
		`UPDATE j SET doc = JSON_SET(doc, '$.all', id) WHERE id <= 5`,
	}
	for i, q := range steps {
		if _, err := conn.ExecContext(t.Context(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		f.exec(fmt.Sprintf("INSERT INTO ref SELECT %d, id, doc, other, note FROM j", i+1))
	}

	// Replay: state holds each row of j as the stream rebuilt it.
	state := map[string][]any{}
	key := func(v any) string { return plain([]any{v}) }
	col := func(c *model.RowChange, name string) int {
		for i, cc := range c.Table.Columns {
			if cc.Name == name {
				return i
			}
		}
		t.Fatalf("no column %s", name)
		return 0
	}
	for step := 0; step < len(steps); {
		txn := r.next(20 * time.Second)
		for _, c := range txn.Changes {
			switch c.Table.TableID.Name {
			case "j":
				if c.Op == model.Delete {
					t.Fatalf("unexpected delete")
				}
				if c.Op == model.Update && plain(state[key(c.Before[0])]) != plain(c.Before) {
					t.Errorf("before image of j %v:\n got %s\nwant %s", c.Before[0], plain(c.Before), plain(state[key(c.Before[0])]))
				}
				state[key(c.After[0])] = c.After
			case "ref":
				step, _ = strconv.Atoi(strings.Trim(plain(c.After[:1]), "[]"))
				row := state[key(c.After[1])]
				if row == nil {
					t.Fatalf("step %d: ref row for unknown id %v", step, c.After[1])
				}
				for _, name := range []string{"doc", "other", "note"} {
					got := plain([]any{row[jcol(t, "j", name)]})
					want := plain([]any{c.After[col(&c, name)]})
					if got != want {
						t.Errorf("step %d (%s) id %v %s:\n got %.300s\nwant %.300s", step, steps[step-1], c.After[1], name, got, want)
					}
				}
			}
		}
	}
	// The server did log partial updates.
	rows := testenv.MySQLTexts(t, f.my, fmt.Sprintf("SHOW BINLOG EVENTS IN '%s' FROM %d", start.File, start.Pos))
	partial := 0
	for _, row := range rows {
		if strings.HasPrefix(row[2].String, "Update_rows_partial") {
			partial++
		}
	}
	if partial < len(steps)-2 {
		t.Errorf("%d partial update events in the binlog, want at least %d", partial, len(steps)-2)
	}
}

// jcol is the index of a column of partialTable's j.
func jcol(t *testing.T, table, name string) int {
	t.Helper()
	cols := []string{"id", "ti", "si", "mi", "bi", "de", "dbig", "fl", "du", "bt", "b64", "dt", "tm", "t0", "dtt", "d0", "ts", "yr",
		"ch", "chw", "vc", "vs", "vb", "bn", "tb", "bl", "tx", "lt", "en", "st", "pt", "doc", "other", "note"}
	for i, c := range cols {
		if c == name {
			return i
		}
	}
	t.Fatalf("no column %s.%s", table, name)
	return 0
}

// TestPartialJSONMinimalImageStops: without the before document (here
// binlog_row_image=MINIMAL) the diffs cannot be applied: the stream stops
// at the event naming the setting to fix.
func TestPartialJSONMinimalImageStops(t *testing.T) {
	env := testenv.GetFlavor(t, testenv.MySQL)
	f := newFixtureOn(t, env, "bl_pjmin", "CREATE TABLE j (id INT PRIMARY KEY, doc JSON)")
	f.exec(`INSERT INTO j VALUES (1, '{"a": 1, "pad": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}')`)
	r := startStream(t, f.config(f.position(), ignoreOthers(f.db)))
	conn, err := f.my.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range []string{
		"SET SESSION binlog_row_value_options = 'PARTIAL_JSON'",
		"SET SESSION binlog_row_image = 'MINIMAL'",
		"UPDATE j SET doc = JSON_SET(doc, '$.a', 3) WHERE id = 1",
	} {
		if _, err := conn.ExecContext(t.Context(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	err = r.failure(10 * time.Second)
	for _, want := range []string{"binlog_row_image=FULL", "binlog."} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
}
