package alter

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/testenv"
)

// load is a write load on table t(id, a, b): writers insert, update,
// delete and move rows through server-side prepared statements kept open
// across the swap. Each writer owns the ids ≡ w (mod writers), so its model
// of its rows is exact whatever order the writers commit in.
type load struct {
	t       *testing.T
	table   string // the table written, "t" unless startLoadOn
	db      *sql.DB
	writers int
	stop    chan struct{}
	wg      sync.WaitGroup
	mu      sync.Mutex
	rows    map[int64]modelRow
	errs    atomic.Int64
	first   atomic.Value
	ops     atomic.Int64
	done    sync.Once // finish stops the writers once
}

type modelRow struct {
	a int64
	b string
}

const seedRows = 20000

func seed(t *testing.T, db *sql.DB, create string) map[int64]modelRow {
	t.Helper()
	return seedTable(t, db, "t", create)
}

// seedTable is seed of a table other than t (create names it).
func seedTable(t *testing.T, db *sql.DB, table, create string) map[int64]modelRow {
	t.Helper()
	if _, err := db.Exec(create); err != nil {
		t.Fatal(err)
	}
	rows := map[int64]modelRow{}
	var sb strings.Builder
	for i := int64(1); i <= seedRows; i++ {
		r := modelRow{a: i % 97, b: fmt.Sprintf("seed-%d-é", i)}
		rows[i] = r
		if sb.Len() > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, "(%d,%d,'%s',%d)", i, r.a, r.b, i%13)
		if i%2000 == 0 {
			if _, err := db.Exec("INSERT INTO " + table + " (id, a, b, c) VALUES " + sb.String()); err != nil {
				t.Fatal(err)
			}
			sb.Reset()
		}
	}
	return rows
}

func startLoad(t *testing.T, db *sql.DB, rows map[int64]modelRow, writers int) *load {
	return startLoadOn(t, db, "t", rows, writers)
}

// startLoadOn is startLoad on another table of the same columns.
func startLoadOn(t *testing.T, db *sql.DB, table string, rows map[int64]modelRow, writers int) *load {
	l := &load{t: t, db: db, table: table, writers: writers, stop: make(chan struct{}), rows: rows}
	for w := 0; w < writers; w++ {
		l.wg.Add(1)
		go l.writer(w)
	}
	return l
}

func (l *load) fail(err error) {
	l.errs.Add(1)
	l.first.CompareAndSwap(nil, err.Error())
}

func (l *load) writer(w int) {
	defer l.wg.Done()
	ctx := context.Background()
	conn, err := l.db.Conn(ctx)
	if err != nil {
		l.fail(err)
		return
	}
	defer conn.Close()
	prep := func(q string) *sql.Stmt {
		s, err := conn.PrepareContext(ctx, q)
		if err != nil {
			l.fail(err)
		}
		return s
	}
	ins := prep("INSERT INTO " + l.table + " (id, a, b) VALUES (?, ?, ?)")
	upd := prep("UPDATE " + l.table + " SET a = ?, b = ? WHERE id = ?")
	del := prep("DELETE FROM " + l.table + " WHERE id = ?")
	mov := prep("UPDATE " + l.table + " SET id = ? WHERE id = ?")
	if ins == nil || upd == nil || del == nil || mov == nil {
		return
	}
	var mine []int64
	l.mu.Lock()
	for id := range l.rows {
		if int(id)%l.writers == w {
			mine = append(mine, id)
		}
	}
	l.mu.Unlock()
	next := int64(seedRows+1000+w) / int64(l.writers) * int64(l.writers)
	for next%int64(l.writers) != int64(w) {
		next++
	}
	rng := rand.New(rand.NewPCG(uint64(w), 7))
	for n := 0; ; n++ {
		select {
		case <-l.stop:
			return
		default:
		}
		op := rng.IntN(10)
		if len(mine) == 0 {
			op = 0
		}
		switch {
		case op < 3: // insert
			id := next
			next += int64(l.writers)
			r := modelRow{a: rng.Int64N(1000), b: fmt.Sprintf("ins-%d-%d", w, n)}
			if _, err := ins.Exec(id, r.a, r.b); err != nil {
				l.fail(err)
				continue
			}
			mine = append(mine, id)
			l.set(id, &r)
		case op < 7: // update
			i := rng.IntN(len(mine))
			r := modelRow{a: rng.Int64N(1000), b: fmt.Sprintf("upd-%d-%d", w, n)}
			if _, err := upd.Exec(r.a, r.b, mine[i]); err != nil {
				l.fail(err)
				continue
			}
			l.set(mine[i], &r)
		case op < 9: // delete
			i := rng.IntN(len(mine))
			if _, err := del.Exec(mine[i]); err != nil {
				l.fail(err)
				continue
			}
			l.set(mine[i], nil)
			mine[i] = mine[len(mine)-1]
			mine = mine[:len(mine)-1]
		default: // move: a key change
			i := rng.IntN(len(mine))
			id := next
			next += int64(l.writers)
			if _, err := mov.Exec(id, mine[i]); err != nil {
				l.fail(err)
				continue
			}
			l.mu.Lock()
			l.rows[id] = l.rows[mine[i]]
			delete(l.rows, mine[i])
			l.mu.Unlock()
			mine[i] = id
		}
		l.ops.Add(1)
	}
}

