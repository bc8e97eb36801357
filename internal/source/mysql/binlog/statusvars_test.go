package binlog

import (
	"encoding/hex"
	"testing"
)

func TestClientCollation(t *testing.T) {
	charset := []byte{qCharset, 45, 0, 224, 0, 8, 0} // utf8mb4_general_ci, utf8mb4_unicode_ci, latin1_swedish_ci
	cases := []struct {
		name string
		vars []byte
		id   uint16
		ok   bool
	}{
		{"MariaDB DDL", append([]byte{qFlags2, 0, 0, 0, 0, qSQLMode, 1, 2, 3, 4, 5, 6, 7, 8,
			qCatalogNZ, 3, 's', 't', 'd', qAutoIncrement, 1, 0, 1, 0}, charset...), 45, true},
		{"old catalog and time zone first", append([]byte{qCatalog, 3, 's', 't', 'd', 0, qTimeZone, 6, '+', '0', '0', ':', '0', '0'},
			qCharset, 8, 0, 8, 0, 8, 0), 8, true},
		// MariaDB 11.8's ALTER TABLE ... ENUM('') CHARACTER SET utf8mb4 (as logged): its
		// character_set_collations (5 charsets) before Q_CHARSET, which says 2304.
		{"MariaDB 11.8 character_set_collations", mustHex(t, "000000000101000020540000000006037374648305210000082300000a2d0000093600000b3c00000c040009000900098109f20d0000000000"), 2304, true},
		{"MySQL 8 default", []byte{qFlags2, 0, 0, 0, 0, qCharset, 255, 0, 255, 0, 255, 0}, 255, true},
		{"none", []byte{qFlags2, 0, 0, 0, 0, qSQLMode, 0, 0, 0, 0, 0, 0, 0, 0}, 0, false},
		{"unknown code first", append([]byte{200, 1, 2}, charset...), 0, false},
		{"truncated", []byte{qFlags2, 0, 0, 0, 0, qCharset, 45}, 0, false},
		{"empty", nil, 0, false},
	}
	for _, c := range cases {
		id, ok := clientCollation(c.vars)
		if id != c.id || ok != c.ok {
			t.Errorf("%s: got %d, %v; want %d, %v", c.name, id, ok, c.id, c.ok)
		}
	}
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCharsetCollations(t *testing.T) {
	vars := mustHex(t, "000000000101000020540000000006037374648305210000082300000a2d0000093600000b3c00000c040009000900098109f20d0000000000")
	got := charsetCollations(vars)
	want := [][2]uint16{{33, 2048}, {35, 2560}, {45, 2304}, {54, 2816}, {60, 3072}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("pair %d: %v, want %v", i, got[i], want[i])
		}
	}
	if got := charsetCollations([]byte{qFlags2, 0, 0, 0, 0, qCharset, 45, 0, 45, 0, 8, 0}); got != nil {
		t.Errorf("without the variable: %v", got)
	}
	if got := charsetCollations([]byte{qCharsetCollations, 2, 45, 0, 0, 9}); got != nil {
		t.Errorf("truncated: %v", got)
	}
}
