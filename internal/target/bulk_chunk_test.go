package target

import (
	"bytes"
	"testing"
)

// TestRowHashSeparatesValues: the chunk hash tells apart rows that would
// concatenate alike, NULL from the empty string, and row boundaries; the
// same rows hash alike, and Add returns the row's bytes.
func TestRowHashSeparatesValues(t *testing.T) {
	sum := func(rows ...[][]byte) []byte {
		h := NewRowHash()
		for _, r := range rows {
			h.Add(r)
		}
		return h.Sum()
	}
	big := bytes.Repeat([]byte("x"), hashDirect+10) // written to the digests directly
	cases := map[string][2][][][]byte{
		"split":      {{{[]byte("ab"), []byte("c")}}, {{[]byte("a"), []byte("bc")}}},
		"null/empty": {{{nil}}, {{[]byte{}}}},
		"rows":       {{{[]byte("a")}, {[]byte("b")}}, {{[]byte("a"), []byte("b")}}},
		"big":        {{{big, []byte("a")}}, {{big[:len(big)-1], []byte("xa")}}},
	}
	for name, c := range cases {
		if a, b := sum(c[0]...), sum(c[1]...); bytes.Equal(a, b) {
			t.Errorf("%s: %x for both", name, a)
		}
	}
	if a, b := sum([][]byte{big, nil, []byte("q")}), sum([][]byte{big, nil, []byte("q")}); !bytes.Equal(a, b) || len(a) != 16 {
		t.Errorf("same rows: %x and %x (want equal, 16 bytes)", a, b)
	}
	h := NewRowHash()
	if n := h.Add([][]byte{[]byte("abc"), nil, big}); n != int64(3+len(big)) {
		t.Errorf("Add = %d bytes, want %d", n, 3+len(big))
	}
}
