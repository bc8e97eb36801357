package crashtest

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sluice-db/sluice/internal/testenv"
)

// The source tables of the end-to-end tests: a keyed table with a unique
// key whose primary and unique values change, a table with an auto-increment
// key and multi-row updates, and a table without any key holding duplicates.
var sourceDDL = []string{
	`CREATE TABLE acct (id INT PRIMARY KEY, u INT NOT NULL, v VARCHAR(40), n BIGINT NOT NULL DEFAULT 0, UNIQUE KEY uk (u))`,
	`CREATE TABLE items (id BIGINT AUTO_INCREMENT PRIMARY KEY, grp INT NOT NULL, payload TEXT,
		d DATETIME(6), amount DECIMAL(12,2), KEY (grp))`,
	`CREATE TABLE logs (a INT, b VARCHAR(20), c DECIMAL(10,2))`,
	`INSERT INTO acct (id, u, v) SELECT seq, seq * 10, CONCAT('v', seq) FROM seq_1_to_2000`,
	`INSERT INTO items (grp, payload, d, amount) SELECT seq % 50, REPEAT('p', seq % 200),
		'2024-01-01' + INTERVAL seq SECOND + INTERVAL seq MICROSECOND, seq / 4 FROM seq_1_to_3000`,
	`INSERT INTO logs SELECT seq % 7, CONCAT('b', seq % 3), seq % 5 FROM seq_1_to_1000`,
}

// compareQueries are, per table, the source and target queries that print
// each row the same way in both databases.
var compareQueries = map[string][2]string{
	"acct": {`SELECT CONCAT_WS('|', id, u, IFNULL(v, 'N'), n) FROM acct`,
		`SELECT concat_ws('|', id, u, coalesce(v, 'N'), n) FROM %s.acct`},
	"items": {`SELECT CONCAT_WS('|', id, grp, IFNULL(payload, 'N'), IFNULL(DATE_FORMAT(d, '%Y-%m-%d %H:%i:%s.%f'), 'N'), IFNULL(amount, 'N')) FROM items`,
		`SELECT concat_ws('|', id, grp, coalesce(payload, 'N'), coalesce(to_char(d, 'YYYY-MM-DD HH24:MI:SS.US'), 'N'), coalesce(amount::text, 'N')) FROM %s.items`},
	"logs": {`SELECT CONCAT_WS('|', IFNULL(a, 'N'), IFNULL(b, 'N'), IFNULL(c, 'N')) FROM logs`,
		`SELECT concat_ws('|', coalesce(a::text, 'N'), coalesce(b, 'N'), coalesce(c::text, 'N')) FROM %s.logs`},
}

func mustExec(t *testing.T, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// loadStats counts the load generator's transactions.
type loadStats struct {
	committed, rolledBack atomic.Int64
	bulk                  atomic.Int64 // large transactions committed
}

// runLoad writes random transactions with `threads` sessions until ctx ends.
func runLoad(ctx context.Context, db *sql.DB, threads int, st *loadStats) *sync.WaitGroup {
	var wg sync.WaitGroup
	for i := 0; i < threads; i++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, seed*7+1))
			for ctx.Err() == nil {
				if err := loadTxn(db, rng); err != nil {
					st.rolledBack.Add(1)
					continue
				}
				st.committed.Add(1)
			}
		}(uint64(i + 1))
	}
	return &wg
}

// runBulk writes a large transaction every second or two until ctx ends:
// 20,000 rows inserted into items by one statement (about 5 MB of binlog),
// or deleted again, so that with a small --max-txn-memory they reach apply
// in fragments and kills land inside them.
func runBulk(ctx context.Context, db *sql.DB, st *loadStats) *sync.WaitGroup {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ctx.Err() == nil; i++ {
			q := `INSERT INTO items (grp, payload, d, amount) SELECT seq % 50, CONCAT('bulk', REPEAT('b', 200)), NOW(6), seq
				FROM seq_1_to_20000`
			if i%2 == 1 {
				q = `DELETE FROM items WHERE payload LIKE 'bulk%' LIMIT 20000`
			}
			if _, err := db.Exec(q); err != nil {
				st.rolledBack.Add(1)
			} else {
				st.bulk.Add(1)
			}
			select {
			case <-ctx.Done():
			case <-time.After(time.Duration(1000+rand.IntN(1000)) * time.Millisecond):
			}
		}
	}()
	return &wg
}

