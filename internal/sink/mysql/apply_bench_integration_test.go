package mysql

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
)

// BenchmarkApplyWriteOnly applies a backlog of sysbench oltp_write_only
// transactions (per transaction: an update of an indexed column, an update
// of a text column, a delete and an insert of one row) through a session,
// groups of 1 (live) and 16 (catch-up) source transactions per target
// transaction. Run it alone and short, e.g.
//
//	go test -run '^$' -bench ApplyWriteOnly -benchtime 3000x ./internal/sink/mysql/
//
// b.N is the number of source transactions; txn/s is the figure to compare.
func BenchmarkApplyWriteOnly(b *testing.B) {
	for _, group := range []int{1, 16} {
		b.Run(fmt.Sprintf("group=%d", group), func(b *testing.B) { benchWriteOnly(b, group) })
	}
}

func benchWriteOnly(b *testing.B, group int) {
	f := newFixture(b)
	ctx := context.Background()
	const rows = 10000
	f.exec("CREATE TABLE `" + f.name + "`.sbtest (id INT PRIMARY KEY, k INT NOT NULL, c CHAR(120) NOT NULL, pad CHAR(60) NOT NULL, KEY (k)) ENGINE=InnoDB")
	var q strings.Builder
	for i := 1; i <= rows; i++ {
		if q.Len() == 0 {
			q.WriteString("INSERT INTO `" + f.name + "`.sbtest VALUES ")
		} else {
			q.WriteByte(',')
		}
		fmt.Fprintf(&q, "(%d,%d,'%s','%s')", i, i, strings.Repeat("c", 119), strings.Repeat("p", 59))
		if i%1000 == 0 {
			f.exec(q.String())
			q.Reset()
		}
	}
	tbl := &schema.Table{TableID: schema.TableID{Database: "app", Name: "sbtest"}, PrimaryKey: []string{"id"}, Engine: "InnoDB",
		Columns: []schema.Column{{Name: "id", DataType: "int"}, {Name: "k", DataType: "int"},
			{Name: "c", DataType: "char", Charset: "latin1"}, {Name: "pad", DataType: "char", Charset: "latin1"}}}
	// The rows as the source holds them (the backlog is generated, then applied).
	k := make([]int32, rows+1)
	c := make([][]byte, rows+1)
	for i := range k {
		k[i] = int32(i)
		c[i] = []byte(strings.Repeat("c", 119))
	}
	img := func(id int) []any { return []any{int32(id), k[id], c[id], []byte(strings.Repeat("p", 59))} }
	// Each transaction changes three rows no other transaction of the backlog
	// changes (b.N <= rows/3), so a group's changes go in the order the
	// pipeline's coalescing gives them: its updates, then its deletes, then
	// its inserts.
	if b.N > rows/3 {
		b.Fatalf("at most %d transactions", rows/3)
	}
	var groups []*pipeline.Group
	g := &pipeline.Group{}
	var upd, del, ins []pipeline.Change
	for n := 0; n < b.N; n++ {
		txn := &model.Txn{End: binlogpos.Position{File: "bin.000001", Pos: uint32(1000 + n)}}
		a, bb, d := 1+3*n, 2+3*n, 3+3*n
		before := img(a)
		k[a]++
		txn.Changes = append(txn.Changes, model.RowChange{Op: model.Update, Table: tbl, Before: before, After: img(a)})
		before = img(bb)
		c[bb] = []byte(fmt.Sprintf("%-119d", n))
		txn.Changes = append(txn.Changes, model.RowChange{Op: model.Update, Table: tbl, Before: before, After: img(bb)})
		txn.Changes = append(txn.Changes, model.RowChange{Op: model.Delete, Table: tbl, Before: img(d)})
		txn.Changes = append(txn.Changes, model.RowChange{Op: model.Insert, Table: tbl, After: img(d)})
		g.Txns = append(g.Txns, txn)
		for i, ch := range txn.Changes {
			pc := pipeline.Change{RowChange: ch, Txn: txn}
			if ch.Before != nil {
				pc.Ident, pc.HasIdent = uint64(ch.Before[0].(int32)), true
			}
			switch i {
			case 0, 1:
				upd = append(upd, pc)
			case 2:
				del = append(del, pc)
			default:
				ins = append(ins, pc)
			}
		}
		if len(g.Txns) == group || n == b.N-1 {
			gg := g
			gg.Changes = append(append(upd, del...), ins...)
			upd, del, ins = nil, nil, nil
			gg.One = func(i int) []pipeline.Change {
				var out []pipeline.Change
				for _, ch := range gg.Txns[i].Changes {
					out = append(out, pipeline.Change{RowChange: ch, Txn: gg.Txns[i]})
				}
				return out
			}
			groups = append(groups, gg)
			g = &pipeline.Group{}
		}
	}
	s := f.sink()
	if _, _, err := s.Open(ctx); err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	sess, err := s.Session(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer sess.Close()
	start := binlogpos.Position{File: "bin.000001", Pos: 4}
	b.ResetTimer()
	for _, g := range groups {
		if _, err := sess.ApplyGroup(ctx, g, start); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "txn/s")
	// The target holds the source's rows.
	var sumK, changedC int64
	if err := f.admin.QueryRow(fmt.Sprintf("SELECT SUM(k), SUM(c <> REPEAT('c', 119)) FROM `%s`.sbtest", f.name)).Scan(&sumK, &changedC); err != nil {
		b.Fatal(err)
	}
	var wantK int64
	for i := 1; i <= rows; i++ {
		wantK += int64(k[i])
	}
	if sumK != wantK || changedC != int64(b.N) {
		b.Errorf("SUM(k) %d and %d changed c on the target, want %d and %d", sumK, changedC, wantK, b.N)
	}
}
