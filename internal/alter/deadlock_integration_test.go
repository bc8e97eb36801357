package alter

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestAlterNeverDeadlocksTheApplication: application transactions update
// several hot rows each, in descending key order, while the appliers read
// changed keys in ascending order with shared locks. An applier that waited
// for a row lock while holding others would form lock cycles whose victim
// InnoDB picks by weight — the application's small transaction, a client
// error. The appliers never wait holding locks (apply.go), so there are no
// client errors, and every increment is in the altered table.
func TestAlterNeverDeadlocksTheApplication(t *testing.T) {
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		name := env.NewDatabase(t, "alter_nodeadlock")
		db := env.MySQL(t, name)
		seed(t, db, baseTable)
		const hot, writers, perTxn = 300, 6, 4
		var (
			mu    sync.Mutex
			incr  = map[int64]int64{}
			errs  atomic.Int64
			first atomic.Value
			txns  atomic.Int64
			stop  = make(chan struct{})
			wg    sync.WaitGroup
		)
		for w := 0; w < writers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ctx := context.Background()
				conn, err := db.Conn(ctx)
				if err != nil {
					errs.Add(1)
					first.CompareAndSwap(nil, err.Error())
					return
				}
				defer conn.Close()
				rng := rand.New(rand.NewPCG(uint64(w), 11))
				for {
					select {
					case <-stop:
						return
					default:
					}
					ids := map[int64]bool{}
					for len(ids) < perTxn {
						ids[1+rng.Int64N(hot)] = true
					}
					order := make([]int64, 0, perTxn)
					for id := range ids {
						order = append(order, id)
					}
					slices.Sort(order)
					slices.Reverse(order) // the appliers lock in ascending order
					err := func() error {
						tx, err := conn.BeginTx(ctx, nil)
						if err != nil {
							return err
						}
						for _, id := range order {
							if _, err := tx.ExecContext(ctx, "UPDATE t SET c = c + 1 WHERE id = ?", id); err != nil {
								tx.Rollback()
								return err
							}
							time.Sleep(200 * time.Microsecond)
						}
						return tx.Commit()
					}()
					if err != nil {
						errs.Add(1)
						first.CompareAndSwap(nil, err.Error())
						continue
					}
					mu.Lock()
					for _, id := range order {
						incr[id]++
					}
					mu.Unlock()
					txns.Add(1)
				}
			}()
		}
		o := alterOptions(t, env, name, "ADD COLUMN d INT NOT NULL DEFAULT 7")
		o.afterChunk = func(int) { time.Sleep(40 * time.Millisecond) } // the appliers work beside the copy
		_, err := Run(context.Background(), o)
		time.Sleep(200 * time.Millisecond)
		close(stop)
		wg.Wait()
		if err != nil {
			t.Fatalf("alter: %v", err)
		}
		if n := errs.Load(); n > 0 {
			t.Errorf("%d application transactions failed during the alter, first: %v", n, first.Load())
		}
		t.Logf("%d application transactions of %d rows", txns.Load(), perTxn)
		rows, err := db.Query("SELECT id, c, d FROM t WHERE id <= ? ORDER BY id", hot)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		n := 0
		for rows.Next() {
			var id, c, d int64
			if err := rows.Scan(&id, &c, &d); err != nil {
				t.Fatal(err)
			}
			if want := id%13 + incr[id]; c != want || d != 7 {
				t.Errorf("id %d: c %d, d %d; want c %d (seeded %d + %d increments), d 7", id, c, d, want, id%13, incr[id])
			}
			n++
		}
		if n != hot {
			t.Errorf("%d hot rows, want %d", n, hot)
		}
		leftovers(t, db, name)
	})
}
