package pipeline

import (
	"hash/maphash"
	"math"
	"testing"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
)

func col(name string, nullable bool) schema.Column {
	return schema.Column{Name: name, DataType: "int", Nullable: nullable}
}

// parent(id PK, code UNIQUE NOT NULL, email UNIQUE NULL)
func parentTable() *schema.Table {
	return &schema.Table{
		TableID:    schema.TableID{Database: "shop", Name: "parent"},
		Columns:    []schema.Column{col("id", false), col("code", false), col("email", true), col("note", true)},
		PrimaryKey: []string{"id"},
		Indexes: []schema.Index{
			{Name: "u_code", Unique: true, Columns: []schema.IndexColumn{{Name: "code"}}},
			{Name: "u_email", Unique: true, Columns: []schema.IndexColumn{{Name: "email"}}},
			{Name: "k_note", Columns: []schema.IndexColumn{{Name: "note"}}},
		},
	}
}

// child(id PK, pid FK → parent.id)
func childTable() *schema.Table {
	return &schema.Table{
		TableID:     schema.TableID{Database: "shop", Name: "child"},
		Columns:     []schema.Column{col("id", false), col("pid", true)},
		PrimaryKey:  []string{"id"},
		ForeignKeys: []schema.ForeignKey{{Name: "fk", Columns: []string{"pid"}, RefTable: "parent", RefColumns: []string{"id"}}},
	}
}

func keylessTable() *schema.Table {
	return &schema.Table{
		TableID: schema.TableID{Database: "shop", Name: "log"},
		Columns: []schema.Column{col("a", true), col("b", true)},
	}
}

func keysOf(h *keyHasher, tk *tableKeys, rc model.RowChange) []uint64 {
	return dedupe(h.changeKeys(nil, tk, &rc))
}

func shares(a, b []uint64) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}

func TestKeysConflictOnAnyUniqueKey(t *testing.T) {
	h := newKeyHasher(maphash.MakeSeed())
	tk := newTableKeys(parentTable())
	ins := keysOf(h, tk, model.RowChange{Op: model.Insert, After: []any{int64(1), int64(10), "a@x", "n"}})
	if len(ins) != 3 {
		t.Fatalf("insert with pk, code and email set: want 3 keys, got %d", len(ins))
	}
	// Same email, different id and code: conflicts (unique key email).
	other := keysOf(h, tk, model.RowChange{Op: model.Insert, After: []any{int64(2), int64(20), "a@x", "n"}})
	if !shares(ins, other) {
		t.Fatal("rows sharing a unique email must conflict")
	}
	// NULL email does not conflict with another NULL email.
	n1 := keysOf(h, tk, model.RowChange{Op: model.Insert, After: []any{int64(3), int64(30), nil, "n"}})
	n2 := keysOf(h, tk, model.RowChange{Op: model.Insert, After: []any{int64(4), int64(40), nil, "n"}})
	if len(n1) != 2 || shares(n1, n2) {
		t.Fatalf("NULL key parts must not make keys: %d keys, shared=%v", len(n1), shares(n1, n2))
	}
	// Non-unique index values never conflict.
	x := keysOf(h, tk, model.RowChange{Op: model.Insert, After: []any{int64(5), int64(50), nil, "same"}})
	y := keysOf(h, tk, model.RowChange{Op: model.Insert, After: []any{int64(6), int64(60), nil, "same"}})
	if shares(x, y) {
		t.Fatal("a non-unique index must not create conflicts")
	}
	// An update changing the pk conflicts with both the old and the new id.
	upd := keysOf(h, tk, model.RowChange{Op: model.Update,
		Before: []any{int64(7), int64(70), nil, nil}, After: []any{int64(8), int64(70), nil, nil}})
	old := keysOf(h, tk, model.RowChange{Op: model.Delete, Before: []any{int64(7), int64(71), nil, nil}})
	nw := keysOf(h, tk, model.RowChange{Op: model.Insert, After: []any{int64(8), int64(72), nil, nil}})
	if !shares(upd, old) || !shares(upd, nw) {
		t.Fatal("a primary key change must conflict with its before and after keys")
	}
}

func TestKeysForeignKeyOrdersChildAfterParent(t *testing.T) {
	h := newKeyHasher(maphash.MakeSeed())
	pk, ck := newTableKeys(parentTable()), newTableKeys(childTable())
	parent := keysOf(h, pk, model.RowChange{Op: model.Insert, After: []any{int32(5), int64(1), nil, nil}})
	child := keysOf(h, ck, model.RowChange{Op: model.Insert, After: []any{int64(100), int64(5)}})
	if !shares(parent, child) {
		t.Fatal("child insert must share a key with the parent row it references (int32 vs int64 erased)")
	}
	otherChild := keysOf(h, ck, model.RowChange{Op: model.Insert, After: []any{int64(101), int64(6)}})
	if shares(parent, otherChild) {
		t.Fatal("child of another parent must not conflict")
	}
	orphan := keysOf(h, ck, model.RowChange{Op: model.Insert, After: []any{int64(102), nil}})
	if len(orphan) != 1 {
		t.Fatalf("NULL foreign key: want only the child's own key, got %d", len(orphan))
	}
}

