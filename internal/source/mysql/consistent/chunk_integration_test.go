package consistent

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/testenv"
)

const chunkFixture = `
SET SESSION sql_mode = '';
CREATE TABLE ints (id INT PRIMARY KEY, v INT);
INSERT INTO ints VALUES (-2147483648,1),(-5,1),(-1,1),(0,1),(1,1),(2,1),(7,1),(2147483647,1);
CREATE TABLE ubig (id BIGINT UNSIGNED PRIMARY KEY);
INSERT INTO ubig VALUES (0),(1),(9223372036854775807),(9223372036854775808),(18446744073709551614),(18446744073709551615);
CREATE TABLE comp (a INT, b VARCHAR(10) COLLATE utf8mb4_general_ci, c BIGINT, PRIMARY KEY (a, b, c));
INSERT INTO comp VALUES (1,'a',1),(1,'B',1),(1,'c',1),(1,'ä',2),(1,'😀',1),(1,'',1),(0,'z',-1),(2,'a',-9),(2,'a',9),(-1,'Q',0);
CREATE TABLE lat (s VARCHAR(10) CHARACTER SET latin1 PRIMARY KEY);
INSERT INTO lat VALUES ('é'),('Z'),('a'),('ß'),(''),('x '),('Ü');
CREATE TABLE bin (b VARBINARY(8) PRIMARY KEY);
INSERT INTO bin VALUES (0x00),(0x0000),(0x01),(0xff),(''),(0x00ff),(0x61);
CREATE TABLE dec_k (d DECIMAL(10,2) PRIMARY KEY);
INSERT INTO dec_k VALUES (-99999999.99),(-0.01),(0),(0.01),(12345678.9),(99999999.99);
CREATE TABLE dt (t DATETIME(6) PRIMARY KEY);
INSERT INTO dt VALUES ('0000-00-00 00:00:00'),('2020-00-15 00:00:00'),('1000-01-01 00:00:00'),('2024-02-29 23:59:59.999999'),('2024-02-29 23:59:59.000001'),('9999-12-31 23:59:59.999999');
CREATE TABLE tm (t TIME(6) PRIMARY KEY);
INSERT INTO tm VALUES ('-838:59:59'),('-00:00:00.000001'),('00:00:00'),('838:59:59'),('24:00:00.5');
CREATE TABLE en (e ENUM('b','a','c') NOT NULL PRIMARY KEY);
INSERT INTO en VALUES ('a'),('b'),('c'),('');
CREATE TABLE flt (f FLOAT PRIMARY KEY, d DOUBLE);
INSERT INTO flt VALUES (123456789, 1),(0.1, 2),(-1e30, 3),(0,4),(3.4e38,5);
CREATE TABLE dbl (d DOUBLE PRIMARY KEY);
INSERT INTO dbl VALUES (0.1),(-1e300),(1e-300),(0),(2.2250738585072014e-308);
CREATE TABLE uk (x VARCHAR(5) NOT NULL, y INT, UNIQUE KEY ux (x));
INSERT INTO uk VALUES ('b',1),('a',2),('c',3);
CREATE TABLE empty_t (id INT PRIMARY KEY);
CREATE TABLE one (id INT PRIMARY KEY);
INSERT INTO one VALUES (42);
CREATE TABLE nokey (x INT);
INSERT INTO nokey VALUES (1),(1),(2),(NULL);
`

