package replicate

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/rowpolicy"
	"github.com/sluice-db/sluice/internal/schema"
	mysink "github.com/sluice-db/sluice/internal/sink/mysql"
	pgsink "github.com/sluice-db/sluice/internal/sink/postgres"
	"github.com/sluice-db/sluice/internal/snapshot"
	"github.com/sluice-db/sluice/internal/testenv"
	"github.com/sluice-db/sluice/internal/verify"
)

// TestRowPolicyReplicate replicates a table with a tenant filter and three
// masks into PostgreSQL while updates move rows in and out of the filter:
// the target equals the source filtered and masked in SQL (the hash
// computed independently), and no seeded clear value appears on the
// target, in the state tables or in the run's log.
func TestRowPolicyReplicate(t *testing.T) {
	g := newRigOn(t, testenv.GetFlavor(t, testenv.MariaDB), "rp_repl", "")
	key := []byte("test-mask-key-0123456789")
	pol := testPolicy(t, g.db, key)
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	g.exec(policyTable)
	for id := 1; id <= 30; id++ {
		policyInsert(g.exec, id)
		if id == 16 {
			// The first half is copied by the snapshot (the condition in its
			// chunk SELECT, the masks on the rows read), the rest arrives
			// through the binlog.
			so := snapshot.Options{Source: g.src, Target: pgsink.NewEngine(g.dst), Include: []string{g.db}, Stream: g.stream,
				Workers: 2, Log: log, RowPolicy: pol}
			if _, err := snapshot.Run(context.Background(), so); err != nil {
				t.Fatalf("snapshot: %v", err)
			}
		}
	}
	policyUpdates(g.exec)
	o := g.options()
	o.RowPolicy = pol
	o.Log = log
	g.catchUp(o)

	want := policyExpected(t, g.my, key)
	got := testenv.PGRows(t, g.pg, fmt.Sprintf(`SELECT id, tenant, email, phone, coalesce(name, 'NULL'), note FROM %q.c ORDER BY id`, g.db))
	sameRows(t, "target", got, want)
	leak := leakCheck(t)
	leak("the target table", strings.Join(got, "\n"))
	leak("the log", logs.String())
	for _, tbl := range testenv.PGRows(t, g.pg, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'sluice'") {
		leak("sluice."+tbl, strings.Join(testenv.PGRows(t, g.pg, fmt.Sprintf(`SELECT t::text FROM sluice.%q t`, tbl)), "\n"))
	}

	// A later run with other filters or masks is refused, showing the difference.
	other, _ := rowpolicy.New([]string{g.db + ".c=tenant = 2"}, nil, key)
	o.RowPolicy, o.Log = other, testenv.Logger()
	o.UntilCaughtUp = true
	err := Run(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "--where/--mask") || !strings.Contains(err.Error(), "tenant = 2") {
		t.Fatalf("a run with another filter: want the recorded policy's refusal, got %v", err)
	}
	leak("the refusal", err.Error())

	// verify does not apply the policy yet: it refuses the stream (it would
	// compare, and repair, whole tables in clear).
	_, err = verify.Run(context.Background(), verify.Options{Source: g.src, Engine: pgsink.NewEngine(g.dst), Stream: g.stream, Log: testenv.Logger()})
	if exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), "does not apply --where/--mask") {
		t.Fatalf("verify of a filtered, masked stream: want a refusal (exit 2), got %v", err)
	}
	leak("verify's refusal", err.Error())
	refusedUnderAnyStream(t, g.my, g.db, g.stream, func(stream string, tables []*schema.Table) error {
		_, err := verify.Run(context.Background(), verify.Options{Source: g.src, Engine: pgsink.NewEngine(g.dst), Tables: tables,
			Stream: stream, Repair: true, Log: testenv.Logger()})
		return err
	})
}