// loadTxn runs one transaction of 1..5 random statements; a statement error
// (duplicate key, deadlock) rolls the whole transaction back.
func loadTxn(db *sql.DB, rng *rand.Rand) error {
	tx, err := db.Begin()
	if err != nil {
		time.Sleep(10 * time.Millisecond)
		return err
	}
	n := 1 + rng.IntN(5)
	for i := 0; i < n; i++ {
		q, args := randomStatement(rng)
		if _, err := tx.Exec(q, args...); err != nil {
			tx.Rollback()
			return err
		}
	}
	return tx.Commit()
}

func randomStatement(rng *rand.Rand) (string, []any) {
	id := 1 + rng.IntN(2500)
	switch rng.IntN(14) {
	case 0, 1:
		return `UPDATE acct SET n = n + 1, v = ? WHERE id = ?`, []any{fmt.Sprint("v", rng.IntN(1e6)), id}
	case 2: // hot rows: many conflicts between transactions
		return `UPDATE acct SET n = n + 1 WHERE id = ?`, []any{1 + rng.IntN(5)}
	case 3: // unique key change (may collide: then the txn rolls back)
		return `UPDATE acct SET u = ? WHERE id = ?`, []any{rng.IntN(40000), id}
	case 4: // primary key change
		return `UPDATE acct SET id = ? WHERE id = ?`, []any{1 + rng.IntN(2500), id}
	case 5:
		return `DELETE FROM acct WHERE id = ?`, []any{id}
	case 6:
		return `INSERT INTO acct (id, u, v) VALUES (?, ?, 'new')`, []any{id, rng.IntN(40000)}
	case 7, 8:
		return `INSERT INTO items (grp, payload, d, amount) VALUES (?, ?, NOW(6), ?)`,
			[]any{rng.IntN(50), strings.Repeat("x", rng.IntN(300)), fmt.Sprintf("%d.%02d", rng.IntN(1e6), rng.IntN(100))}
	case 9: // several rows in one statement
		return `UPDATE items SET amount = amount + 1 WHERE grp = ? AND id % 10 = ?`, []any{rng.IntN(50), rng.IntN(10)}
	case 10:
		return `DELETE FROM items WHERE id = ?`, []any{1 + rng.IntN(6000)}
	case 11:
		return `INSERT INTO logs VALUES (?, ?, ?)`, []any{rng.IntN(7), fmt.Sprint("b", rng.IntN(3)), rng.IntN(5)}
	case 12: // one of several identical rows
		return `DELETE FROM logs WHERE a = ? AND b = ? LIMIT 1`, []any{rng.IntN(7), fmt.Sprint("b", rng.IntN(3))}
	default:
		return `UPDATE logs SET c = c + 1 WHERE a = ? LIMIT 1`, []any{rng.IntN(7)}
	}
}

// compareTables checks that every table of the source equals its copy in
// target schema pgSchema, as multisets of printed rows.
func compareTables(t *testing.T, my *sql.DB, pg *pgx.Conn, pgSchema string) {
	t.Helper()
	for table, q := range compareQueries {
		src := slices.Sorted(slices.Values(testenv.MySQLRows(t, my, q[0])))
		dst := slices.Sorted(slices.Values(testenv.PGRows(t, pg, fmt.Sprintf(q[1], pgx.Identifier{pgSchema}.Sanitize()))))
		if len(src) != len(dst) {
			t.Errorf("%s: source has %d rows, target %d; first differences: %s", table, len(src), len(dst), diff(src, dst))
			continue
		}
		for i := range src {
			if src[i] != dst[i] {
				t.Errorf("%s: differs; first differences: %s", table, diff(src, dst))
				break
			}
		}
		t.Logf("%s: %d rows equal", table, len(src))
	}
}

// diff lists up to five rows only in one side (multiset difference).
func diff(src, dst []string) string {
	count := map[string]int{}
	for _, s := range src {
		count[s]++
	}
	for _, d := range dst {
		count[d]--
	}
	var only []string
	for row, c := range count {
		switch {
		case c > 0:
			only = append(only, fmt.Sprintf("source only ×%d: %s", c, row))
		case c < 0:
			only = append(only, fmt.Sprintf("target only ×%d: %s", -c, row))
		}
	}
	sort.Strings(only)
	if len(only) > 5 {
		only = append(only[:5], fmt.Sprintf("… %d more", len(only)-5))
	}
	return strings.Join(only, "; ")
}
