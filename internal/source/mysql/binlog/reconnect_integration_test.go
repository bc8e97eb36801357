package binlog

import (
	"fmt"
	"github.com/sluice-db/sluice/internal/testenv"
	"strconv"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/model"
)

// TestStreamReconnectsWithoutLossOrDuplicates cuts the network twice: once
// between transactions and once in the middle of a transaction that is
// being emitted in fragments. Every row must arrive exactly once, the
// fragments of the large transaction must share one Seq, and Seq must grow.
func TestStreamReconnectsWithoutLossOrDuplicates(t *testing.T) {
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		for _, by := range []string{"gtid", "file"} {
			t.Run("by "+by, func(t *testing.T) {
				if env.IsMySQL() && by == "file" {
					t.Skip("MySQL with gtid_mode=ON (the sandbox's) always positions by GTID")
				}
				testReconnects(t, env, by == "gtid")
			})
		}
	})
}

func testReconnects(t *testing.T, env *testenv.Env, byGTID bool) {
	f := newFixtureOn(t, env, "bl_reconnect", `CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(1000))`)
	proxy := newCutProxy(t, f.src.Addr())
	start := f.position()
	cfg := f.config(start, ignoreOthers(f.db))
	cfg.Source.Port = proxy.port()
	cfg.FragmentBytes = 64 << 10
	cfg.Info.GTIDStrict = byGTID // MariaDB positions by GTID only in strict mode
	if st, err := New(cfg); err != nil || st.byGTID() != byGTID {
		t.Fatalf("positioning by GTID: %v (%v)", st.byGTID(), err)
	}
	r := startStreamCap(t, cfg, 1)

	for i := 1; i <= 20; i++ {
		f.exec(fmt.Sprintf("INSERT INTO t VALUES (%d, 'small')", i))
	}
	f.exec("INSERT INTO t SELECT seq, REPEAT('x', 1000) FROM seq_1001_to_21000")
	for i := 30001; i <= 30020; i++ {
		f.exec(fmt.Sprintf("INSERT INTO t VALUES (%d, 'small')", i))
	}
	want := 20 + 20000 + 20

	seen := map[int]int{}
	var lastSeq uint64
	var bigSeq uint64
	bigFragments, smallTxns := 0, 0
	deadline := time.After(60 * time.Second)
	for len(seen) < want {
		var txn *model.Txn
		select {
		case txn = <-r.out:
		case <-deadline:
			t.Fatalf("saw %d of %d rows before the deadline", len(seen), want)
		}
		if txn == nil {
			t.Fatalf("stream ended: %v", r.stop())
		}
		if len(txn.Changes) == 0 {
			continue
		}
		switch {
		case txn.Seq == bigSeq:
			bigFragments++
		case txn.Seq <= lastSeq:
			t.Fatalf("seq %d after %d", txn.Seq, lastSeq)
		case len(txn.Changes) > 1:
			bigSeq = txn.Seq
			bigFragments = 1
		default:
			smallTxns++
		}
		lastSeq = txn.Seq
		if txn.Partial != (txn.Seq == bigSeq && len(seen)+len(txn.Changes) < 20+20000) {
			t.Errorf("seq %d partial=%v with %d rows seen", txn.Seq, txn.Partial, len(seen)+len(txn.Changes))
		}
		if !txn.Partial && endOf(txn).IsZero() {
			t.Errorf("seq %d: complete transaction without End", txn.Seq)
		}
		for _, c := range txn.Changes {
			id, _ := strconv.Atoi(fmt.Sprint(c.After[0]))
			seen[id]++
			if seen[id] > 1 {
				t.Fatalf("row %d delivered twice", id)
			}
		}
		if smallTxns == 10 && proxy.cuts == 0 {
			proxy.cut() // between transactions (or, if the stream read ahead, inside the large one)
		}
		if bigFragments > 0 && proxy.cuts == 1 && r.stream.Stats().Sessions.Load() == 2 {
			// The second session is emitting fragments: the large
			// transaction is half read, as the channel holds one Txn.
			proxy.cut()
		}
	}
	if proxy.cuts != 2 {
		t.Fatalf("cut the network %d times, want 2", proxy.cuts)
	}
	// The stream may still be reading buffered events of the last cut.
	for i := 0; i < 50 && r.stream.Stats().Reconnect.Load() < 2; i++ {
		time.Sleep(100 * time.Millisecond)
	}
	if n := r.stream.Stats().Reconnect.Load(); n < 2 {
		t.Errorf("%d reconnects, want at least 2", n)
	}
	if n := r.stream.Stats().Resumed.Load(); n < 1 {
		t.Errorf("the large transaction was never read again after a cut inside it")
	}
	if bigFragments < 10 {
		t.Errorf("the 20 MB transaction came in %d fragments of at most 64 KiB", bigFragments)
	}
}
