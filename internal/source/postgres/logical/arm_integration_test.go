package logical

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestArmAndDisarm: Arm creates the publication for exactly the tables,
// the pgoutput slot, and REPLICA IDENTITY FULL on the keyless table; a
// second Arm keeps the slot and sets the publication's tables; the
// publication records its stream (Owner); Disarm drops both, and again is
// no error.
func TestArmAndDisarm(t *testing.T) {
	env := testenv.Get(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, env.TargetURL()) // the sluice role (REPLICATION)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	sch := testenv.UniqueName("arm")
	stream := testenv.UniqueName("Arm-Test")
	q := pgx.Identifier{sch}.Sanitize()
	for _, s := range []string{"CREATE SCHEMA " + q, "CREATE TABLE " + q + ".k (id int PRIMARY KEY)",
		"CREATE TABLE " + q + ".n (v int)", "CREATE TABLE " + q + ".other (id int PRIMARY KEY)"} {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		_ = Disarm(ctx, conn, stream)
		_, _ = conn.Exec(ctx, "DROP SCHEMA "+q+" CASCADE")
	})
	slot := SlotName(stream)
	if slot != PublicationName(stream) || slot[:7] != "sluice_" || slot != "sluice_"+sanitized(stream) {
		t.Fatalf("names: slot %s, publication %s", slot, PublicationName(stream))
	}
	a, err := Arm(ctx, conn, stream, []Table{{Schema: sch, Name: "k"}, {Schema: sch, Name: "n"}})
	if err != nil {
		t.Fatal(err)
	}
	if !a.Created || a.ConsistentLSN == "" {
		t.Fatalf("first Arm: %+v", a)
	}
	// The publication names its stream exactly (the object names fold case
	// and punctuation: "Arm-Test…" and "arm_test…" share them).
	for _, s := range []string{stream, sanitized(stream)} {
		if owner, err := Owner(ctx, conn, s); err != nil || owner != stream {
			t.Fatalf("Owner(%s) = %q, %v; want %s", s, owner, err, stream)
		}
	}
	pubTables := func() []string {
		rows, err := conn.Query(ctx, "SELECT tablename::text FROM pg_publication_tables WHERE pubname = $1 ORDER BY 1", a.Publication)
		if err != nil {
			t.Fatal(err)
		}
		names, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		return names
	}
	if got := pubTables(); !slices.Equal(got, []string{"k", "n"}) {
		t.Fatalf("publication tables %v", got)
	}
	var plugin string
	if err := conn.QueryRow(ctx, "SELECT plugin FROM pg_replication_slots WHERE slot_name = $1", slot).Scan(&plugin); err != nil || plugin != "pgoutput" {
		t.Fatalf("slot plugin %q: %v", plugin, err)
	}
	ident := func(table string) string {
		var r string
		if err := conn.QueryRow(ctx, "SELECT relreplident::text FROM pg_class WHERE oid = $1::regclass", sch+"."+table).Scan(&r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	if ident("n") != "f" || ident("k") != "f" {
		t.Fatalf("replica identity: n %s, k %s (want f for both: keyed tables need the whole old row too)", ident("n"), ident("k"))
	}
	b, err := Arm(ctx, conn, stream, []Table{{Schema: sch, Name: "other"}})
	if err != nil {
		t.Fatal(err)
	}
	if b.Created || b.ConsistentLSN != "" {
		t.Fatalf("second Arm recreated the slot: %+v", b)
	}
	if got := pubTables(); !slices.Equal(got, []string{"other"}) {
		t.Fatalf("publication tables after the second Arm %v", got)
	}
	if err := Disarm(ctx, conn, stream); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := conn.QueryRow(ctx, "SELECT (SELECT count(*) FROM pg_replication_slots WHERE slot_name = $1) + (SELECT count(*) FROM pg_publication WHERE pubname = $1)",
		slot).Scan(&n); err != nil || n != 0 {
		t.Fatalf("after Disarm %d objects left (%v)", n, err)
	}
	if err := Disarm(ctx, conn, stream); err != nil {
		t.Fatalf("second Disarm: %v", err)
	}
	if owner, err := Owner(ctx, conn, stream); err != nil || owner != "" {
		t.Fatalf("Owner after Disarm = %q, %v", owner, err)
	}
	if _, err := Arm(ctx, conn, stream, nil); err == nil {
		t.Fatal("Arm without tables succeeded")
	}
}

func sanitized(s string) string {
	b := []byte{}
	for _, r := range []byte(s) {
		switch {
		case r >= 'A' && r <= 'Z':
			b = append(b, r+'a'-'A')
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_':
			b = append(b, r)
		default:
			b = append(b, '_')
		}
	}
	return string(b)
}

// TestDisarmWaitsForAnEndingStream: a slot still active (a reverse stream's
// walsender ending) is dropped once it is released, instead of Disarm
// failing and leaving slot and publication behind (retaining WAL).
func TestDisarmWaitsForAnEndingStream(t *testing.T) {
	env := testenv.Get(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, env.TargetURL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	sch, stream := testenv.UniqueName("disarm"), testenv.UniqueName("disarm")
	q := pgx.Identifier{sch}.Sanitize()
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+q+"; CREATE TABLE "+q+".k (id int PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = Disarm(ctx, conn, stream)
		_, _ = conn.Exec(ctx, "DROP SCHEMA "+q+" CASCADE")
	})
	if _, err := Arm(ctx, conn, stream, []Table{{Schema: sch, Name: "k"}}); err != nil {
		t.Fatal(err)
	}
	cfg, err := pgconn.ParseConfig(env.TargetURL())
	if err != nil {
		t.Fatal(err)
	}
	cfg.RuntimeParams["replication"] = "database"
	repl, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := pglogrepl.StartReplication(ctx, repl, SlotName(stream), 0, pglogrepl.StartReplicationOptions{
		Mode: pglogrepl.LogicalReplication, PluginArgs: []string{"proto_version '1'", "publication_names '" + PublicationName(stream) + "'"}}); err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(500*time.Millisecond, func() { _ = repl.Close(context.Background()) })
	if err := Disarm(ctx, conn, stream); err != nil {
		t.Fatalf("Disarm while the slot's stream ends: %v", err)
	}
	var n int
	if err := conn.QueryRow(ctx, "SELECT (SELECT count(*) FROM pg_replication_slots WHERE slot_name = $1) + (SELECT count(*) FROM pg_publication WHERE pubname = $1)",
		SlotName(stream)).Scan(&n); err != nil || n != 0 {
		t.Fatalf("after Disarm %d objects left (%v)", n, err)
	}
}