func TestKeysKeylessTableIsWide(t *testing.T) {
	h := newKeyHasher(maphash.MakeSeed())
	tk := newTableKeys(keylessTable())
	a := keysOf(h, tk, model.RowChange{Op: model.Insert, After: []any{int64(1), int64(2)}})
	b := keysOf(h, tk, model.RowChange{Op: model.Delete, Before: []any{int64(3), int64(4)}})
	if !tk.wide || !shares(a, b) {
		t.Fatal("all changes of a table without row identity must share a key")
	}
	// A table whose only unique key is nullable has no identity either.
	nu := &schema.Table{TableID: schema.TableID{Database: "d", Name: "nu"},
		Columns: []schema.Column{col("a", true)},
		Indexes: []schema.Index{{Name: "u", Unique: true, Columns: []schema.IndexColumn{{Name: "a"}}}}}
	if !newTableKeys(nu).wide {
		t.Fatal("nullable unique key only: must serialise")
	}
}

// Keys hash the source's own values (go-mysql's decoding).
func TestKeyValueNormalisation(t *testing.T) {
	h := newKeyHasher(maphash.MakeSeed())
	keyOf := func(c schema.Column) func(v any) uint64 {
		c.Name = "k"
		tk := newTableKeys(&schema.Table{TableID: schema.TableID{Database: "d", Name: "t"},
			Columns: []schema.Column{c}, PrimaryKey: []string{"k"}})
		return func(v any) uint64 { return keysOf(h, tk, model.RowChange{Op: model.Insert, After: []any{v}})[0] }
	}
	text := keyOf(schema.Column{DataType: "varchar", Charset: "utf8mb4"})
	if text("Abc") != text("abc  ") || text("Abc") != text([]byte("abc")) {
		t.Error("case and trailing spaces must fold (MySQL _ci PAD SPACE collations), string or bytes alike")
	}
	if text("abc") == text("abd") {
		t.Error("different strings must differ")
	}
	bin := keyOf(schema.Column{DataType: "varbinary", Charset: "binary"})
	if bin([]byte{1, 2}) == bin([]byte{1, 3}) || bin("Ab") == bin("ab") || bin([]byte("ab")) != bin("ab") {
		t.Error("binary strings hash exactly, string or bytes alike")
	}
	dec := keyOf(schema.Column{DataType: "decimal", Precision: 10, Scale: 2})
	if dec("1.50") != dec("1.5") || dec("1.50") == dec("1.51") || dec("-0.00") != dec("0") || dec("10") != dec("10.00") {
		t.Error("decimals must hash by value: 1.50 == 1.5 != 1.51, -0.00 == 0, 10 == 10.00")
	}
	// An INT UNSIGNED column decoded without signedness metadata gives
	// int32(-1) for 4294967295; a BIGINT child referencing it gives int64.
	uns := keyOf(schema.Column{DataType: "int", Unsigned: true})
	big := keyOf(schema.Column{DataType: "bigint", Unsigned: true})
	if uns(int32(-1)) != big(int64(4294967295)) || uns(uint32(4294967295)) != big(uint64(4294967295)) {
		t.Error("unsigned values must hash by their unsigned value whatever the width")
	}
	signed := keyOf(schema.Column{DataType: "int"})
	if signed(int32(-1)) == signed(int32(1)) || signed(int8(7)) != signed(int64(7)) {
		t.Error("signed integers: widths erased, signs kept")
	}
	if foldKeyText("ÄBCDEF", 3) != "äbc" {
		t.Errorf("prefix of 3 characters: got %q", foldKeyText("ÄBCDEF", 3))
	}
}

func TestValueEqualIsExact(t *testing.T) {
	same := [][2]any{{nil, nil}, {"a", "a"}, {[]byte("a"), []byte("a")}, {int64(1), int64(1)}, {int8(-1), int8(-1)},
		{uint64(1 << 63), uint64(1 << 63)}, {1.5, 1.5}, {float32(2), float32(2)}}
	for _, p := range same {
		if !ValueEqual(p[0], p[1]) {
			t.Errorf("%#v and %#v must be equal", p[0], p[1])
		}
	}
	differ := [][2]any{{nil, "a"}, {"a", []byte("a")}, {"a", "A"}, {int64(1), int32(1)}, {0.0, math.Copysign(0, -1)},
		{"1.5", "1.50"}, {[]byte{0}, []byte{}}}
	for _, p := range differ {
		if ValueEqual(p[0], p[1]) {
			t.Errorf("%#v and %#v must not be equal", p[0], p[1])
		}
	}
}

func TestIdentityKeyIsThePrimaryKey(t *testing.T) {
	h := newKeyHasher(maphash.MakeSeed())
	tk := newTableKeys(parentTable())
	row := []any{int64(1), int64(2), nil, nil}
	id, ok := h.identityKey(tk, row)
	if !ok {
		t.Fatal("no identity key")
	}
	pkOnly, _ := h.hashKey(tk.keys[0], row)
	if id != pkOnly {
		t.Fatal("identity must be the primary key hash")
	}
	if _, ok := h.identityKey(newTableKeys(keylessTable()), []any{int64(1), int64(2)}); ok {
		t.Fatal("keyless table has no identity")
	}
}
