package consistent

import (
	"reflect"
	"testing"

	"github.com/sluice-db/sluice/internal/schema"
)

func TestCompareExpandsRowComparison(t *testing.T) {
	tbl := &schema.Table{
		TableID:    schema.TableID{Database: "d", Name: "t"},
		PrimaryKey: []string{"a", "b", "c"},
		Columns: []schema.Column{
			{Name: "a", DataType: "bigint", Unsigned: true},
			{Name: "b", DataType: "varchar", Charset: "latin1", Collation: "latin1_swedish_ci"},
			{Name: "c", DataType: "decimal", Precision: 10, Scale: 2},
		},
	}
	k, err := NewKey(tbl)
	if err != nil {
		t.Fatal(err)
	}
	if k.Index != "PRIMARY" {
		t.Errorf("index = %q", k.Index)
	}
	b := Bound{[]byte("18446744073709551615"), []byte("x\x00y"), []byte("-1.50")}
	sql, args, err := k.compare(b, true)
	if err != nil {
		t.Fatal(err)
	}
	str := "CONVERT(CAST(? AS BINARY) USING latin1) COLLATE `latin1_swedish_ci`"
	dec := "CAST(? AS DECIMAL(10,2))"
	want := "(`a` > ? OR (`a` = ? AND (`b` > " + str + " OR (`b` = " + str + " AND (`c` > " + dec + ")))))"
	if sql != want {
		t.Errorf("after:\n got %s\nwant %s", sql, want)
	}
	wantArgs := []any{uint64(18446744073709551615), uint64(18446744073709551615), []byte("x\x00y"), []byte("x\x00y"), "-1.50"}
	if !reflect.DeepEqual(args, wantArgs) {
		t.Errorf("args = %#v, want %#v", args, wantArgs)
	}
	sql, _, _ = k.compare(b, false)
	want = "(`a` < ? OR (`a` = ? AND (`b` < " + str + " OR (`b` = " + str + " AND (`c` <= " + dec + ")))))"
	if sql != want {
		t.Errorf("up to:\n got %s\nwant %s", sql, want)
	}
	if _, _, err := k.compare(Bound{[]byte("1")}, true); err == nil {
		t.Error("a bound with the wrong number of values was accepted")
	}
	if _, _, err := k.compare(Bound{[]byte("-1"), nil, []byte("1")}, true); err == nil {
		t.Error("a negative value for an unsigned key column was accepted")
	}
}

func TestKeyChoiceAndUnsupported(t *testing.T) {
	uniq := &schema.Table{
		TableID: schema.TableID{Database: "d", Name: "t"},
		Columns: []schema.Column{{Name: "x", DataType: "int", Nullable: true}, {Name: "y", DataType: "char"}},
		Indexes: []schema.Index{
			{Name: "ux", Unique: true, Columns: []schema.IndexColumn{{Name: "x"}}}, // nullable: not a key
			{Name: "uy", Unique: true, Columns: []schema.IndexColumn{{Name: "y"}}},
		},
	}
	k, err := NewKey(uniq)
	if err != nil || k == nil || k.Index != "uy" || k.Names()[0] != "y" {
		t.Fatalf("key = %+v, %v; want unique key uy", k, err)
	}
	none := &schema.Table{TableID: schema.TableID{Database: "d", Name: "n"}, Columns: []schema.Column{{Name: "x", DataType: "int"}}}
	if k, err := NewKey(none); k != nil || err != nil {
		t.Errorf("table without key: %+v, %v", k, err)
	}
	js := &schema.Table{TableID: schema.TableID{Database: "d", Name: "j"}, PrimaryKey: []string{"g"},
		Columns: []schema.Column{{Name: "g", DataType: "geometry"}}}
	if _, err := NewKey(js); err == nil {
		t.Error("a geometry key was accepted")
	}
	q, err := ChunkQuery(nil, none.TableID, []string{"`x`"}, "", nil, nil)
	if err != nil || q.SQL != "SELECT `x` FROM `d`.`n`" {
		t.Errorf("unkeyed query = %q, %v", q.SQL, err)
	}
	if _, err := ChunkQuery(nil, none.TableID, []string{"`x`"}, "", Bound{[]byte("1")}, nil); err == nil {
		t.Error("a range on a table without key was accepted")
	}
}

// TestStringBoundNeverNil: an empty string key value must be sent as an
// empty string, not as a nil []byte (which the driver sends as NULL).
func TestStringBoundNeverNil(t *testing.T) {
	tbl := &schema.Table{
		TableID:    schema.TableID{Database: "d", Name: "t"},
		PrimaryKey: []string{"a", "b"},
		Columns: []schema.Column{
			{Name: "a", DataType: "binary"},
			{Name: "b", DataType: "varchar", Charset: "latin1", Collation: "latin1_bin"},
		},
	}
	k, err := NewKey(tbl)
	if err != nil {
		t.Fatal(err)
	}
	for _, after := range []bool{true, false} {
		_, args, err := k.compare(Bound{[]byte{}, []byte{}}, after)
		if err != nil {
			t.Fatal(err)
		}
		for i, a := range args {
			if b, ok := a.([]byte); !ok || b == nil {
				t.Errorf("after=%v: arg %d = %#v, want a non-nil []byte", after, i, a)
			}
		}
	}
}
