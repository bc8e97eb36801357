package reverse

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/sluice-db/sluice/internal/source/postgres/logical"
	"github.com/sluice-db/sluice/internal/source/postgres/lsnpos"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestReverseAppliedRecordFirst: every MySQL transaction the reverse
// stream writes has its applied record (a row of database sluice) as its
// first row event in MySQL's binlog, which the forward binlog reader uses
// to leave the reverse stream's writes out (both directions at once).
func TestReverseAppliedRecordFirst(t *testing.T) {
	g := newRig(t, "rvfirst", "CREATE TABLE f (id INT PRIMARY KEY, v INT, pad VARCHAR(1000))")
	g.snapshot()
	g.catchUp()
	st := testenv.MySQLTexts(t, g.my, "SHOW MASTER STATUS")
	if len(st) == 0 {
		t.Skip("the MySQL server has no binlog")
	}
	file, pos := st[0][0].String, st[0][1].String
	g.postgres("INSERT INTO f SELECT i, i FROM generate_series(1, 50) i", "UPDATE f SET v = v + 1 WHERE id <= 10",
		"BEGIN; DELETE FROM f WHERE id = 1; INSERT INTO f VALUES (100, 1); COMMIT")
	for i := 2; i <= 20; i++ {
		g.postgres(fmt.Sprintf("UPDATE f SET v = 0 WHERE id = %d", i))
	}
	g.catchUp()
	// A large transaction (in fragments, BeginLarge) too.
	g.postgres("INSERT INTO f SELECT i, i, repeat('x', 1000) FROM generate_series(1000, 4000) i")
	o := g.options()
	o.MaxTxnMemory = 16 << 20
	if err := g.run(o); err != nil {
		t.Fatal(err)
	}
	events := testenv.MySQLTexts(t, g.my, "SHOW BINLOG EVENTS IN '"+file+"' FROM "+pos)
	ours, firsts := 0, []string{}
	var first string
	touches := false
	// Annotate_rows events (MariaDB's statement text beside the rows) are
	// turned off for the sink's sessions (mysink skipAnnotate).
	annotated, annotations := 0, 0
	for _, e := range events {
		typ, info := e[2].String, e[5].String
		switch {
		case typ == "Gtid" || (typ == "Query" && info == "BEGIN"):
			first, touches, annotations = "", false, 0
		case typ == "Annotate_rows":
			annotations++
		case typ == "Table_map":
			if first == "" {
				first = info
			}
			if strings.Contains(info, "("+g.db+".f)") || strings.Contains(info, "(`"+g.db+"`.`f`)") {
				touches = true
			}
		case typ == "Xid" || (typ == "Query" && info == "COMMIT"):
			if touches {
				ours++
				annotated += annotations
				if !strings.Contains(first, "sluice.applied") && !strings.Contains(first, "`sluice`.`applied`") {
					firsts = append(firsts, first)
				}
			}
		}
	}
	if ours == 0 {
		t.Fatalf("no transaction of the reverse stream found in the binlog from %s:%s (%d events)", file, pos, len(events))
	}
	if len(firsts) > 0 {
		t.Fatalf("%d of %d reverse transactions do not start with sluice.applied: first table maps %q", len(firsts), ours, firsts)
	}
	if ours < 2 {
		t.Fatalf("%d reverse transactions found, want the small ones' and the large one", ours)
	}
	if annotated > 0 {
		t.Fatalf("%d Annotate_rows events in the %d reverse transactions: the sink's sessions should not annotate", annotated, ours)
	}
	t.Logf("%d reverse transactions, each starting with its applied record", ours)
}

// TestReverseIdleSlotMoves: with nothing to carry back, the slot's
// confirmed position still follows the server's WAL (written to other
// tables), so an idle reverse stream does not keep WAL; and it never
// passes MySQL's checkpoint.
func TestReverseIdleSlotMoves(t *testing.T) {
	g := newRig(t, "rvidle", "CREATE TABLE i (id INT PRIMARY KEY)")
	g.snapshot()
	g.catchUp()
	g.postgres("CREATE TABLE scratch (id int)", "INSERT INTO scratch SELECT generate_series(1, 1000)")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := g.options()
	o.UntilCaughtUp, o.IdleAfter = false, time.Second
	reg := prometheus.NewRegistry()
	o.Registry = reg
	done := make(chan error, 1)
	go func() { done <- Run(ctx, o) }()
	var after string
	if err := g.pg.QueryRow(ctx, "SELECT pg_current_wal_lsn()::text").Scan(&after); err != nil {
		t.Fatal(err)
	}
	want, _ := pglogrepl.ParseLSN(after)
	c, err := pgx.Connect(ctx, g.env.PGAdminURL())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	// Wait for both the slot and the applied position the metrics report:
	// the slot's confirmation and the metrics' registration are separate
	// steps of the run, and the slot alone may be seen first.
	gather := func() map[string]float64 {
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]float64{}
		for _, mf := range mfs {
			seen[mf.GetName()] = mf.GetMetric()[0].GetGauge().GetValue() + mf.GetMetric()[0].GetCounter().GetValue()
		}
		return seen
	}
	var seen map[string]float64
	deadline := time.Now().Add(30 * time.Second)
	for {
		var flush string
		if err := c.QueryRow(ctx, "SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = $1",
			logical.SlotName(g.stream)).Scan(&flush); err != nil {
			t.Fatal(err)
		}
		got, _ := pglogrepl.ParseLSN(flush)
		seen = gather()
		if got >= want && seen["sluice_reverse_applied_lsn"] >= float64(want) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the idle slot stayed at %s (applied_lsn metric %v), the server's WAL is at %s", flush, seen["sluice_reverse_applied_lsn"], after)
		}
		time.Sleep(300 * time.Millisecond)
	}
	for _, name := range []string{"sluice_reverse_applied_lsn", "sluice_reverse_lag_seconds", "sluice_reverse_applied_transactions_total"} {
		if _, ok := seen[name]; !ok {
			t.Errorf("metric %s missing (%v)", name, seen)
		}
	}
	if seen["sluice_reverse_applied_lsn"] < float64(want) {
		t.Errorf("sluice_reverse_applied_lsn %v, want at least %v", seen["sluice_reverse_applied_lsn"], float64(want))
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("reverse: %v", err)
	}
	var cp string
	if err := g.my.QueryRow("SELECT position FROM sluice.checkpoint WHERE stream = ?", g.stream).Scan(&cp); err != nil {
		t.Fatal(err)
	}
	var flush string
	if err := c.QueryRow(context.Background(), "SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = $1",
		logical.SlotName(g.stream)).Scan(&flush); err != nil {
		t.Fatal(err)
	}
	cpos, err := lsnpos.Parse(cp)
	if err != nil {
		t.Fatal(err)
	}
	if f, _ := pglogrepl.ParseLSN(flush); f > cpos.LSN {
		t.Fatalf("the slot is confirmed at %s, past MySQL's checkpoint %s", flush, cpos.LSN)
	}
}
