package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/cutover"
	"github.com/sluice-db/sluice/internal/source/postgres/logical"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestStatusWarnsAboutAnInactiveSlot: the way back's slot, armed as cutover
// arms it and never read (a fallback, a decommissioned stream), keeps the
// WAL written since; status names it with what it retains and, over
// --warn-slot-wal, warns naming sluice drop; after that drop it is gone.
func TestStatusWarnsAboutAnInactiveSlot(t *testing.T) {
	env := testenv.Get(t)
	ctx := context.Background()
	db := env.NewDatabase(t, "cli_slotwal")
	if _, err := env.MySQL(t, db).Exec("CREATE TABLE t (id INT PRIMARY KEY, pad VARCHAR(100)); INSERT INTO t VALUES (1, 'a')"); err != nil {
		t.Fatal(err)
	}
	stream := testenv.UniqueName("slotwal")
	forgetStream(t, env, stream)
	if code, _, errOut := runCLI(ctx, "snapshot", "--source", env.SourceURL(db), "--target", env.TargetURL(), "--stream", stream, "--log-level", "error"); code != 0 {
		t.Fatalf("snapshot: exit %d\n%s", code, errOut)
	}
	rev := cutover.DefaultReverseStream(stream)
	slot := logical.SlotName(rev)
	conn, err := pgx.Connect(ctx, env.TargetURL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	t.Cleanup(func() { _ = logical.Disarm(context.Background(), conn, rev) })
	if _, err := logical.Arm(ctx, conn, rev, []logical.Table{{Schema: db, Name: "t"}}); err != nil {
		t.Fatal(err)
	}
	// WAL written after the slot: what it keeps, at least what this insert wrote.
	var before string
	if err := conn.QueryRow(ctx, `SELECT pg_current_wal_insert_lsn()::text`).Scan(&before); err != nil {
		t.Fatal(err)
	}
	var wrote int64
	if _, err := conn.Exec(ctx, `INSERT INTO `+pgx.Identifier{db, "t"}.Sanitize()+` SELECT g, repeat('x', 100) FROM generate_series(2, 3000) g`); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, `SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1::pg_lsn)::bigint`, before).Scan(&wrote); err != nil {
		t.Fatal(err)
	}
	t.Logf("the insert wrote %d bytes of WAL", wrote)
	status := func(args ...string) (string, statusJSON) {
		t.Helper()
		base := []string{"status", "--target", env.TargetURL(), "--stream", stream, "--log-level", "error"}
		code, text, errOut := runCLI(ctx, append(base, args...)...)
		if code != 0 {
			t.Fatalf("status %v: exit %d\n%s", args, code, errOut)
		}
		code, out, errOut := runCLI(ctx, append(append(base, args...), "--json")...)
		var st statusJSON
		if code != 0 || json.Unmarshal([]byte(out), &st) != nil {
			t.Fatalf("status --json %v: exit %d\n%s%s", args, code, out, errOut)
		}
		return text, st
	}
	text, st := status("--warn-slot-wal", "1KB")
	if len(st.Slots) != 1 || st.Slots[0].Name != slot || st.Slots[0].Active || st.Slots[0].RetainedBytes == nil || *st.Slots[0].RetainedBytes < wrote || wrote < 100000 {
		var restart, flushed, now string
		_ = conn.QueryRow(ctx, `SELECT coalesce(restart_lsn::text, 'null'), coalesce(confirmed_flush_lsn::text, 'null'), pg_current_wal_insert_lsn()::text
			FROM pg_replication_slots WHERE slot_name = $1`, slot).Scan(&restart, &flushed, &now)
		t.Fatalf("status --json slots: %s, want %s inactive retaining at least the %d bytes of WAL the insert wrote from %s (restart_lsn %s, confirmed_flush_lsn %s, now %s)",
			slotsString(st.Slots), slot, wrote, before, restart, flushed, now)
	}
	for _, want := range []string{"slot:            " + slot + " (inactive, retains ", "WARNING:         replication slot " + slot + " (stream " + rev + ") is inactive and retains ",
		"over --warn-slot-wal 1KiB", "sluice drop --target postgres://", "--stream " + rev} {
		if !strings.Contains(text, want) {
			t.Errorf("status --warn-slot-wal 1KB lacks %q:\n%s", want, text)
		}
	}
	if len(st.Warnings) != 1 || !strings.Contains(st.Warnings[0], slot) {
		t.Errorf("status --json warnings: %v", st.Warnings)
	}
	if text, st = status(); strings.Contains(text, "WARNING") || len(st.Warnings) != 0 || !strings.Contains(text, "slot:            "+slot) {
		t.Errorf("status under the default 1GiB threshold warns, or does not list the slot:\n%s", text)
	}
	if code, out, errOut := runCLI(ctx, "drop", "--target", env.TargetURL(), "--stream", rev, "--yes"); code != 0 ||
		!strings.Contains(out, "dropped target postgres://") || !strings.Contains(out, "replication slot "+slot) {
		t.Fatalf("drop of the way back: exit %d\n%s%s", code, out, errOut)
	}
	if text, st = status("--warn-slot-wal", "1KB"); strings.Contains(text, "WARNING") || len(st.Slots) != 0 {
		t.Errorf("status after the drop still lists the slot:\n%s", text)
	}
}

// statusJSON is the part of status --json this test reads.
type statusJSON struct {
	Slots    []logical.Slot `json:"slots"`
	Warnings []string       `json:"warnings"`
}

// slotsString shows the slots with their retained bytes (not pointers).
func slotsString(slots []logical.Slot) string {
	var b strings.Builder
	for _, s := range slots {
		r := "nil"
		if s.RetainedBytes != nil {
			r = fmt.Sprint(*s.RetainedBytes)
		}
		fmt.Fprintf(&b, "[%s active=%t retained=%s]", s.Name, s.Active, r)
	}
	return b.String()
}
