package kafka

import (
	"fmt"
	"testing"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/consistent"
	"github.com/sluice-db/sluice/internal/typemap"
)

// keep decides from a resumed snapshot's copy progress which binlog
// changes a catch-up writes: those of copied rows only, the key compared as
// MySQL orders it (composite INT+DECIMAL, BIGINT UNSIGNED).
func TestKeepSplitsAtTheCopiedKey(t *testing.T) {
	comp := &schema.Table{TableID: schema.TableID{Database: "db", Name: "comp"}, PrimaryKey: []string{"a", "d"},
		Columns: []schema.Column{{Name: "a", Ordinal: 1, DataType: "int", ColumnType: "int(11)"},
			{Name: "d", Ordinal: 2, DataType: "decimal", ColumnType: "decimal(10,2)", Precision: 10, Scale: 2},
			{Name: "v", Ordinal: 3, DataType: "varchar", ColumnType: "varchar(20)", CharMaxLength: 20, Charset: "utf8mb4", Nullable: true}}}
	big := &schema.Table{TableID: schema.TableID{Database: "db", Name: "big"}, PrimaryKey: []string{"id"},
		Columns: []schema.Column{{Name: "id", Ordinal: 1, DataType: "bigint", ColumnType: "bigint(20) unsigned", Unsigned: true}}}
	str := &schema.Table{TableID: schema.TableID{Database: "db", Name: "str"}, PrimaryKey: []string{"k"},
		Columns: []schema.Column{{Name: "k", Ordinal: 1, DataType: "varchar", ColumnType: "varchar(20)", CharMaxLength: 20, Charset: "utf8mb4"}}}
	later := &schema.Table{TableID: schema.TableID{Database: "db", Name: "later"}, PrimaryKey: []string{"k"}, Columns: str.Columns}
	done := &schema.Table{TableID: schema.TableID{Database: "db", Name: "done"}, PrimaryKey: []string{"k"}, Columns: str.Columns}
	s := &Sink{cfg: Config{Prefix: "p"}, mapper: typemap.New(typemap.Options{ZeroDate: typemap.ZeroDateNull, Nul: typemap.NulError}, nil),
		codecs: map[*schema.Table]*tableCodec{}}
	for tb, want := range map[*schema.Table]bool{comp: true, big: true, str: false} {
		if got := s.GoOrdered(tb); got != want {
			t.Errorf("GoOrdered(%s) = %v, want %v", tb.TableID, got, want)
		}
	}
	s.copying = &copyProgress{Tables: map[string]*copyTable{
		"db.comp": {Last: consistent.Bound{[]byte("5"), []byte("2.50")}},
		"db.big":  {Last: consistent.Bound{[]byte("18446744073709551614")}},
		"db.str":  {}, "db.done": {Done: true},
	}}
	c := func(a int32, d string) []any { return []any{a, d, "x"} }
	const keep, drop, asDelete, asInsert = "keep", "drop", "delete", "insert"
	for i, tc := range []struct {
		rc   model.RowChange
		want string
	}{
		{model.RowChange{Table: comp, Op: model.Insert, After: c(5, "2.49")}, keep},
		{model.RowChange{Table: comp, Op: model.Insert, After: c(5, "2.50")}, keep},
		{model.RowChange{Table: comp, Op: model.Insert, After: c(5, "2.51")}, drop},
		{model.RowChange{Table: comp, Op: model.Insert, After: c(4, "99.00")}, keep},
		{model.RowChange{Table: comp, Op: model.Insert, After: c(-3, "0.00")}, keep},
		{model.RowChange{Table: comp, Op: model.Insert, After: c(6, "-1.00")}, drop},
		{model.RowChange{Table: comp, Op: model.Update, Before: c(3, "1.00"), After: c(3, "1.00")}, keep},
		{model.RowChange{Table: comp, Op: model.Update, Before: c(3, "1.00"), After: c(7, "1.00")}, asDelete},
		{model.RowChange{Table: comp, Op: model.Update, Before: c(7, "1.00"), After: c(3, "1.00")}, asInsert},
		{model.RowChange{Table: comp, Op: model.Update, Before: c(7, "1.00"), After: c(8, "1.00")}, drop},
		{model.RowChange{Table: comp, Op: model.Delete, Before: c(5, "2.50")}, keep},
		{model.RowChange{Table: comp, Op: model.Delete, Before: c(5, "2.51")}, drop},
		{model.RowChange{Table: big, Op: model.Insert, After: []any{uint64(18446744073709551615)}}, drop},
		{model.RowChange{Table: big, Op: model.Insert, After: []any{uint64(18446744073709551614)}}, keep},
		{model.RowChange{Table: big, Op: model.Insert, After: []any{int64(-1)}}, drop}, // a signed image of 2^64-1
		{model.RowChange{Table: big, Op: model.Insert, After: []any{uint64(0)}}, keep},
		{model.RowChange{Table: str, Op: model.Insert, After: []any{"a"}}, drop},   // not started
		{model.RowChange{Table: done, Op: model.Delete, Before: []any{"a"}}, keep}, // copied whole
		{model.RowChange{Table: later, Op: model.Insert, After: []any{"a"}}, keep}, // created after the start
	} {
		got, ok, err := s.keep(&tc.rc)
		if err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		verdict := drop
		switch {
		case !ok:
		case got == &tc.rc:
			verdict = keep
		case got.Op == model.Delete && got.After == nil && fmtVals(got.Before) == fmtVals(tc.rc.Before):
			verdict = asDelete
		case got.Op == model.Insert && got.Before == nil && fmtVals(got.After) == fmtVals(tc.rc.After):
			verdict = asInsert
		default:
			verdict = "changed wrongly"
		}
		if verdict != tc.want {
			t.Errorf("%d: %s %v → %v: %s, want %s", i, tc.rc.Table.Name, tc.rc.Before, tc.rc.After, verdict, tc.want)
		}
	}
}

func fmtVals(v []any) string { return fmt.Sprint(v...) }
