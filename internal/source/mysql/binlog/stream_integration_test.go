package binlog

import (
	"context"
	"database/sql/driver"
	"fmt"
	gomysql "github.com/go-mysql-org/go-mysql/mysql"
	"github.com/sluice-db/sluice/internal/testenv"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/typemap"
)

// textRows reads rows the way the snapshot does (SelectExpr + FromText),
// ordered by the first column, so stream values can be compared with them.
func (f *fixture) textRows(table *schema.Table, m *typemap.Mapper, where string) [][]any {
	f.t.Helper()
	conv, err := m.Compile(table)
	if err != nil {
		f.t.Fatal(err)
	}
	exprs := make([]string, len(table.Columns))
	for i, c := range table.Columns {
		exprs[i] = typemap.SelectExpr(c, "`"+c.Name+"`")
	}
	q := fmt.Sprintf("SELECT %s FROM `%s` WHERE %s ORDER BY 1", strings.Join(exprs, ", "), table.Name, where)
	rows, err := f.my.Query(q)
	if err != nil {
		f.t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out [][]any
	for rows.Next() {
		raw := make([][]byte, len(exprs))
		ptrs := make([]any, len(exprs))
		for i := range raw {
			ptrs[i] = &raw[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			f.t.Fatal(err)
		}
		row := make([]any, len(raw))
		for i, b := range raw {
			if row[i], err = conv.Columns[i].FromText(b); err != nil {
				f.t.Fatalf("FromText %s: %v", table.Columns[i].Name, err)
			}
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		f.t.Fatal(err)
	}
	return out
}

func changeSummary(c model.RowChange) string {
	return fmt.Sprintf("%s %s before=%s after=%s", c.Op, c.Table.Name, plain(c.Before), plain(c.After))
}

// plain prints converted values the way their driver.Valuer renders them
// (pgtype.Numeric as its decimal text, timestamps as time.Time).
func plain(row []any) string {
	parts := make([]string, len(row))
	for i, v := range row {
		if dv, ok := v.(driver.Valuer); ok {
			x, err := dv.Value()
			if err != nil {
				return err.Error()
			}
			v = x
		}
		parts[i] = fmt.Sprint(v)
		if v == nil {
			parts[i] = "NULL"
		}
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func TestStreamInsertUpdateDeleteAndMultiTableTxn(t *testing.T) {
	testenv.Flavors(t, testStreamInsertUpdateDeleteAndMultiTableTxn)
}

func testStreamInsertUpdateDeleteAndMultiTableTxn(t *testing.T, env *testenv.Env) {
	f := newFixtureOn(t, env, "bl_dml", `
		CREATE TABLE t1 (id INT PRIMARY KEY, v VARCHAR(20), n DECIMAL(10,2), ts DATETIME(3));
		CREATE TABLE t2 (k VARCHAR(10) PRIMARY KEY, x BIGINT UNSIGNED);
		CREATE TABLE other (id INT PRIMARY KEY)`)
	f.scope.Exclude = append(f.scope.Exclude, schema.Pattern{DB: f.db, Table: "other"})
	start := f.position()
	cfg := f.config(start, ignoreOthers(f.db))
	r := startStream(t, cfg)

	f.exec(`INSERT INTO t1 VALUES (1, 'a', 1.5, '2020-01-02 03:04:05.123')`)
	f.exec(`INSERT INTO other VALUES (1)`) // out of scope: a marker, no changes
	f.exec(`BEGIN`)
	tx, err := f.my.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO t1 VALUES (2, 'b', NULL, NULL), (3, 'c', -2.25, '1999-12-31 23:59:59.999')`,
		`UPDATE t1 SET id = 10, v = 'moved' WHERE id = 1`,
		`DELETE FROM t1 WHERE id = 2`,
		`INSERT INTO t2 VALUES ('k', 18446744073709551615)`,
		`INSERT INTO other VALUES (2)`,
	} {
		if _, err := tx.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}

	first := r.next(10 * time.Second)
	if len(first.Changes) != 1 || first.Changes[0].Op != model.Insert || first.Changes[0].Table.Name != "t1" {
		t.Fatalf("first txn: %+v", first)
	}
	m := testMapper(t, cfg)
	t1 := cfg.Tables[schema.TableID{Database: f.db, Name: "t1"}]
	t2 := cfg.Tables[schema.TableID{Database: f.db, Name: "t2"}]
	// What the snapshot would read for id 10 (was 1) must equal the insert's image but id/v.
	if got, want := changeSummary(first.Changes[0]), "insert t1 before=[] after=[1 a 1.50 2020-01-02 03:04:05.123 +0000 UTC]"; got != want {
		t.Errorf("insert: %s, want %s", got, want)
	}
	if first.GTID == "" || !gtidInSet(t, endOf(first).Flavor, first.GTID, endOf(first).GTIDSet) {
		t.Errorf("gtid %q not in end set %q", first.GTID, endOf(first).GTIDSet)
	}
	if d := time.Since(first.Timestamp); d < 0 || d > time.Minute {
		t.Errorf("timestamp %s is not the commit time", first.Timestamp)
	}
	if first.End.Compare(start) <= 0 {
		t.Errorf("end %s not after start %s", first.End, start)
	}

	second := r.next(10 * time.Second)
	if second.Seq <= first.Seq || second.End.Compare(first.End) <= 0 {
		t.Errorf("second txn seq %d end %s after seq %d end %s", second.Seq, second.End, first.Seq, first.End)
	}
	var got []string
	for _, c := range second.Changes {
		got = append(got, changeSummary(c))
	}
	want := []string{
		"insert t1 before=[] after=[2 b NULL NULL]",
		"insert t1 before=[] after=[3 c -2.25 1999-12-31 23:59:59.999 +0000 UTC]",
		"update t1 before=[1 a 1.50 2020-01-02 03:04:05.123 +0000 UTC] after=[10 moved 1.50 2020-01-02 03:04:05.123 +0000 UTC]",
		"delete t1 before=[2 b NULL NULL] after=[]",
		"insert t2 before=[] after=[k 18446744073709551615]",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The final images equal what the snapshot path reads now.
	snap1 := f.textRows(t1, m, "id IN (3, 10)")
	if !reflect.DeepEqual(second.Changes[1].After, snap1[0]) || !reflect.DeepEqual(second.Changes[2].After, snap1[1]) {
		t.Errorf("binlog images differ from the snapshot reading:\n%#v\n%#v\nsnapshot:\n%#v", second.Changes[1].After, second.Changes[2].After, snap1)
	}
	snap2 := f.textRows(t2, m, "TRUE")
	if !reflect.DeepEqual(second.Changes[4].After, snap2[0]) {
		t.Errorf("t2 binlog %#v, snapshot %#v", second.Changes[4].After, snap2[0])
	}
	if err := r.stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	_ = context.Background
}

// gtidInSet reports whether one GTID (MariaDB d-s-n, MySQL uuid:n) is in a
// GTID set of the flavor, as go-mysql reads both.
func gtidInSet(t *testing.T, flavor, gtid, set string) bool {
	t.Helper()
	one, err := gomysql.ParseGTIDSet(flavor, gtid)
	if err != nil {
		t.Fatalf("GTID %q: %v", gtid, err)
	}
	all, err := gomysql.ParseGTIDSet(flavor, set)
	if err != nil {
		t.Fatalf("GTID set %q: %v", set, err)
	}
	return all.Contain(one)
}
