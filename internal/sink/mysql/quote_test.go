package mysql

import (
	"math/rand/v2"
	"testing"
)

// quoteByteByByte is Quote as it was written first: the reference.
func quoteByteByByte(s []byte) []byte {
	buf := []byte{'\''}
	for _, c := range s {
		switch c {
		case 0:
			buf = append(buf, '\\', '0')
		case '\n':
			buf = append(buf, '\\', 'n')
		case '\r':
			buf = append(buf, '\\', 'r')
		case '\\':
			buf = append(buf, '\\', '\\')
		case '\'':
			buf = append(buf, '\\', '\'')
		case 0x1a:
			buf = append(buf, '\\', 'Z')
		default:
			buf = append(buf, c)
		}
	}
	return append(buf, '\'')
}

func TestQuoteEveryByte(t *testing.T) {
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	cases := [][]byte{nil, {}, all, []byte("plain text"), []byte("'"), []byte("a\\b'c\x00d\x1ae\r\n"), []byte("\x00\x00ab\x00")}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = all[r.IntN(256)]
			if r.IntN(2) == 0 {
				b[i] = "'\\\x00\x1a\r\n"[r.IntN(6)]
			}
		}
		cases = append(cases, b)
	}
	for _, c := range cases {
		want := quoteByteByByte(c)
		if got := Quote([]byte("x"), c); string(got) != "x"+string(want) {
			t.Fatalf("Quote(%q) = %q, want %q", c, got[1:], want)
		}
		if got := Quote(nil, string(c)); string(got) != string(want) {
			t.Fatalf("Quote(string %q) = %q, want %q", c, got, want)
		}
	}
}