// refusedUnderAnyStream: verify --repair of the masked tables under
// another stream name (the default one, a typo) is refused too, naming
// the stream that masks them: it would compare, and write, clear values.
func refusedUnderAnyStream(t *testing.T, my *sql.DB, db, stream string, verifyAs func(string, []*schema.Table) error) {
	t.Helper()
	f, err := schema.NewFilter([]string{db}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	cat, err := schema.Load(context.Background(), my, f)
	if err != nil || len(cat.Tables) == 0 {
		t.Fatalf("load the source tables: %v (%d)", err, len(cat.Tables))
	}
	for _, other := range []string{"", "default", stream + "-typo"} {
		err := verifyAs(other, cat.Tables)
		if exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), "stream "+stream+" moves only filtered and masked rows") {
			t.Errorf("verify --repair under stream %q of tables stream %s masks: want its refusal (exit 2), got %v", other, stream, err)
		}
	}
}

const policyTable = "CREATE TABLE c (id INT PRIMARY KEY, tenant INT NOT NULL, email VARCHAR(100) NOT NULL, phone VARCHAR(20) NULL, name VARCHAR(50) NULL, note VARCHAR(20) NULL)"

func policyInsert(exec func(...string), id int) {
	exec(fmt.Sprintf("INSERT INTO c VALUES (%d, %d, 'canary-%d@leak.example', '555-0100-%d', 'Canary Name %d', 'n%d')", id, id%2+1, id, id, id, id))
}

func testPolicy(t *testing.T, db string, key []byte) *rowpolicy.Policy {
	t.Helper()
	pol, err := rowpolicy.New([]string{db + ".c=tenant = 1 AND note NOT LIKE 'x%'"},
		[]string{db + ".c.email=hash", db + ".*.phone=keep-last:4", db + ".c.name=null"}, key)
	if err != nil {
		t.Fatal(err)
	}
	return pol
}

// policyUpdates moves rows in and out of the filter.
func policyUpdates(exec func(...string)) {
	exec("UPDATE c SET tenant = 1 WHERE id IN (1, 3, 5)", // enter the filter: inserts of the full after image
		"UPDATE c SET tenant = 2, note = 'left' WHERE id IN (2, 4)", // leave it: deletes
		"UPDATE c SET email = CONCAT('canary-new-', id, '@leak.example') WHERE id IN (6, 8, 7)",
		"UPDATE c SET note = 'outside' WHERE tenant = 2", // outside before and after: nothing
		"DELETE FROM c WHERE id IN (10, 11)",
		"UPDATE c SET tenant = 2 WHERE id = 12", "UPDATE c SET tenant = 1 WHERE id = 12") // out and back in
}

// policyExpected is the source filtered and masked in SQL, the hash
// computed independently of rowpolicy.
func policyExpected(t *testing.T, my *sql.DB, key []byte) []string {
	var want []string
	for _, r := range testenv.MySQLRows(t, my, "SELECT id, tenant, email, CONCAT(REPEAT('*', CHAR_LENGTH(phone) - 4), RIGHT(phone, 4)), 'NULL', note FROM c WHERE tenant = 1 AND note NOT LIKE 'x%' ORDER BY id") {
		f := strings.Split(r, "|")
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte(f[2]))
		f[2] = hex.EncodeToString(mac.Sum(nil))
		want = append(want, strings.Join(f, "|"))
	}
	if len(want) != 15 {
		t.Fatalf("the workload leaves %d rows in the filter, want 15", len(want))
	}
	return want
}

// leakCheck fails the test when a seeded clear value of a masked column
// appears in text.
func leakCheck(t *testing.T) func(where, text string) {
	return func(where, text string) {
		t.Helper()
		if strings.Contains(strings.ToLower(text), "canary") || strings.Contains(text, "555-0100") {
			t.Errorf("a clear masked value in %s: %.300s", where, text)
		}
	}
}

