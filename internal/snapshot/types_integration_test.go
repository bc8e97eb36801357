package snapshot

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/sink/postgres"
	"github.com/sluice-db/sluice/internal/testenv"
	"github.com/sluice-db/sluice/internal/testenv/typecorpus"
)

// bigBlob is 16 MiB with zero bytes inside and at the end.
const bigBlob = "REPEAT(CONCAT(x'00ff', 'abcde', x'00'), 2097152)"

// TestSnapshotEveryTypeExact is issue 3's type acceptance test: a table
// with every type and its edge values goes through the whole snapshot
// (consistent read, chunks, binary COPY); every value is read back from
// PostgreSQL and compared with the expected value, and every value a
// policy changed is listed in the report.
func TestSnapshotEveryTypeExact(t *testing.T) { testenv.Flavors(t, testSnapshotEveryTypeExact) }

func testSnapshotEveryTypeExact(t *testing.T, env *testenv.Env) {
	corpus := typecorpus.For(env.IsMySQL())
	db := env.NewDatabase(t, "snap_types")
	my := env.MySQL(t, db)
	ctx := context.Background()
	mustExec(t, my, corpus.CreateTable("every"))
	mustExec(t, my, "ALTER TABLE every ADD COLUMN big LONGBLOB")
	mustExec(t, my, "SET SESSION sql_mode = ''; "+corpus.Insert("every"))
	mustExec(t, my, "UPDATE every SET big = "+bigBlob+" WHERE id = 1")
	rows := typecorpus.Rows
	opts := testOptions(t, env, db)
	opts.ChunkRows = 2
	rep, err := Run(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	pg := env.PG(t)
	conn, err := pg.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	postgis, _ := postgres.HasExtension(ctx, conn, "postgis")
	for _, c := range corpus {
		got := typecorpus.PGTexts(t, pg, `"`+db+`".every`, c, postgis)
		if len(got) != rows {
			t.Errorf("column %s: %d rows in PostgreSQL, want %d", c.Name, len(got), rows)
		}
		for r := range rows {
			if want := c.Want(r, postgis); got[r+1] != want {
				t.Errorf("%s (%s) row %d: PostgreSQL has %q, want %q", c.Name, c.DDL, r+1, got[r+1], want)
			}
		}
	}
	var myLen int64
	var mySHA string
	if err := my.QueryRow("SELECT LENGTH(big), SHA2(big, 256) FROM every WHERE id = 1").Scan(&myLen, &mySHA); err != nil {
		t.Fatal(err)
	}
	var pgLen int64
	var pgSHA string
	if err := conn.QueryRow(ctx, `SELECT length(big), encode(sha256(big), 'hex') FROM "`+db+`".every WHERE id = 1`).Scan(&pgLen, &pgSHA); err != nil {
		t.Fatal(err)
	}
	if myLen != 16<<20 || pgLen != myLen || pgSHA != mySHA {
		t.Errorf("16 MiB blob: source %d bytes sha256 %s, target %d bytes sha256 %s", myLen, mySHA, pgLen, pgSHA)
	}
	table := db + ".every"
	want := map[string]int64{"dt/zero-date→NULL": 2, "dtn/zero-date→-infinity": 2, "dtd/zero-date→-infinity": 2,
		"dt6/zero-date→NULL": 1, "dt0/zero-date→NULL": 1, "ts6/zero-date→NULL": 1, "tsn/zero-date→-infinity": 1,
		"tx/NUL stripped": 1, "j/NUL stripped": 1}
	got := map[string]int64{}
	for _, c := range rep.Changes {
		if c.Table != table {
			t.Errorf("change counted for table %q, want %q", c.Table, table)
		}
		got[c.Column+"/"+c.Policy] = c.Count
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("report's values changed by policy = %v, want %v", got, want)
	}
	if rep.Rows != int64(rows) || rep.Bytes < 16<<20 {
		t.Errorf("report: %d rows, %d bytes", rep.Rows, rep.Bytes)
	}
	var text strings.Builder
	rep.WriteText(&text)
	if !strings.Contains(text.String(), "every.dtn: 2 × zero-date→-infinity") {
		t.Errorf("text report does not list the changed values:\n%s", text.String())
	}
}
