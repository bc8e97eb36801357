package typemap

import (
	"testing"

	"github.com/sluice-db/sluice/internal/schema"
)

// TestIntFromTextAndTextBytesMatchFromText checks that the snapshot's
// allocation-free paths give what FromText gives, errors included.
func TestIntFromTextAndTextBytesMatchFromText(t *testing.T) {
	m := New(Options{}, NewChanges())
	id := schema.TableID{Database: "d", Name: "t"}
	compile := func(c schema.Column) *ColumnConv {
		cc, err := m.CompileColumn(id, c)
		if err != nil {
			t.Fatal(err)
		}
		return cc
	}
	ints := []struct {
		c    schema.Column
		in   string
		want int64
		bad  bool
	}{
		{col("int", "int(11)"), "-2147483648", -2147483648, false},
		{col("int", "int(11)"), "2147483648", 0, true},
		{col("smallint", "smallint(6)"), "-7", -7, false},
		{col("int", "int(10) unsigned", unsigned), "4294967295", 4294967295, false},
		{col("bigint", "bigint(20)"), "x1", 0, true},
	}
	for _, tc := range ints {
		cc := compile(tc.c)
		n, ok, err := cc.IntFromText([]byte(tc.in))
		v, ferr := cc.FromText([]byte(tc.in))
		if !ok || (err != nil) != tc.bad || (ferr != nil) != tc.bad || (!tc.bad && n != tc.want) {
			t.Errorf("%s %q: IntFromText = %d, %v, %v; FromText = %v, %v", tc.c.ColumnType, tc.in, n, ok, err, v, ferr)
		}
	}
	text := compile(col("varchar", "varchar(10)"))
	if b, ok, err := text.TextBytes([]byte("a\x00b")); !ok || err != nil || string(b) != "ab" {
		t.Errorf("TextBytes with NUL = %q, %v, %v; want the NUL stripped", b, ok, err)
	}
	if _, ok, err := text.TextBytes([]byte{0xff}); !ok || err == nil {
		t.Errorf("TextBytes of invalid UTF-8: ok=%v err=%v, want an error", ok, err)
	}
	if b, ok, _ := text.TextBytes(nil); !ok || b != nil {
		t.Errorf("TextBytes(nil) = %q, %v; want NULL", b, ok)
	}
	if _, ok, _ := text.IntFromText([]byte("1")); ok {
		t.Error("IntFromText on a text column: ok")
	}
	if _, ok, _ := compile(col("int", "int(11)")).TextBytes([]byte("1")); ok {
		t.Error("TextBytes on an integer column: ok")
	}
}
