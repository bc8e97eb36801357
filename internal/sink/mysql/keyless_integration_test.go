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
	"github.com/sluice-db/sluice/internal/testenv"
)

// keylessTable is app.k (a INT, b VARCHAR(20)) without a key.
func keylessTable() *schema.Table {
	return &schema.Table{TableID: schema.TableID{Database: "app", Name: "k"}, Engine: "InnoDB", Columns: []schema.Column{
		{Name: "a", DataType: "int"}, {Name: "b", DataType: "varchar", Charset: "utf8mb4"}}}
}

// keylessGroup is a group of one source transaction per change.
func keylessGroup(pos uint32, chs ...model.RowChange) *pipeline.Group {
	g := &pipeline.Group{}
	for i, ch := range chs {
		txn := &model.Txn{End: binlogpos.Position{File: "bin.000001", Pos: pos + uint32(i)}, Changes: []model.RowChange{ch}}
		g.Txns = append(g.Txns, txn)
		g.Changes = append(g.Changes, pipeline.Change{RowChange: ch, Txn: txn})
	}
	g.One = func(i int) []pipeline.Change { return g.Changes[i : i+1] }
	return g
}

func keylessDelete(tv *schema.Table, a int32, b any) model.RowChange {
	return model.RowChange{Op: model.Delete, Table: tv, Before: []any{a, b}}
}

// TestKeylessDeletesOnMyRocksStayGrouped: MyRocks counts every row a
// locking scan reads against rocksdb_max_row_locks (1M by default), released
// or not, for the whole transaction. A keyless table's delete, one
// full-scan DELETE … LIMIT 1 per row, made a group of 300 deletes of a
// 20,000-row table (between inserts) read 6M rows: refused, and the group
// applied one transaction at a time (the 111 s lag of issue 22). The group
// must apply as one target transaction, every remaining row exact.
func TestKeylessDeletesOnMyRocksStayGrouped(t *testing.T) {
	f := newFixture(t)
	if !testenv.Get(t).MySQLTarget(t).HasRocksDB(t) {
		t.Skip("the MySQL target has no ROCKSDB engine")
	}
	ctx := context.Background()
	const rows, deleted = 20000, 200
	f.exec("CREATE TABLE `" + f.name + "`.k (a INT, b VARCHAR(20)) ENGINE=ROCKSDB")
	f.exec(fmt.Sprintf("INSERT INTO `%s`.k SELECT seq, CONCAT('v', seq) FROM `%s`.seq_1_to_%d", f.name, f.name, rows))
	tv := keylessTable()
	// As an application writes: each source transaction an insert or a
	// delete, of the last rows (a scan reads the whole table) and of rows
	// inserted a moment before.
	var chs []model.RowChange
	for i := rows - deleted + 1; i <= rows; i++ {
		n := int32(i + deleted)
		chs = append(chs, keylessDelete(tv, int32(i), fmt.Sprintf("v%d", i)),
			model.RowChange{Op: model.Insert, Table: tv, After: []any{n, fmt.Sprintf("v%d", n)}})
		if i%2 == 0 {
			chs = append(chs, keylessDelete(tv, n, fmt.Sprintf("v%d", n)))
		}
	}
	sess := f.session(ctx)
	oneByOne, err := sess.ApplyGroup(ctx, keylessGroup(100, chs...), binlogpos.Position{File: "bin.000001", Pos: 4})
	if err != nil {
		t.Fatal(err)
	}
	if oneByOne {
		t.Fatal("the group of keyless deletes fell back to one transaction at a time")
	}
	// The statements of one target transaction scan the table once per
	// chunk of rows, yet a large table (or a large transaction) passes 1M:
	// the sessions lift the bound.
	var locks int64
	if err := sess.conn.QueryRowContext(ctx, "SELECT @@SESSION.rocksdb_max_row_locks").Scan(&locks); err != nil || locks != 1<<30 {
		t.Fatalf("the apply session's rocksdb_max_row_locks is %d (%v), want %d", locks, err, 1<<30)
	}
	var n, sum, bad int
	if err := f.admin.QueryRow("SELECT COUNT(*), SUM(a), SUM(b <> CONCAT('v', a)) FROM `"+f.name+"`.k").Scan(&n, &sum, &bad); err != nil {
		t.Fatal(err)
	}
	// Left: 1..rows-deleted and the odd ones of the rows inserted.
	left, wantSum := rows-deleted, (rows-deleted)*(rows-deleted+1)/2
	for i := rows - deleted + 1; i <= rows; i += 2 {
		left, wantSum = left+1, wantSum+i+deleted
	}
	if n != left || sum != wantSum || bad != 0 {
		t.Fatalf("target holds %d rows, sum %d, %d changed; want %d rows, sum %d", n, sum, bad, left, wantSum)
	}
}

