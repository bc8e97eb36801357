package verify

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/typemap"
	"github.com/sluice-db/sluice/internal/verify/verifydb"
)

func TestDisplay(t *testing.T) {
	long := strings.Repeat("é", 100)
	cases := []struct {
		kind typemap.Kind
		norm string
		null bool
		want string
	}{
		{typemap.KindText, "5:ab  c", false, `"ab  c"`},
		{typemap.KindText, "0:", false, `""`},
		{typemap.KindText, "", true, "NULL"},
		{typemap.KindText, "200:" + long, false, `"` + strings.Repeat("é", verifydb.ShowLen) + `"…(200 bytes)`},
		{typemap.KindBinary, "00ff", false, "0x00ff"},
		{typemap.KindFloat64, "0.1e1", false, "1"},
		{typemap.KindFloat64, "-0.30000000000000004e0", false, "-0.30000000000000004"},
		{typemap.KindFloat32, "0", false, "0"},
		{typemap.KindTime, "-3020399000000", false, "-838:59:59"},
		{typemap.KindTime, "-500000", false, "-00:00:00.5"},
		{typemap.KindTime, "45296000001", false, "12:34:56.000001"},
		{typemap.KindDateTime, "2020-01-02 03:04:05.123456", false, "2020-01-02 03:04:05.123456"},
	}
	for _, c := range cases {
		if got := verifydb.Display(c.kind, []byte(c.norm), c.null); got != c.want {
			t.Errorf("display(%s, %q) = %q, want %q", c.kind, c.norm, got, c.want)
		}
	}
}

func TestSubstitute(t *testing.T) {
	got := verifydb.Substitute("UPDATE t SET a = $1, b = $2 WHERE id = $10::text::int -- $x $0",
		[]string{"'$2'", "'b'", "3", "4", "5", "6", "7", "8", "9", "'10'"})
	want := "UPDATE t SET a = '$2', b = 'b' WHERE id = '10'::text::int -- $x $0"
	if got != want {
		t.Errorf("substitute:\n got %s\nwant %s", got, want)
	}
	if q := verifydb.QuoteLiteral("it's"); q != "'it''s'" {
		t.Errorf("quoteLiteral = %s", q)
	}
}

func TestMergeGroups(t *testing.T) {
	src := []verifydb.HashCount{{Hash: 1, Count: 2}, {Hash: 3, Count: 1}, {Hash: 5, Count: 1}}
	tgt := []verifydb.HashCount{{Hash: 1, Count: 1}, {Hash: 2, Count: 1}, {Hash: 5, Count: 1}, {Hash: 9, Count: 4}}
	got := mergeGroups(src, tgt)
	want := []MultisetDiff{
		{RowHash: "000000000000001", SourceCount: 2, TargetCount: 1},
		{RowHash: "000000000000002", TargetCount: 1},
		{RowHash: "000000000000003", SourceCount: 1},
		{RowHash: "000000000000009", TargetCount: 4},
	}
	if len(got) != len(want) {
		t.Fatalf("mergeGroups = %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("diff %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestHashSum(t *testing.T) {
	var h verifydb.HashSum
	max60 := uint64(1)<<60 - 1
	for range 20 {
		h.Add(max60)
	}
	// 20 * (2^60 - 1) overflows 64 bits.
	if a := h.Agg(); a.Count != 20 || a.Sum != "23058430092136939500" {
		t.Errorf("hashSum = %+v", a)
	}
	if v, err := verifydb.First60Hex([]byte("900150983cd24fb0d6963f7d28e17f72")); err != nil || v != 0x900150983cd24fb {
		t.Errorf("first60Hex(md5 abc) = %x, %v", v, err)
	}
}

func TestThrottle(t *testing.T) {
	th := newThrottle(1e6) // 1 MB/s
	start := time.Now()
	for range 4 {
		if err := th.wait(context.Background(), 100_000); err != nil {
			t.Fatal(err)
		}
	}
	if d := time.Since(start); d < 350*time.Millisecond || d > 2*time.Second {
		t.Errorf("4 x 100 kB at 1 MB/s took %v, want about 0.4 s", d)
	}
	if err := newThrottle(0).wait(context.Background(), 1<<40); err != nil {
		t.Error(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := newThrottle(1).wait(ctx, 1000); err == nil {
		t.Error("cancelled wait returned nil")
	}
}

func TestDenseKeyChunks(t *testing.T) {
	d := &verifydb.DenseKey{Min: 1, Max: 25, PerRow: 1}
	var bounds []string
	var lo verifydb.KeyBound
	for {
		hi := d.Next(lo, 10)
		if hi == nil {
			bounds = append(bounds, "∞")
			break
		}
		bounds = append(bounds, string(hi[0]))
		lo = hi
	}
	// (-∞,10] (10,20] (20,∞): every key, and target rows outside 1..25, in a chunk.
	if got := strings.Join(bounds, " "); got != "10 20 ∞" {
		t.Errorf("bounds = %s", got)
	}
	if hi := (&verifydb.DenseKey{Min: -5, Max: -5, PerRow: 1}).Next(nil, 1000); hi != nil {
		t.Errorf("one-row table: bound %s, want one open chunk", hi)
	}
}
