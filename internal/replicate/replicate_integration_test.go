package replicate

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/sink/postgres"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/testenv"
	"github.com/sluice-db/sluice/internal/testenv/typecorpus"
)

// TestReplicateEveryTypeAndDML replicates inserts, updates (including of
// primary keys), deletes, rows without a primary key with duplicates, and a
// transaction touching several tables, then compares every table with a
// fresh snapshot of the source.
func TestReplicateEveryTypeAndDML(t *testing.T) { testenv.Flavors(t, testReplicateEveryTypeAndDML) }

func testReplicateEveryTypeAndDML(t *testing.T, env *testenv.Env) {
	corpus := typecorpus.For(env.IsMySQL())
	g := newRigOn(t, env, "rp_dml", corpus.CreateTable("types")+`;
		CREATE TABLE pk (id INT PRIMARY KEY, v INT);
		CREATE TABLE nopk (a INT, b VARCHAR(10));
		CREATE TABLE uk (id INT PRIMARY KEY, email VARCHAR(20) NOT NULL, UNIQUE KEY (email))`)
	g.exec("INSERT INTO pk VALUES (1, 1), (2, 2), (3, 3)", "INSERT INTO uk VALUES (1, 'a'), (2, 'b')")
	g.snapshot(g.stream, "")

	conn, err := g.my.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range []string{
		"SET SESSION sql_mode = ''",
		corpus.Insert("types"),
		"UPDATE types SET id = id + 100 WHERE id <= 2",
		"UPDATE types SET vc = 'changed', j = '{\"x\": 1}', d65 = 1.5 WHERE id = 3",
		"DELETE FROM types WHERE id = 4",
		"UPDATE pk SET id = 10 WHERE id = 1",
		"UPDATE pk SET id = id + 1 ORDER BY id DESC", // 2,3,10 -> 3,4,11 without a transient conflict on the source
		"INSERT INTO nopk VALUES (1, 'x'), (1, 'x'), (1, 'x'), (2, 'y'), (NULL, NULL), (NULL, NULL)",
		"DELETE FROM nopk WHERE a = 1 LIMIT 1",
		"UPDATE nopk SET b = 'z' WHERE a = 1 LIMIT 1",
		"DELETE FROM nopk WHERE a IS NULL LIMIT 1",
		"UPDATE uk SET email = 'c' WHERE id = 1",
		"UPDATE uk SET email = 'a' WHERE id = 2", // reuses the unique value freed just before
		// Several rows of every type updated and set back: multi-row UPDATE
		// ... FROM (VALUES ...) writes every column through its cast, and the
		// corpus check below must still find every original value.
		"UPDATE types SET i = -i - 1 WHERE id > 4", // swaps INT's minimum and maximum
		"UPDATE types SET i = -i - 1 WHERE id > 4",
		"BEGIN",
		"INSERT INTO pk VALUES (100, 100)",
		"UPDATE types SET i = 5 WHERE id = 3",
		"INSERT INTO nopk VALUES (3, 'w')",
		"DELETE FROM uk WHERE id = 1",
		"COMMIT",
	} {
		if _, err := conn.ExecContext(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	g.catchUp(g.options())
	g.compare()
	checkTypesAgainstCorpus(t, g, corpus)
	if n := g.count("nopk"); n != 5 {
		t.Errorf("nopk has %d rows, want 5", n)
	}
	st, err := checkpoint.Load(context.Background(), g.pg, g.stream, binlogpos.Decode)
	if err != nil || st == nil {
		t.Fatalf("checkpoint: %v %v", st, err)
	}
	if st.SchemaVersion != 1 || time.Since(st.UpdatedAt) > time.Minute {
		t.Errorf("checkpoint %+v", st)
	}
	// The comparison sees a change that was not replicated.
	g.exec("UPDATE pk SET v = v + 1 WHERE id = 100")
	if d := g.differences(); len(d) != 1 || !strings.Contains(d[0], "table pk: replicated 4 rows, source 4 rows, 2 rows differ") {
		t.Errorf("differences after an unreplicated update: %q", d)
	}
}

// checkTypesAgainstCorpus compares every value of the replicated "types"
// table with the text the corpus expects: rows 1 and 2 arrived by the
// binlog and moved to ids 101 and 102, row 3 was updated in vc (gs follows
// it), j, d65 and i, row 4 was deleted.
func checkTypesAgainstCorpus(t *testing.T, g *rig, corpus typecorpus.Corpus) {
	t.Helper()
	postgis, err := postgres.HasExtension(context.Background(), g.pg, "postgis")
	if err != nil {
		t.Fatal(err)
	}
	updated := map[string]string{"vc": "changed", "gs": "changed-", "j": `{"x": 1}`,
		"d65": "1.500000000000000000000000000000", "i": "5"}
	table := pgx.Identifier{g.db, "types"}.Sanitize()
	for _, c := range corpus {
		got := typecorpus.PGTexts(t, g.pg, table, c, postgis)
		want := map[int]string{101: c.Want(0, postgis), 102: c.Want(1, postgis), 3: c.Want(2, postgis)}
		if v, ok := updated[c.Name]; ok {
			want[3] = v
		}
		if len(got) != len(want) {
			t.Errorf("column %s: rows %v, want ids 3, 101, 102", c.Name, got)
		}
		for id, w := range want {
			if got[id] != w {
				t.Errorf("%s (%s) id %d: PostgreSQL has %q, want %q", c.Name, c.DDL, id, got[id], w)
			}
		}
	}
}