func loadTables(t *testing.T, my *sql.DB, db string) *schema.Catalog {
	t.Helper()
	f, err := schema.NewFilter([]string{db}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	cat, err := schema.Load(context.Background(), my, f)
	if err != nil {
		t.Fatalf("load schema: %v", err)
	}
	return cat
}

func openSource(t *testing.T, env *testenv.Env, db string, conns int) *Source {
	t.Helper()
	m, err := config.ParseSource(env.SourceURL(db))
	if err != nil {
		t.Fatal(err)
	}
	src, err := OpenSource(context.Background(), m, conns)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return src
}

// TestPlanAndReadChunks splits every fixture table into chunks of 2 rows
// inside one consistent snapshot and checks that reading the chunks returns
// every row exactly once, in key order, with full chunks except the last.
func TestPlanAndReadChunks(t *testing.T) {
	env := testenv.Get(t)
	db := env.NewDatabase(t, "snap_chunk")
	my := env.MySQL(t, db)
	ctx := context.Background()
	if _, err := my.ExecContext(ctx, chunkFixture); err != nil {
		t.Fatalf("fixture: %v", err)
	}
	cat := loadTables(t, my, db)
	src := openSource(t, env, db, 2)
	p, err := src.OpenPoint(ctx, PointOptions{Sessions: 1, Method: MethodSingle})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	s := p.Sessions[0]
	for _, tbl := range cat.Tables {
		t.Run(tbl.Name, func(t *testing.T) {
			k, err := NewKey(tbl)
			if err != nil {
				t.Fatal(err)
			}
			var cols []string
			for _, c := range tbl.Columns {
				cols = append(cols, schema.QuoteMySQL(c.Name))
			}
			full := readAll(t, s, Query{SQL: "SELECT " + strings.Join(cols, ", ") + " FROM " + QuoteTable(tbl.TableID) + orderClause(k)})
			if k == nil {
				if tbl.Name != "nokey" {
					t.Fatalf("no key found for %s", tbl.Name)
				}
				q, _ := ChunkQuery(nil, tbl.TableID, cols, "", nil, nil)
				if got := readAll(t, s, q); len(got) != len(full) {
					t.Fatalf("unkeyed read %d rows, want %d", len(got), len(full))
				}
				return
			}
			var chunks []Chunk
			var lo Bound
			for {
				hi, err := k.NextBound(ctx, s, tbl.TableID, lo, 2)
				if err != nil {
					t.Fatal(err)
				}
				chunks = append(chunks, Chunk{Table: tbl.TableID, Seq: len(chunks) + 1, Lo: lo, Hi: hi})
				if hi == nil {
					break
				}
				lo = hi
			}
			var got []string
			for i, c := range chunks {
				q, err := ChunkQuery(k, tbl.TableID, cols, "", c.Lo, c.Hi)
				if err != nil {
					t.Fatal(err)
				}
				rows := readAll(t, s, q)
				if c.Hi != nil && len(rows) != 2 {
					t.Errorf("%s: %d rows, want 2 (query %s)", c, len(rows), q.SQL)
				}
				if i == len(chunks)-1 && len(rows) > 2 {
					t.Errorf("last %s: %d rows, want at most 2", c, len(rows))
				}
				got = append(got, rows...)
			}
			if strings.Join(got, "\n") != strings.Join(full, "\n") {
				t.Errorf("chunks read\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(full, "\n"))
			}
			if want := (len(full) + 1) / 2; len(full) > 0 && len(chunks) != want && len(chunks) != want+1 {
				t.Errorf("%d chunks for %d rows", len(chunks), len(full))
			}
		})
	}
}

func orderClause(k *Key) string {
	if k == nil {
		return ""
	}
	return " ORDER BY " + k.orderBy()
}

func readAll(t *testing.T, c *sql.Conn, q Query) []string {
	t.Helper()
	r, err := Read(context.Background(), c, q)
	if err != nil {
		t.Fatalf("%s: %v", q.SQL, err)
	}
	defer r.Close()
	var out []string
	for r.Next() {
		var vals []string
		for _, v := range r.Values() {
			if v == nil {
				vals = append(vals, "NULL")
			} else {
				vals = append(vals, fmt.Sprintf("%q", v))
			}
		}
		out = append(out, strings.Join(vals, ","))
	}
	if err := r.Err(); err != nil {
		t.Fatalf("%s: %v", q.SQL, err)
	}
	return out
}

// TestChunkQueryUsesIndexRange makes sure MariaDB reads a middle chunk of a
// composite key as an index range, not a full scan.
func TestChunkQueryUsesIndexRange(t *testing.T) {
	env := testenv.Get(t)
	db := env.NewDatabase(t, "snap_explain")
	my := env.MySQL(t, db)
	ctx := context.Background()
	if _, err := my.ExecContext(ctx, `CREATE TABLE t (a INT, b VARCHAR(20), c INT, v TEXT, PRIMARY KEY (a, b, c));
		INSERT INTO t SELECT seq % 100, CONCAT('x', seq), seq, 'v' FROM seq_1_to_5000; ANALYZE TABLE t`); err != nil {
		t.Fatal(err)
	}
	tbl := loadTables(t, my, db).Tables[0]
	k, err := NewKey(tbl)
	if err != nil {
		t.Fatal(err)
	}
	q, err := ChunkQuery(k, tbl.TableID, []string{"*"}, "", Bound{[]byte("5"), []byte("x105"), []byte("105")},
		Bound{[]byte("7"), []byte("x907"), []byte("907")})
	if err != nil {
		t.Fatal(err)
	}
	src := openSource(t, env, db, 1)
	conn, err := src.session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	plan := firstRow(t, conn, "EXPLAIN "+q.SQL, q.Args...)
	if plan["type"] != "range" || plan["key"] != "PRIMARY" || strings.Contains(plan["Extra"], "filesort") {
		t.Errorf("plan %v: want a range on PRIMARY without filesort", plan)
	}
	_ = time.Second
}
