package replicate

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/testenv"
)

// jsonNumbers is a document of JSON numbers MySQL stores as DOUBLE, INT64 and
// UINT64, with the renderings that used to differ between the snapshot (MySQL's
// text) and the binlog (go-mysql's exact binary expansion of whole doubles).
const jsonNumbers = `{"big": 1.5e300, "e2": 1e2, "e15": 1e15, "tenth": 0.1, "tiny": 3e-5, "neg": -1.2345678901234567e29,
	"int": 12345678901234567890, "zero": -0.0, "nested": [1.7976931348623157e308, 5e-324, {"x": 123456789012345678901234567890}]}`

// TestReplicateJSONNumbersAsSnapshot: the same document copied by the snapshot
// (row 1) and by replication (row 2, then row 1 updated to it again) is the
// same jsonb in PostgreSQL, number for number.
func TestReplicateJSONNumbersAsSnapshot(t *testing.T) {
	testenv.Flavors(t, testReplicateJSONNumbersAsSnapshot)
}

func testReplicateJSONNumbersAsSnapshot(t *testing.T, env *testenv.Env) {
	g := newRigOn(t, env, "rp_jsonnum", "CREATE TABLE j (id INT PRIMARY KEY, doc JSON, v INT)")
	g.exec("INSERT INTO j VALUES (1, '" + jsonNumbers + "', 0)")
	g.snapshot(g.stream, "")
	g.exec("INSERT INTO j VALUES (2, '"+jsonNumbers+"', 0)", "UPDATE j SET v = 1 WHERE id = 1")
	g.catchUp(g.options())
	g.compare()
	var snap, repl, updated string
	table := pgx.Identifier{g.db, "j"}.Sanitize()
	q := "SELECT (SELECT doc::text FROM " + table + " WHERE id = 2), (SELECT doc::text FROM " + table + " WHERE id = 1)"
	if err := g.pg.QueryRow(context.Background(), q).Scan(&repl, &updated); err != nil {
		t.Fatal(err)
	}
	if err := g.pg.QueryRow(context.Background(), "SELECT $1::jsonb::text", jsonNumbers).Scan(&snap); err != nil {
		t.Fatal(err)
	}
	if repl != updated {
		t.Errorf("replicated insert %s\nreplicated update %s", repl, updated)
	}
	// On MariaDB the document is the text as written; MySQL re-prints its
	// binary document (1e2 as 100.0), so only the MariaDB copy equals the literal.
	if !env.IsMySQL() && repl != snap {
		t.Errorf("replicated %s\nliteral    %s", repl, snap)
	}
	var fromMySQL string
	if err := g.my.QueryRow("SELECT doc FROM j WHERE id = 2").Scan(&fromMySQL); err != nil {
		t.Fatal(err)
	}
	var want string
	if err := g.pg.QueryRow(context.Background(), "SELECT $1::jsonb::text", fromMySQL).Scan(&want); err != nil {
		t.Fatal(err)
	}
	if repl != want {
		t.Errorf("replicated document %s\nsource prints      %s", repl, want)
	}
}
