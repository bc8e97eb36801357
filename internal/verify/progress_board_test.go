package verify

import (
	"testing"

	"github.com/sluice-db/sluice/internal/board"
	"github.com/sluice-db/sluice/internal/verify/verifydb"
)

// TestBoardProgress: the board gets each table's counts and the share of
// source bytes compared, never the differing rows.
func TestBoardProgress(t *testing.T) {
	b := board.New(board.Options{Command: "verify"})
	p := BoardProgress{Inner: noProgress{}, Card: b.Verify("shop")}
	p.Start(2, 200)
	p.Advance(50)
	p.TableDone(TableReport{Table: "shop.t", Result: ResultDifferences, Rows: 10, OnlyInTarget: 1, Differing: 2, Rechecked: 4,
		Repaired: 5, Seconds: 1.5, Diffs: []RowDiff{{Kind: verifydb.Differs, Key: []KeyValue{{}}}},
		PolicyChanges: []verifydb.PolicyChange{{Column: "d", Count: 2}, {Column: "e", Count: 3}}})
	st := b.Status().Verifies
	if len(st) != 1 || st[0].Name != "shop" || st[0].Tables != 2 || st[0].TablesDone != 1 || st[0].Percent != 25 || st[0].Result != "running" {
		t.Fatalf("verify status: %+v", st)
	}
	want := board.VerifyTable{Table: "shop.t", Result: ResultDifferences, Rows: 10, OnlyInTarget: 1, Differing: 2, Rechecked: 4,
		Repaired: 5, PolicyRows: 5, Seconds: 1.5}
	if got := st[0].Results[0]; got != want {
		t.Fatalf("table result\n got %+v\nwant %+v", got, want)
	}
	b.Verify("shop").Finish(ResultDifferences)
	if st := b.Status().Verifies[0]; st.Result != ResultDifferences || st.Percent != 100 {
		t.Fatalf("finished: %+v", st)
	}
}
