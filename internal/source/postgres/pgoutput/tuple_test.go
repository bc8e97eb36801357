package pgoutput

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
)

// tupleBytes encodes a pgoutput TupleData.
func tupleBytes(cols ...tupleCol) []byte {
	b := binary.BigEndian.AppendUint16(nil, uint16(len(cols)))
	for _, c := range cols {
		b = append(b, c.kind)
		if c.kind == 't' || c.kind == 'b' {
			b = binary.BigEndian.AppendUint32(b, uint32(len(c.data)))
			b = append(b, c.data...)
		}
	}
	return b
}

func text(s string) tupleCol { return tupleCol{kind: 't', data: []byte(s)} }

// rowMessage encodes an Insert/Update/Delete message; xid > 0 makes it a streamed one.
func rowMessageBytes(kind byte, xid uint32, rel uint32, oldType byte, old, new []byte) []byte {
	b := []byte{kind}
	if xid > 0 {
		b = binary.BigEndian.AppendUint32(b, xid)
	}
	b = binary.BigEndian.AppendUint32(b, rel)
	if oldType != 0 {
		b = append(append(b, oldType), old...)
	}
	if new != nil {
		b = append(append(b, 'N'), new...)
	}
	return b
}

func sameCols(t *testing.T, what string, got, want []tupleCol) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d columns, want %d", what, len(got), len(want))
	}
	for i := range want {
		if got[i].kind != want[i].kind || !bytes.Equal(got[i].data, want[i].data) || (want[i].kind == 't' && got[i].data == nil) {
			t.Errorf("%s column %d: %q %q, want %q %q", what, i, got[i].kind, got[i].data, want[i].kind, want[i].data)
		}
	}
}

func TestParseRow(t *testing.T) {
	newCols := []tupleCol{text("42"), {kind: 'n'}, text(""), {kind: 'u'}, text("caf\u00e9 'x'")}
	oldCols := []tupleCol{text("41"), text("a"), text("b"), text("long"), text("z")}
	cases := []struct {
		name     string
		msg      []byte
		streamed bool
		op       model.Op
		oldType  byte
		old, new []tupleCol
	}{
		{"insert", rowMessageBytes('I', 0, 7, 0, nil, tupleBytes(newCols...)), false, model.Insert, 0, nil, newCols},
		{"update full", rowMessageBytes('U', 0, 7, 'O', tupleBytes(oldCols...), tupleBytes(newCols...)), false, model.Update, 'O', oldCols, newCols},
		{"update key", rowMessageBytes('U', 0, 7, 'K', tupleBytes(text("41"), tupleCol{kind: 'n'}), tupleBytes(newCols...)), false, model.Update, 'K',
			[]tupleCol{text("41"), {kind: 'n'}}, newCols},
		{"update same key", rowMessageBytes('U', 0, 7, 0, nil, tupleBytes(newCols...)), false, model.Update, 0, nil, newCols},
		{"delete", rowMessageBytes('D', 0, 7, 'O', tupleBytes(oldCols...), nil), false, model.Delete, 'O', oldCols, nil},
		{"streamed update", rowMessageBytes('U', 991, 7, 'O', tupleBytes(oldCols...), tupleBytes(newCols...)), true, model.Update, 'O', oldCols, newCols},
		{"streamed insert", rowMessageBytes('I', 991, 7, 0, nil, tupleBytes(newCols...)), true, model.Insert, 0, nil, newCols},
	}
	var oldBuf, newBuf []tupleCol
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !isRowMsg(c.msg) {
				t.Fatal("not a row message")
			}
			m, err := parseRow(c.msg, c.streamed, oldBuf, newBuf)
			if err != nil {
				t.Fatal(err)
			}
			if m.op != c.op || m.rel != 7 || m.oldType != c.oldType {
				t.Fatalf("op %v rel %d old type %q, want %v 7 %q", m.op, m.rel, m.oldType, c.op, c.oldType)
			}
			if (m.old == nil) != (c.old == nil) || (m.new == nil) != (c.new == nil) {
				t.Fatalf("old present %v new present %v", m.old != nil, m.new != nil)
			}
			sameCols(t, "old", m.old, c.old)
			sameCols(t, "new", m.new, c.new)
			if m.old != nil {
				oldBuf = m.old // reused by the next case, as the stream does
			}
			if m.new != nil {
				newBuf = m.new
			}
			// Every shorter message is refused, never read past its end.
			for n := range len(c.msg) {
				if _, err := parseRow(c.msg[:n:n], c.streamed, nil, nil); err == nil && n > 0 {
					t.Fatalf("a message cut to %d of %d bytes was accepted", n, len(c.msg))
				}
			}
		})
	}
}

// A conv's bytes must not point into the message: the receive buffer is reused.
func TestConvCopiesText(t *testing.T) {
	for _, c := range []schema.Column{
		{Name: "a", DataType: "varchar", ColumnType: "varchar(10)", CharMaxLength: 10, Charset: "utf8mb4"},
		{Name: "b", DataType: "char", ColumnType: "char(10)", CharMaxLength: 10, Charset: "utf8mb3"},
		{Name: "c", DataType: "text", ColumnType: "text", Charset: "ascii"},
		{Name: "d", DataType: "varchar", ColumnType: "varchar(10)", CharMaxLength: 10, Charset: "binary"},
		{Name: "e", DataType: "longtext", ColumnType: "longtext", Charset: "utf8mb4", IsJSON: true},
		{Name: "f", DataType: "varchar", ColumnType: "varchar(10)", CharMaxLength: 10, Charset: "latin1"},
	} {
		cv, err := convOf(c)
		if err != nil {
			t.Fatal(err)
		}
		in := []byte(`{"k": 1}`)
		v, err := cv(in)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		for i := range in {
			in[i] = 'X'
		}
		if got := string(v.([]byte)); got != `{"k": 1}` {
			t.Errorf("%s: the value changed with the message's bytes: %q", c.Name, got)
		}
		if v, err := cv(in[:0]); err != nil || v.([]byte) == nil {
			t.Errorf("%s: the empty string became %#v, %v (NULL is another value)", c.Name, v, err)
		}
	}
}
