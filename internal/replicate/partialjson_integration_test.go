package replicate

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestReplicatePartialJSONUpdates: updates a MySQL session logs as partial
// JSON diffs (binlog_row_value_options=PARTIAL_JSON) reach PostgreSQL as
// the whole new documents: the replicated tables equal a fresh snapshot of
// the source, and each document's jsonb text equals the snapshot's.
func TestReplicatePartialJSONUpdates(t *testing.T) {
	env := testenv.GetFlavor(t, testenv.MySQL)
	g := newRigOn(t, env, "rp_pjson", "CREATE TABLE j (id INT PRIMARY KEY, doc JSON, other JSON, note VARCHAR(40))")
	big := strings.Repeat("abcdefghij", 10000)
	g.exec(`INSERT INTO j VALUES
		(1, '{"a": 1, "b": [1, 2, 3], "n": {"x": 0, "y": "s"}, "pad": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}', '{"o": [1, {"p": 2}]}', 'one'),
		(2, '[1, "two", [3, 4], {"five": 5.5}]', NULL, 'two'),
		(3, NULL, '{"k": true}', 'three'),
		(4, JSON_OBJECT('big', '` + big + `', 'arr', JSON_ARRAY(1, 2, 3)), '{}', 'four')`)
	g.snapshot(g.stream, "")
	conn, err := g.my.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range []string{
		"SET SESSION binlog_row_value_options = 'PARTIAL_JSON'",
		`UPDATE j SET doc = JSON_SET(doc, '$.a', 3, '$.b[1]', 20, '$."new key"', JSON_OBJECT('k', JSON_ARRAY(1, NULL, false))) WHERE id = 1`,
		`UPDATE j SET doc = JSON_REPLACE(doc, '$.n.x', 'str', '$.n.y', 1.5e300), other = JSON_SET(other, '$.o[1].p', 'q') WHERE id = 1`,
		`UPDATE j SET doc = JSON_REMOVE(doc, '$.b[0]', '$.pad'), note = 'changed' WHERE id = 1`,
		`UPDATE j SET doc = JSON_SET(doc, '$[1]', 'TWO', '$[3].six', 6, '$[2][last]', 40), other = JSON_OBJECT('was', 'null') WHERE id = 2`,
		`UPDATE j SET doc = JSON_SET(doc, '$.a', 1), other = JSON_REMOVE(other, '$.k') WHERE id = 3`,
		`UPDATE j SET doc = JSON_SET(doc, '$.arr[1]', 'two', '$.arr[9]', 10, '$.k', -1) WHERE id = 4`,
		"SET SESSION binlog_transaction_compression = ON", // partial diffs inside a compressed payload
		"BEGIN",
		`UPDATE j SET doc = JSON_SET(doc, '$.all', id) WHERE id IN (1, 4)`,
		`UPDATE j SET doc = JSON_REMOVE(doc, '$.all') WHERE id = 4`,
		"COMMIT",
	} {
		if _, err := conn.ExecContext(t.Context(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	g.catchUp(g.options())
	g.compare() // also leaves the fresh snapshot in <db>_ref
	q := "SELECT a.id, a.doc::text, b.doc::text, a.other::text, b.other::text FROM " +
		pgx.Identifier{g.db, "j"}.Sanitize() + " a JOIN " + pgx.Identifier{g.db + "_ref", "j"}.Sanitize() + " b USING (id) ORDER BY id"
	rows, err := g.pg.Query(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var id int32
		var doc, refDoc, other, refOther *string
		if err := rows.Scan(&id, &doc, &refDoc, &other, &refOther); err != nil {
			t.Fatal(err)
		}
		n++
		if str(doc) != str(refDoc) || str(other) != str(refOther) {
			t.Errorf("id %d:\nreplicated %.200s %.200s\nsnapshot   %.200s %.200s", id, str(doc), str(other), str(refDoc), str(refOther))
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 4 {
		t.Errorf("%d rows compared, want 4", n)
	}
}

func str(s *string) string {
	if s == nil {
		return "NULL"
	}
	return *s
}
