package reverse

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/source/postgres/logical"
	"github.com/sluice-db/sluice/internal/source/postgres/lsnpos"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestReverseStartNeedsSlotOrFlag: a stream with neither a checkpoint nor
// a slot (no cut-over armed one) is refused with exit 2 naming
// --start-at-current-lsn, and creates nothing; with the flag it creates the
// slot and starts at PostgreSQL's current position: a write committed before
// it is left out (what the flag says), every write after it comes back.
func TestReverseStartNeedsSlotOrFlag(t *testing.T) {
	testenv.Flavors(t, testReverseStartNeedsSlotOrFlag)
}

func testReverseStartNeedsSlotOrFlag(t *testing.T, env *testenv.Env) {
	g := newRigOn(t, env, "rvstart", "CREATE TABLE s (id INT PRIMARY KEY, v INT)", "INSERT INTO s VALUES (1, 1)")
	g.snapshot()
	g.postgres("INSERT INTO s VALUES (2, 2)")
	o := g.options()
	o.StartAtCurrentLSN = false
	err := g.run(o)
	if exitcode.Of(err) != 2 || !strings.Contains(err.Error(), "--start-at-current-lsn") ||
		!strings.Contains(err.Error(), logical.SlotName(g.stream)) || !strings.Contains(err.Error(), "_reverse") {
		t.Fatalf("a start with neither checkpoint nor slot: exit %d, %v; want 2 naming the slot, the reverse stream and the flag", exitcode.Of(err), err)
	}
	ctx := context.Background()
	var slots int
	if err := g.pg.QueryRow(ctx, "SELECT count(*) FROM pg_replication_slots WHERE slot_name = $1", logical.SlotName(g.stream)).Scan(&slots); err != nil {
		t.Fatal(err)
	}
	if st, err := mysqlstate.Load(ctx, g.my, g.stream, lsnpos.Decode); err != nil || st != nil || slots != 0 {
		t.Fatalf("the refused start left state %+v (%v) and %d slots", st, err, slots)
	}
	g.catchUp() // --start-at-current-lsn
	g.postgres("INSERT INTO s VALUES (3, 3)", "UPDATE s SET v = 10 WHERE id = 1")
	g.catchUp()
	if got := strings.Join(g.rows("s", []string{"id", "v"}, "id"), " "); got != "31|3130 33|33" {
		t.Fatalf("rows %s, want id 1 updated to 10 and id 3 (id 2 was written before the start)", got)
	}
}

// TestReverseSlotOfAnotherCase: slot and publication names are lower case,
// so streams S and s share them; once S armed them, s is refused with exit
// 2 naming S, with or without --start-at-current-lsn, and S runs on.
func TestReverseSlotOfAnotherCase(t *testing.T) {
	g := newRig(t, "rvcase", "CREATE TABLE s (id INT PRIMARY KEY)")
	g.snapshot()
	g.stream = strings.ToUpper(g.stream)
	g.catchUp()
	lower := strings.ToLower(g.stream)
	t.Cleanup(func() { _ = mysqlstate.Delete(context.Background(), g.my, lower) })
	for _, flag := range []bool{false, true} {
		o := g.options()
		o.Stream, o.StartAtCurrentLSN = lower, flag
		err := g.run(o)
		if exitcode.Of(err) != 2 || !strings.Contains(err.Error(), "belong to stream "+g.stream) ||
			!strings.Contains(err.Error(), "--stream "+g.stream) {
			t.Fatalf("stream %s over %s's slot (flag %v): exit %d, %v", lower, g.stream, flag, exitcode.Of(err), err)
		}
	}
	if st, err := mysqlstate.Load(context.Background(), g.my, lower, lsnpos.Decode); err != nil || st != nil {
		t.Fatalf("the refused stream left state %+v (%v)", st, err)
	}
	g.postgres("INSERT INTO s VALUES (7)")
	g.catchUp()
	if got := strings.Join(g.rows("s", []string{"id"}, "id"), " "); got != "37" {
		t.Fatalf("rows %s after stream %s ran on, want id 7", got, g.stream)
	}
	var owner string
	c, err := pgx.Connect(context.Background(), g.env.PGAdminURL())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	if owner, err = logical.Owner(context.Background(), c, lower); err != nil || owner != g.stream {
		t.Fatalf("owner of %s: %q, %v", logical.PublicationName(lower), owner, err)
	}
}

// TestReverseSecondStreamIntoTheDatabase: a second reverse stream into the
// MySQL database another reverse stream writes is refused with exit 2 naming
// it (both would apply PostgreSQL's writes), before it creates a slot.
func TestReverseSecondStreamIntoTheDatabase(t *testing.T) {
	testenv.Flavors(t, testReverseSecondStreamIntoTheDatabase)
}

func testReverseSecondStreamIntoTheDatabase(t *testing.T, env *testenv.Env) {
	g := newRigOn(t, env, "rvtwo", "CREATE TABLE s (id INT PRIMARY KEY)")
	g.snapshot()
	g.catchUp()
	o := g.options()
	o.Stream = testenv.UniqueName("rv2")
	err := g.run(o)
	if exitcode.Of(err) != 2 || !strings.Contains(err.Error(), `stream "`+g.stream+`" writes s`) {
		t.Fatalf("a second reverse stream into %s: exit %d, %v", g.db, exitcode.Of(err), err)
	}
	var slots int
	if err := g.pg.QueryRow(context.Background(), "SELECT count(*) FROM pg_replication_slots WHERE slot_name = $1",
		logical.SlotName(o.Stream)).Scan(&slots); err != nil || slots != 0 {
		t.Fatalf("the refused stream left %d slots (%v)", slots, err)
	}
	g.postgres("INSERT INTO s VALUES (5)")
	g.catchUp()
	if got := strings.Join(g.rows("s", []string{"id"}, "id"), " "); got != "35" {
		t.Fatalf("rows %s after the first stream ran on, want id 5", got)
	}
}