func (l *load) set(id int64, r *modelRow) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if r == nil {
		delete(l.rows, id)
		return
	}
	l.rows[id] = *r
}

// finish stops the writers and checks they saw no error.
func (l *load) finish() {
	l.t.Helper()
	l.done.Do(func() {
		close(l.stop)
		l.wg.Wait()
		if n := l.errs.Load(); n > 0 {
			l.t.Errorf("%d client errors during the alter, first: %v", n, l.first.Load())
		}
		l.t.Logf("write load: %d operations", l.ops.Load())
	})
}

// compare checks every row of t against the writers' model.
func (l *load) compare(db *sql.DB) {
	l.t.Helper()
	rows, err := db.Query("SELECT id, a, b FROM " + l.table + " ORDER BY id")
	if err != nil {
		l.t.Fatal(err)
	}
	defer rows.Close()
	got := map[int64]modelRow{}
	for rows.Next() {
		var id int64
		var r modelRow
		if err := rows.Scan(&id, &r.a, &r.b); err != nil {
			l.t.Fatal(err)
		}
		got[id] = r
	}
	if err := rows.Err(); err != nil {
		l.t.Fatal(err)
	}
	var diffs []string
	for id, want := range l.rows {
		if g, ok := got[id]; !ok {
			diffs = append(diffs, fmt.Sprintf("id %d missing (want %v)", id, want))
		} else if g != want {
			diffs = append(diffs, fmt.Sprintf("id %d: got %v, want %v", id, g, want))
		}
	}
	for id, g := range got {
		if _, ok := l.rows[id]; !ok {
			diffs = append(diffs, fmt.Sprintf("id %d: unexpected row %v", id, g))
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		if len(diffs) > 10 {
			diffs = append(diffs[:10], fmt.Sprintf("... %d in all", len(diffs)))
		}
		l.t.Fatalf("table %s differs from the writers' model:\n%s", l.table, strings.Join(diffs, "\n"))
	}
	l.t.Logf("%s: %d rows equal to the model", l.table, len(got))
}

func alterOptions(t *testing.T, env *testenv.Env, db, clauses string) Options {
	t.Helper()
	src, err := config.ParseSource(env.MySQLAdminURL(db))
	if err != nil {
		t.Fatal(err)
	}
	return Options{Source: src, Table: "t", Alter: clauses, Method: MethodCopy, Workers: 3, ChunkRows: 700,
		CutoverLockTimeout: time.Second, Log: testenv.Logger(), ProgressEvery: time.Second}
}

func leftovers(t *testing.T, db *sql.DB, name string) {
	t.Helper()
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME IN ('t_new','_t_old','_t_dry')`, name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%d shadow/old tables left in %s", n, name)
	}
	if err := db.QueryRow("SELECT COUNT(*) FROM `sluice`.`alter_runs` WHERE db = ?", name).Scan(&n); err == nil && n != 0 {
		t.Errorf("alter state left for %s", name)
	}
}
