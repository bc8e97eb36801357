package rowpolicy

import (
	"strconv"
	"testing"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
)

// BenchmarkChanges is the per-row cost replicate pays for a filter and two
// masks (an UPDATE: both images filtered and masked).
func BenchmarkChanges(b *testing.B) {
	p, err := New([]string{"shop.users=tenant = 1 AND email LIKE '%@%'"}, []string{"shop.users.code=email", "shop.*.phone=keep-last:2"}, nil)
	if err != nil {
		b.Fatal(err)
	}
	tb := testTable()
	cs := make([]model.RowChange, 1)
	for b.Loop() {
		cs[0] = model.RowChange{Op: model.Update, Table: tb,
			Before: []any{int64(1), int32(1), "a@b.c", "5550123", "ab@x.io"}, After: []any{int64(1), int32(1), "a@b.c", "5550124", "ab@x.io"}}
		if _, err := p.Changes(cs); err != nil {
			b.Fatal(err)
		}
	}
}

// sbtestTable is sysbench's table as the sandbox creates it (utf8mb4,
// general_ci): what bench/policy_ab.sh filters and masks.
func sbtestTable() *schema.Table {
	text := func(name string, n int64) schema.Column {
		return schema.Column{Name: name, DataType: "char", ColumnType: "char(" + strconv.FormatInt(n, 10) + ")", CharMaxLength: n,
			Charset: "utf8mb4", Collation: "utf8mb4_general_ci"}
	}
	return &schema.Table{TableID: schema.TableID{Database: "sbtest", Name: "sbtest1"}, PrimaryKey: []string{"id"},
		Columns: []schema.Column{
			{Name: "id", DataType: "int", ColumnType: "int(11)"},
			{Name: "k", DataType: "int", ColumnType: "int(11)"},
			text("c", 120), text("pad", 60),
		}}
}

// sbtestRow is one sysbench row image as the binlog decoder hands it over
// (INT as int32, CHAR as string).
func sbtestRow(id, k int32) []any {
	return []any{id, k,
		"68487932199-96439406143-93774651418-41631865787-96406072701-20604855487-25459966574-28203206787-41238978918-19503783441",
		"22195207048-70116052123-74140395089-76317954521-98694025897"}
}

func sbtestPolicy(b *testing.B) *Policy {
	p, err := New([]string{"sbtest.sbtest1=k >= 0 AND id > 0"}, []string{"sbtest.*.c=hash", "sbtest.*.pad=keep-last:4"},
		[]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkApplyUpdate is bench/policy_ab.sh's policy on one sysbench
// UPDATE: the filter on both images, the hash and keep-last masks on both.
func BenchmarkApplyUpdate(b *testing.B) {
	p, tb := sbtestPolicy(b), sbtestTable()
	cs := make([]model.RowChange, 1)
	b.ReportAllocs()
	for b.Loop() {
		cs[0] = model.RowChange{Op: model.Update, Table: tb, Before: sbtestRow(7, 5), After: sbtestRow(7, 6)}
		if out, err := p.Changes(cs); err != nil || len(out) != 1 {
			b.Fatal(out, err)
		}
	}
}

// BenchmarkApplyWriteOnly is one oltp_write_only transaction (two UPDATEs,
// a DELETE and an INSERT: six images) through the policy, and the same
// without it for the images' own allocation.
func BenchmarkApplyWriteOnly(b *testing.B) {
	tb := sbtestTable()
	txn := func() []model.RowChange {
		return []model.RowChange{
			{Op: model.Update, Table: tb, Before: sbtestRow(7, 5), After: sbtestRow(7, 6)},
			{Op: model.Update, Table: tb, Before: sbtestRow(8, 5), After: sbtestRow(8, 5)},
			{Op: model.Delete, Table: tb, Before: sbtestRow(9, 5)},
			{Op: model.Insert, Table: tb, After: sbtestRow(9, 5)},
		}
	}
	b.Run("policy", func(b *testing.B) {
		p := sbtestPolicy(b)
		b.ReportAllocs()
		for b.Loop() {
			if out, err := p.Changes(txn()); err != nil || len(out) != 4 {
				b.Fatal(out, err)
			}
		}
	})
	b.Run("none", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if cs := txn(); len(cs) != 4 {
				b.Fatal(cs)
			}
		}
	})
}