// TestRowPolicyReplicateMySQLTarget is the same workload into the MariaDB
// target, every row through the binlog.
func TestRowPolicyReplicateMySQLTarget(t *testing.T) {
	env := testenv.GetFlavor(t, testenv.MariaDB)
	g := newMyRig(t, env, "rp_myt", "")
	key := []byte("test-mask-key-0123456789")
	g.exec(policyTable)
	for id := 1; id <= 30; id++ {
		policyInsert(g.exec, id)
	}
	policyUpdates(g.exec)
	var logs bytes.Buffer
	o := g.options()
	o.RowPolicy = testPolicy(t, g.db, key)
	o.Log = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	o.UntilCaughtUp = true
	if err := Run(context.Background(), o); err != nil {
		t.Fatalf("replicate: %v", err)
	}
	want := policyExpected(t, g.my, key)
	got := testenv.MySQLRows(t, g.tgt, fmt.Sprintf("SELECT id, tenant, email, phone, IFNULL(name, 'NULL'), note FROM `%s`.c ORDER BY id", g.tdb))
	sameRows(t, "target", got, want)
	leak := leakCheck(t)
	leak("the target table", strings.Join(got, "\n"))
	leak("the log", logs.String())
	for _, tbl := range testenv.MySQLRows(t, g.tgt, "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'sluice'") {
		leak("sluice."+tbl, strings.Join(testenv.MySQLRows(t, g.tgt, "SELECT * FROM sluice.`"+tbl+"`"), "\n"))
	}

	// verify refuses the stream (it compares and repairs in clear), by the
	// replicator's recorded settings, and a snapshot-only stream by its run.
	_, err := verify.Run(context.Background(), verify.Options{Source: g.src, Engine: mysink.NewEngine(g.dst, ""), Stream: g.stream, Log: testenv.Logger()})
	if exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), "does not apply --where/--mask") {
		t.Fatalf("verify of a filtered, masked stream on the MySQL target: want a refusal (exit 2), got %v", err)
	}
	refusedUnderAnyStream(t, g.my, g.db, g.stream, func(stream string, tables []*schema.Table) error {
		_, err := verify.Run(context.Background(), verify.Options{Source: g.src, Engine: mysink.NewEngine(g.dst, ""),
			Tables: tables, Stream: stream, Repair: true, Log: testenv.Logger()})
		return err
	})
	snapStream := g.stream + "-s"
	t.Cleanup(func() { _ = mysqlstate.Delete(context.Background(), g.tgt, snapStream) })
	sdb := g.tdb + "s"
	env.MySQLTarget(t).DropAtEnd(t, sdb)
	sdst := g.dst.WithDatabase(sdb)
	so := snapshot.Options{Source: g.src, Target: mysink.NewEngine(sdst, g.engine), Include: []string{g.db}, Stream: snapStream,
		Workers: 2, Log: testenv.Logger(), RowPolicy: testPolicy(t, g.db, key), DropExisting: true}
	if _, err := snapshot.Run(context.Background(), so); err != nil {
		t.Fatalf("snapshot into the MySQL target: %v", err)
	}
	got = testenv.MySQLRows(t, g.tgt, fmt.Sprintf("SELECT id, tenant, email, phone, IFNULL(name, 'NULL'), note FROM `%s`.c ORDER BY id", sdb))
	sameRows(t, "snapshot target", got, want)
	_, err = verify.Run(context.Background(), verify.Options{Source: g.src, Engine: mysink.NewEngine(sdst, ""), Stream: snapStream, Log: testenv.Logger()})
	if exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), "does not apply --where/--mask") {
		t.Fatalf("verify of a snapshot-only filtered, masked stream on the MySQL target: want a refusal (exit 2), got %v", err)
	}
}

// sameRows fails the test unless the target's rows are the wanted ones.
func sameRows(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%s (%d rows):\n%s\nwant (%d rows):\n%s", what, len(got), strings.Join(got, "\n"), len(want), strings.Join(want, "\n"))
	}
}
