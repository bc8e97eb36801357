package verify

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/testenv"
	"github.com/sluice-db/sluice/internal/verify/verifydb"
)

// TestOnlineInFlightIsNotADifference is the contract a monitor relies on:
// under a write load, verify --online reports rows the source keeps
// changing as in flight (exit 3), never as differences (exit 1 used to be
// the answer for a keyless table being written, and for a hot row); with
// the writes stopped the same tables are equal (exit 0); and a row changed
// on the target alone is a difference (exit 1), not in flight.
func TestOnlineInFlightIsNotADifference(t *testing.T) {
	env := testenv.Get(t)
	s := newSide(t, env, "verify_inflight")
	bin := testenv.SluiceBinary(t)
	s.mustMy(t, `CREATE TABLE logs (k INT NOT NULL, v VARCHAR(40) NOT NULL);
		INSERT INTO logs SELECT seq % 50, concat('v', seq) FROM seq_1_to_2000;
		CREATE TABLE hot (id INT PRIMARY KEY, n INT NOT NULL);
		INSERT INTO hot SELECT seq, 0 FROM seq_1_to_100`)
	source, target, stream := s.env.SourceURL(s.db), s.env.TargetURL(), s.db
	common := []string{"--source", source, "--target", target, "--stream", stream, "--log-level", "warn"}
	t.Cleanup(func() {
		_, _ = s.pg.Exec(context.Background(), "DELETE FROM sluice.checkpoint WHERE stream = $1", stream)
		_, _ = s.pg.Exec(context.Background(), "DELETE FROM sluice.schema_history WHERE stream = $1", stream)
	})
	if out, code := runSluice(t, bin, 5*time.Minute, append([]string{"snapshot"}, common...)...); code != 0 {
		t.Fatalf("snapshot: exit %d\n%s", code, out)
	}
	repl := startBackground(t, bin, append([]string{"replicate"}, common...)...)
	time.Sleep(2 * time.Second)

	// The load: rows appended to the keyless table, and one row of hot
	// updated, without pause.
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ctx.Err() == nil; i++ {
			_, _ = s.my.ExecContext(ctx, "INSERT INTO logs VALUES (?, ?)", i%50, fmt.Sprintf("load%d", i))
			_, _ = s.my.ExecContext(ctx, "UPDATE hot SET n = n + 1 WHERE id = 7")
			time.Sleep(3 * time.Millisecond)
		}
	}()
	verifyArgs := append([]string{"verify", "--online=on", "--json", "--recheck", "3", "--recheck-wait", "30s"}, common...)
	out, code := runSluice(t, bin, 5*time.Minute, verifyArgs...)
	rep := parseReport(t, out)
	stop()
	wg.Wait()
	var inFlight int64
	for _, tr := range rep.Tables {
		if tr.Differences() != 0 {
			t.Errorf("under load: %s has %d differences (%s), want none: its rows are in flight", tr.Table, tr.Differences(), tr.Result)
		}
		inFlight += tr.InFlight
	}
	switch {
	case code == 3 && rep.Result == ResultInFlight && inFlight > 0:
	case code == 0 && rep.Result == ResultEqual && inFlight == 0:
		t.Logf("under load every re-check caught the replicator up: equal")
	default:
		t.Fatalf("under load: exit %d, result %s, %d in flight; want exit 3 (in flight) or 0\n%s\nreplicate:\n%s",
			code, rep.Result, inFlight, out, repl.out.String())
	}
	t.Logf("under load: exit %d, %d rows in flight", code, inFlight)

	// At rest: equal.
	out, code = runSluice(t, bin, 5*time.Minute, verifyArgs...)
	if rep := parseReport(t, out); code != 0 || rep.Result != ResultEqual {
		t.Fatalf("after the load: exit %d, %s\n%s", code, rep.Result, out)
	}
	// A change on the target alone: a difference, also online.
	s.mustPG(t, "DELETE FROM "+verifydb.QuotePG(s.pgSchm)+".logs WHERE v = 'v1'")
	s.mustPG(t, "UPDATE "+verifydb.QuotePG(s.pgSchm)+".hot SET n = -1 WHERE id = 3")
	out, code = runSluice(t, bin, 5*time.Minute, verifyArgs...)
	rep = parseReport(t, out)
	var only, differ, flight int64
	for _, tr := range rep.Tables {
		only += tr.OnlyInSource
		differ += tr.Differing
		flight += tr.InFlight
	}
	if code != 1 || rep.Result != ResultDifferences || only != 1 || differ != 1 || flight != 0 {
		t.Fatalf("after changing the target: exit %d, %s, %d only in the source, %d differing, %d in flight; want exit 1, 1, 1, 0\n%s",
			code, rep.Result, only, differ, flight, out)
	}
}
