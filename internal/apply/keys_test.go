package apply

import (
	"hash/maphash"
	"math/big"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

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

func TestKeyValueNormalisation(t *testing.T) {
	h := newKeyHasher(maphash.MakeSeed())
	tbl := &schema.Table{TableID: schema.TableID{Database: "d", Name: "t"},
		Columns: []schema.Column{{Name: "k", DataType: "varchar"}}, PrimaryKey: []string{"k"}}
	tk := newTableKeys(tbl)
	k := func(v any) uint64 {
		ks := keysOf(h, tk, model.RowChange{Op: model.Insert, After: []any{v}})
		return ks[0]
	}
	if k("Abc") != k("abc  ") {
		t.Error("case and trailing spaces must fold (MySQL _ci PAD SPACE collations)")
	}
	if k("abc") == k("abd") {
		t.Error("different strings must differ")
	}
	n1 := pgtype.Numeric{Int: big.NewInt(150), Exp: -2, Valid: true}
	n2 := pgtype.Numeric{Int: big.NewInt(15), Exp: -1, Valid: true}
	n3 := pgtype.Numeric{Int: big.NewInt(151), Exp: -2, Valid: true}
	if k(n1) != k(n2) || k(n1) == k(n3) {
		t.Error("decimals must hash by value: 1.50 == 1.5 != 1.51")
	}
	t1 := time.Date(2024, 1, 2, 3, 4, 5, 6000, time.UTC)
	if k(t1) != k(t1.In(time.FixedZone("x", 3600))) || k(t1) == k(t1.Add(time.Microsecond)) {
		t.Error("times must hash by instant")
	}
	if k([]byte{1, 2}) == k([]byte{1, 3}) {
		t.Error("bytes must differ")
	}
	if foldKeyText("ÄBCDEF", 3) != "äbc" {
		t.Errorf("prefix of 3 characters: got %q", foldKeyText("ÄBCDEF", 3))
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
