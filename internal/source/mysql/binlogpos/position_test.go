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
