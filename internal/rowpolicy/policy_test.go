package rowpolicy

import (
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
)

func testTable() *schema.Table {
	return &schema.Table{TableID: schema.TableID{Database: "shop", Name: "users"}, PrimaryKey: []string{"id"},
		Indexes: []schema.Index{{Name: "u_email", Unique: true, Columns: []schema.IndexColumn{{Name: "email"}}}},
		Columns: []schema.Column{
			{Name: "id", DataType: "bigint", ColumnType: "bigint"},
			{Name: "tenant", DataType: "int", ColumnType: "int"},
			{Name: "email", DataType: "varchar", ColumnType: "varchar(100)", CharMaxLength: 100, Charset: "utf8mb4", Collation: "utf8mb4_general_ci"},
			{Name: "phone", DataType: "varchar", ColumnType: "varchar(20)", CharMaxLength: 20, Charset: "utf8mb4", Collation: "utf8mb4_general_ci", Nullable: true},
			{Name: "code", DataType: "varchar", ColumnType: "varchar(10)", CharMaxLength: 10, Charset: "utf8mb4", Collation: "utf8mb4_general_ci", Nullable: true},
		}}
}

func TestMovesAndMasks(t *testing.T) {
	key := []byte("0123456789abcdef")
	p, err := New([]string{"shop.users=tenant = 1"}, []string{"shop.users.email=hash", "shop.*.phone=keep-last:2", "shop.users.code=email"}, key)
	if err != nil {
		t.Fatal(err)
	}
	tb := testTable()
	if err := p.Check([]*schema.Table{tb}); err != nil {
		t.Fatal(err)
	}
	row := func(tenant int32, email string) []any {
		return []any{int64(1), tenant, email, "5550123", "ab@x.io"}
	}
	cs := []model.RowChange{
		{Op: model.Insert, Table: tb, After: row(1, "a@b.c")},
		{Op: model.Insert, Table: tb, After: row(2, "a@b.c")},
		{Op: model.Update, Table: tb, Before: row(1, "a@b.c"), After: row(2, "a@b.c")},
		{Op: model.Update, Table: tb, Before: row(2, "a@b.c"), After: row(1, "a@b.c")},
		{Op: model.Update, Table: tb, Before: row(2, "a@b.c"), After: row(2, "x@b.c")},
		{Op: model.Delete, Table: tb, Before: row(1, "a@b.c")},
	}
	out, err := p.Changes(cs)
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	for _, c := range out {
		ops = append(ops, c.Op.String())
	}
	if strings.Join(ops, ",") != "insert,delete,insert,delete" {
		t.Fatalf("ops %v", ops)
	}
	img := out[0].After
	if h := img[2].(string); len(h) != 64 || h != out[1].Before[2].(string) || strings.Contains(h, "@") {
		t.Errorf("hash %q (want 64 hex, the same for the same value)", h)
	}
	if img[3] != "*****23" || img[4] != "a*@x.io" {
		t.Errorf("masks: %v", img)
	}
	if out[1].After != nil || out[2].Before != nil {
		t.Errorf("a row leaving the filter is a delete of its before image, one entering an insert of its after image: %+v", out)
	}
}

func TestRefusals(t *testing.T) {
	tb := testTable()
	for _, c := range []struct {
		where, mask []string
		key         []byte
		want        string
	}{
		{mask: []string{"shop.users.email=hash"}, want: "needs a key"},
		{mask: []string{"shop.users.id=null"}, want: "unique key"},
		{mask: []string{"shop.users.email=const:x"}, want: "unique key"},
		{mask: []string{"shop.users.email=keep-last:2"}, want: "unique key"},
		{mask: []string{"shop.users.nosuch=null"}, want: "no column"},
		{mask: []string{"shop.users.code=hash"}, key: []byte("0123456789abcdef"), want: "64 hex"},
		{mask: []string{"shop.users.code=const:waytoolongvalue"}, want: "longer"},
		{mask: []string{"shop.users.tenant=const:x"}, want: "not a value"},
		{where: []string{"shop.users=nosuch = 1"}, want: "no column"},
		{where: []string{"shop.users=tenant = "}, want: "syntax error"},
		{where: []string{"shop.other=tenant = 1"}, want: "no such table in scope"},
	} {
		p, err := New(c.where, c.mask, c.key)
		if err == nil {
			err = p.Check([]*schema.Table{tb})
		}
		if err == nil || exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %v: want exit 2 with %q, got %v", c.where, c.mask, c.want, err)
		}
	}
}
