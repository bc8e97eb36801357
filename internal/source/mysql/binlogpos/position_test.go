package binlogpos

import (
	"testing"

	"github.com/sluice-db/sluice/internal/model"
)

func TestEncodeDecodeRoundTrip(t *testing.T) {
	for _, p := range []Position{
		{File: "mysql-bin.000042", Pos: 1234, GTIDSet: "0-1-42,1-2-7", Flavor: "mariadb"},
		{File: "binlog.000007", Pos: 4, GTIDSet: "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5", Flavor: "mysql"},
		{GTIDSet: "0-1-9", Flavor: "mariadb"},
		{File: "weird:name.000001", Pos: 99},
	} {
		got, err := Decode(p.Encode())
		if err != nil {
			t.Fatalf("%+v: %v", p, err)
		}
		if got != model.Position(p) {
			t.Errorf("Decode(Encode(%+v)) = %+v", p, got)
		}
	}
}

func TestKeyIdentifiesTheBoundaryAndDecodes(t *testing.T) {
	a := Position{File: "mysql-bin.000042", Pos: 1234, GTIDSet: "0-1-42", Flavor: "mariadb"}
	b := Position{File: "mysql-bin.000042", Pos: 1234, GTIDSet: "0-1-42,1-1-1"}
	if a.Key() != b.Key() || a.Key() != "mysql-bin.000042:1234" {
		t.Fatalf("keys %q %q", a.Key(), b.Key())
	}
	got, err := Decode(a.Key())
	if err != nil || got.Compare(a) != 0 {
		t.Fatalf("Decode(Key) = %v, %v", got, err)
	}
}

func TestCompareOrdersByFileNumberThenOffset(t *testing.T) {
	ps := []Position{
		{File: "b.000009", Pos: 500},
		{File: "b.000010", Pos: 4},
		{File: "b.000010", Pos: 120},
		{File: "b.999999", Pos: 4},
		{File: "b.1000000", Pos: 4},
	}
	for i := range ps {
		for j := range ps {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := ps[i].Compare(ps[j]); got != want {
				t.Errorf("%s vs %s: %d, want %d", ps[i], ps[j], got, want)
			}
		}
		if ps[i].Compare(nil) != 1 {
			t.Errorf("%s vs nil must be later", ps[i])
		}
	}
}

func TestDecodeRefusesOtherKindsAndGarbage(t *testing.T) {
	for _, s := range []string{`{"kind":"postgres","lsn":"0/16B3748"}`, "no-offset", "f:-1", "{broken"} {
		if p, err := Decode(s); err == nil {
			t.Errorf("Decode(%q) = %v, want an error", s, p)
		}
	}
	if p, err := Decode(""); err != nil || p != nil {
		t.Errorf(`Decode("") = %v, %v; want nil, nil`, p, err)
	}
	if _, err := From(fakePos{}); err == nil {
		t.Error("From(another kind) must fail")
	}
	if p, err := From(nil); err != nil || !p.IsZero() {
		t.Errorf("From(nil) = %v, %v", p, err)
	}
}

type fakePos struct{}

func (fakePos) Compare(model.Position) int { return 0 }
func (fakePos) Key() string                { return "x" }
func (fakePos) Encode() string             { return "x" }
func (fakePos) String() string             { return "x" }

// TestCompareAcrossServers: positions on two servers (a source failover)
// are ordered by their GTID sets, whatever their file names say; on one
// server (or without GTIDs) file:pos orders them as before.
func TestCompareAcrossServers(t *testing.T) {
	old := Position{File: "primary-bin.000009", Pos: 5000, GTIDSet: "0-1-100", Flavor: "mariadb", ServerID: 1}
	for _, c := range []struct {
		p    Position
		want int
	}{
		{Position{File: "replica-bin.000002", Pos: 300, GTIDSet: "0-1-101", Flavor: "mariadb", ServerID: 2}, 1},
		{Position{File: "replica-bin.000002", Pos: 300, GTIDSet: "0-2-101", Flavor: "mariadb", ServerID: 2}, 1},
		{Position{File: "replica-bin.000012", Pos: 300, GTIDSet: "0-1-99", Flavor: "mariadb", ServerID: 2}, -1},
		{Position{File: "replica-bin.000002", Pos: 300, GTIDSet: "0-1-100", Flavor: "mariadb", ServerID: 2}, 0},
		// one server: file:pos, as before
		{Position{File: "primary-bin.000010", Pos: 4, GTIDSet: "0-1-99", Flavor: "mariadb", ServerID: 1}, 1},
		// a key read back from sluice.applied has no GTID set: file:pos
		{Position{File: "primary-bin.000008", Pos: 4}, -1},
	} {
		if got := c.p.Compare(old); got != c.want {
			t.Errorf("%+v vs %+v: %d, want %d", c.p, old, got, c.want)
		}
		if got := old.Compare(c.p); got != -c.want {
			t.Errorf("%+v vs %+v: %d, want %d", old, c.p, got, -c.want)
		}
	}
	const u1, u2 = "3e11fa47-71ca-11e1-9e33-c80aa9429562", "4e11fa47-71ca-11e1-9e33-c80aa9429562"
	a := Position{File: "binlog.000050", Pos: 9, GTIDSet: u1 + ":1-42", Flavor: "mysql", ServerID: 1}
	b := Position{File: "binlog.000001", Pos: 9, GTIDSet: u1 + ":1-42," + u2 + ":1-3", Flavor: "mysql", ServerID: 2}
	if a.Compare(b) != -1 || b.Compare(a) != 1 {
		t.Errorf("MySQL sets: %d %d", a.Compare(b), b.Compare(a))
	}
}
