package lsnpos

import (
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
)

func TestPositionRoundTrip(t *testing.T) {
	p := Position{LSN: 0x16_B374D848}
	for _, s := range []string{p.Encode(), p.Key()} {
		q, err := Decode(s)
		if err != nil || q.Compare(p) != 0 {
			t.Fatalf("Decode(%q) = %v, %v", s, q, err)
		}
	}
	if p.Encode() != `{"kind":"pg","lsn":"16/B374D848"}` {
		t.Fatalf("Encode = %s", p.Encode())
	}
	if q, err := Decode(""); q != nil || err != nil {
		t.Fatalf(`Decode("") = %v, %v`, q, err)
	}
	if (Position{LSN: 1}).Compare(Position{LSN: 2}) >= 0 || p.Compare(nil) <= 0 {
		t.Fatal("order")
	}
	// The two kinds tell each other apart.
	if _, err := Decode(binlogpos.Position{File: "mysql-bin.000001", Pos: 4}.Encode()); err == nil || !strings.Contains(err.Error(), "mysql") {
		t.Fatalf("a binlog position decoded as an LSN: %v", err)
	}
	if _, err := binlogpos.Decode(p.Encode()); err == nil || !strings.Contains(err.Error(), "pg") {
		t.Fatalf("an LSN decoded as a binlog position: %v", err)
	}
}