// TestKeylessDeletesExact: a run of keyless deletes goes several rows to a
// statement, yet deletes exactly one row per change: one copy of a row the
// target holds twice, both copies when the source deleted both, rows
// inserted earlier in the same group; and a row the target does not hold
// is a divergence naming it, not a silent extra delete of a duplicate.
func TestKeylessDeletesExact(t *testing.T) {
	testenv.MariaDBAndMySQL9(t, testKeylessDeletesExact)
}

func testKeylessDeletesExact(t *testing.T, env *testenv.Env) {
	f := newFixtureOn(t, env)
	ctx := context.Background()
	q := "`" + f.name + "`.k"
	f.exec("CREATE TABLE " + q + " (a INT, b VARCHAR(20))")
	f.exec("INSERT INTO " + q + " VALUES (1,'x'),(1,'x'),(2,'y'),(2,'y'),(3,'z'),(4,NULL),(5,'w'),(6,'Z')")
	tv := keylessTable()
	ins := model.RowChange{Op: model.Insert, Table: tv, After: []any{int32(7), "new"}}
	g := keylessGroup(100, ins,
		keylessDelete(tv, 1, "x"),                            // one of two copies
		keylessDelete(tv, 2, "y"), keylessDelete(tv, 2, "y"), // both copies
		keylessDelete(tv, 4, nil),   // NULL matched with <=>
		keylessDelete(tv, 7, "new"), // inserted in this group
		keylessDelete(tv, 6, "Z"))   // not 'z' (bytes, not the collation)
	sess := f.session(ctx)
	start := binlogpos.Position{File: "bin.000001", Pos: 4}
	oneByOne, err := sess.ApplyGroup(ctx, g, start)
	if err != nil || oneByOne {
		t.Fatalf("keyless deletes: one by one %v, %v", oneByOne, err)
	}
	if got, want := strings.Join(f.strings("SELECT CONCAT(a, ':', IFNULL(b, 'NULL')) FROM "+q+" ORDER BY a, b"), " "), "1:x 3:z 5:w"; got != want {
		t.Fatalf("target rows %q, want %q", got, want)
	}

	// The target lacks (8,'v'): a divergence naming it, and the copy of
	// (1,'x') the same statement could have matched stays.
	g = keylessGroup(200, keylessDelete(tv, 3, "z"), keylessDelete(tv, 8, "v"), keylessDelete(tv, 5, "w"))
	_, err = sess.ApplyGroup(ctx, g, start)
	if err == nil || !strings.Contains(err.Error(), "diverged") || !strings.Contains(err.Error(), "8") {
		t.Fatalf("deleting a row the target lacks: %v; want a divergence naming a=8", err)
	}
	if got, want := strings.Join(f.strings("SELECT CONCAT(a, ':', IFNULL(b, 'NULL')) FROM "+q+" ORDER BY a, b"), " "), "1:x 5:w"; got != want {
		t.Fatalf("target rows %q after the divergence, want %q (the transaction before it applied)", got, want)
	}
}
