package postgres

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
)

// TestApplyThroughput measures backlog apply rates of sysbench-shaped
// transactions for several settings; it guides the defaults in Config.
// Run it with SLUICE_APPLY_BENCH=1 (it takes about a minute), optionally
// SLUICE_APPLY_BENCH_TXNS=N.
func TestApplyThroughput(t *testing.T) {
	if os.Getenv("SLUICE_APPLY_BENCH") == "" {
		t.Skip("set SLUICE_APPLY_BENCH=1 to measure apply throughput")
	}
	n := 20000
	if s := os.Getenv("SLUICE_APPLY_BENCH_TXNS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	only := os.Getenv("SLUICE_APPLY_BENCH_ONLY")
	type setting struct {
		name string
		cfg  func(*applyConfig)
	}
	settings := []setting{
		{"w1", func(c *applyConfig) { c.Workers = 1 }},
		{"w2", func(c *applyConfig) { c.Workers = 2 }},
		{"w4", func(c *applyConfig) { c.Workers = 4 }},
		{"w8", func(c *applyConfig) { c.Workers = 8 }},
		{"w16", func(c *applyConfig) { c.Workers = 16 }},
		{"w4-sync", func(c *applyConfig) { c.Workers = 4; c.Sink.SyncCommit = true }},
		{"w4-nogroup", func(c *applyConfig) { c.Workers = 4; c.GroupRows = 1 }},
		{"w4-nocopy", func(c *applyConfig) { c.Workers = 4; c.Sink.CopyRows = -1 }},
		{"w4-copy200", func(c *applyConfig) { c.Workers = 4; c.Sink.CopyRows = 200 }},
	}
	for _, load := range []string{"insert", "update_index", "delete", "write_only"} {
		for _, s := range settings {
			name := load + "/" + s.name
			if only != "" && !strings.Contains(name, only) {
				continue
			}
			t.Run(name, func(t *testing.T) {
				f := newFixture(t, 16)
				f.exec(`CREATE TABLE $S.sbtest1 (id int PRIMARY KEY, k int NOT NULL DEFAULT 0, c varchar(120) NOT NULL, pad varchar(60) NOT NULL)`,
					`CREATE INDEX ON $S.sbtest1 (k)`,
					`INSERT INTO $S.sbtest1 SELECT g, g % 1000, repeat('c', 119), repeat('p', 59) FROM generate_series(1, 100000) g`,
					`VACUUM ANALYZE $S.sbtest1`)
				tbl := sbTable(f.db)
				txns := sbTxns(tbl, load, n)
				cfg := f.config(16)
				s.cfg(&cfg)
				start := time.Now()
				if err := f.run(cfg, txns); err != nil {
					t.Fatal(err)
				}
				el := time.Since(start)
				t.Logf("%-24s %6d txns in %5.2fs = %7.0f txn/s", name, n, el.Seconds(), float64(n)/el.Seconds())
			})
		}
	}
}

func sbTable(db string) *schema.Table {
	return &schema.Table{TableID: schema.TableID{Database: db, Name: "sbtest1"},
		Columns: []schema.Column{{Name: "id", DataType: "int"}, {Name: "k", DataType: "int"},
			{Name: "c", DataType: "varchar"}, {Name: "pad", DataType: "varchar"}},
		PrimaryKey: []string{"id"},
		Indexes:    []schema.Index{{Name: "k_1", Columns: []schema.IndexColumn{{Name: "k"}}}}}
}

// sbTxns builds n sysbench-like transactions against the 100k rows of
// sbtest1 (ids 1..100000, k = id % 1000, c and pad filled).
func sbTxns(tbl *schema.Table, load string, n int) []*model.Txn {
	rng := rand.New(rand.NewPCG(1, uint64(len(load))))
	rows := map[int32][]any{}
	get := func(id int32) []any {
		if r, ok := rows[id]; ok {
			return r
		}
		return []any{id, id % 1000, strings.Repeat("c", 119), strings.Repeat("p", 59)}
	}
	next := int32(100001)
	txns := make([]*model.Txn, 0, n)
	for i := 0; i < n; i++ {
		t := &model.Txn{End: pos(i + 1), Timestamp: time.Now()}
		id := int32(1 + rng.IntN(100000))
		cur := get(id)
		switch load {
		case "insert":
			r := []any{next, int32(rng.IntN(1000)), fmt.Sprintf("%0119d", i), strings.Repeat("q", 59)}
			next++
			t.Changes = []model.RowChange{{Op: model.Insert, Table: tbl, After: r}}
		case "update_index":
			r := []any{cur[0], cur[1].(int32) + 1, cur[2], cur[3]}
			rows[id] = r
			t.Changes = []model.RowChange{{Op: model.Update, Table: tbl, Before: cur, After: r}}
		case "delete": // sysbench oltp_delete deletes; the write_only mix re-inserts
			r := []any{cur[0], cur[1], fmt.Sprintf("%0119d", i), cur[3]}
			rows[id] = r
			t.Changes = []model.RowChange{{Op: model.Delete, Table: tbl, Before: cur}, {Op: model.Insert, Table: tbl, After: r}}
		case "write_only":
			u1 := []any{cur[0], cur[1].(int32) + 1, cur[2], cur[3]}
			id2 := int32(1 + rng.IntN(100000))
			if id2 == id {
				id2 = id%100000 + 1
			}
			c2 := get(id2)
			u2 := []any{c2[0], c2[1], fmt.Sprintf("%0119d", i), c2[3]}
			id3 := int32(1 + rng.IntN(100000))
			for id3 == id || id3 == id2 {
				id3 = id3%100000 + 1
			}
			c3 := get(id3)
			r3 := []any{c3[0], c3[1], fmt.Sprintf("x%0118d", i), c3[3]}
			rows[id], rows[id2], rows[id3] = u1, u2, r3
			t.Changes = []model.RowChange{
				{Op: model.Update, Table: tbl, Before: cur, After: u1},
				{Op: model.Update, Table: tbl, Before: c2, After: u2},
				{Op: model.Delete, Table: tbl, Before: c3},
				{Op: model.Insert, Table: tbl, After: r3},
			}
		}
		t.Bytes = int64(len(t.Changes) * 200)
		txns = append(txns, t)
	}
	return txns
}
