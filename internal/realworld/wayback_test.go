package realworld

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/cutover"
	"github.com/sluice-db/sluice/internal/source/postgres/logical"
	"github.com/sluice-db/sluice/internal/testenv"
)

// pgWrite is one transaction of the application writing to PostgreSQL after
// the cut-over; q names a table of the migrated schema.
type pgWrite func(ctx context.Context, tx pgx.Tx, q func(table string) string, rng *rand.Rand) error

// wayBackLoad is what a scenario's application does after the cut-over.
type wayBackLoad struct {
	// write is one transaction on PostgreSQL; minWrites the least number
	// of them the load must commit.
	write     pgWrite
	minWrites int64
	// proof is a count query on the source that is 0 unless the load's
	// writes came back.
	proof string
	// prepare runs after the cut-over, before the reverse stream starts:
	// what the DBA does then (triggers moved to PostgreSQL...).
	prepare func(t *testing.T, m migrated)
	// restore runs after the fallback, before the application writes to the
	// source again (the DBA's part: triggers back on MySQL...).
	restore func(t *testing.T, m migrated)
	// fallback are statements the application runs on the source after the
	// fallback (inserts with AUTO_INCREMENT ids...): each must succeed.
	fallback []string
}

// appPath runs what every application scenario goes through: migrate under
// its load (no snapshot warning about a dropped default, a generated column
// or an object not created), compare, damage the target (damage: the
// statements and the tables they touch) and repair it with verify, compare
// again, then the way back. ok is false when a step before the damage
// failed (the rest would only repeat it).
func appPath(t *testing.T, s scenario, compare func(*testing.T, migrated), damage func(q func(string) string) ([]string, []string), back wayBackLoad) (m migrated, ok bool) {
	t.Helper()
	m = s.run(t)
	requireNoWarningsAbout(t, m, "default", "generated column expression", "not created")
	compare(t, m)
	if t.Failed() {
		return m, false
	}
	stmts, tables := damage(m.pgq)
	damageAndRepair(t, m, stmts, tables...)
	compare(t, m)
	wayBack(t, m, back)
	return m, true
}

// wayBack runs the rest of the path a DBA relies on for a rollback, on a
// scenario after run (its load stopped, verify equal): `sluice cutover`,
// then the application's write load on PostgreSQL while `sluice replicate
// --source postgres://… --target mysql://…` carries it into the source
// database, then `--until-caught-up`; every column of every table must then
// be equal on both sides, and the forward `sluice verify` must report equal
// (after a fallback the source is the truth again); then the application
// writes to the source again.
func wayBack(t *testing.T, m migrated, app wayBackLoad) {
	t.Helper()
	bin := testenv.SluiceBinary(t)
	logPath := filepath.Join(t.TempDir(), "wayback.log")
	rev := cutover.DefaultReverseStream(m.stream)
	forgetWayBack(t, m, rev)

	if code := runSluice(t, bin, logPath, append([]string{"cutover", "--source", m.sourceURL, "--target", m.targetURL,
		"--include", m.db, "--stream", m.stream, "--quiet-for", "1s", "--log-level", "warn"}, m.naming...)...); code != 0 {
		t.Fatalf("cutover: exit %d\n%s", code, tailFile(logPath, 80))
	}
	if app.prepare != nil {
		app.prepare(t, m)
	}
	back := append([]string{"replicate", "--source", m.targetURL, "--target", m.sourceURL, "--stream", rev,
		"--workers", "2", "--log-level", "warn"}, m.naming...)
	live := testenv.SluiceCommand(bin, back...)
	f := appendFile(t, logPath)
	live.Stdout, live.Stderr = f, f
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	liveDone := make(chan error, 1)
	go func() { liveDone <- live.Wait() }()
	t.Cleanup(func() {
		if live.ProcessState == nil {
			_ = live.Process.Kill()
			<-liveDone
		}
	})

	writes, err := pgLoad(m, app.write, 4*time.Second, liveDone)
	if err != nil {
		t.Fatalf("write load on PostgreSQL: %v\n%s", err, tailFile(logPath, 60))
	}
	t.Logf("%d application transactions on PostgreSQL after the cut-over", writes)
	if writes < app.minWrites {
		t.Errorf("%d PostgreSQL transactions, want at least %d", writes, app.minWrites)
	}
	select {
	case err := <-liveDone:
		t.Fatalf("the reverse stream ended under the load: %v\n%s", err, tailFile(logPath, 80))
	default:
	}
	_ = live.Process.Signal(os.Interrupt)
	select {
	case <-liveDone:
	case <-time.After(60 * time.Second):
		t.Fatalf("the reverse stream did not stop on SIGINT\n%s", tailFile(logPath, 60))
	}
	if code := runSluice(t, bin, logPath, append(back, "--until-caught-up")...); code != 0 {
		t.Fatalf("reverse replicate --until-caught-up: exit %d\n%s", code, tailFile(logPath, 80))
	}
	var came int
	if err := m.my.QueryRow(app.proof).Scan(&came); err != nil || came == 0 {
		t.Errorf("%s: %d, %v: the PostgreSQL writes did not come back", app.proof, came, err)
	}
	compareAllPG(t, m, nil)
	if code := runSluice(t, bin, logPath, append([]string{"verify", "--online=off", "--log-level", "warn", "--source", m.sourceURL,
		"--target", m.targetURL, "--include", m.db, "--stream", m.stream}, m.naming...)...); code != 0 {
		t.Errorf("verify after the way back: exit %d\n%s", code, tailFile(logPath, 80))
	}
	if app.restore != nil {
		app.restore(t, m)
	}
	for _, q := range app.fallback {
		if _, err := m.my.Exec(q); err != nil {
			t.Errorf("after the fallback: %s: %v", q, err)
		}
	}
}

// pgLoad runs write in transactions on the target for d and returns how
// many committed; it stops early when the reverse stream ends. Serialization
// failures, deadlocks and unique violations (the two sessions replacing the
// same rows at once: delete, then insert) roll back and are retried.
func pgLoad(m migrated, write pgWrite, d time.Duration, liveDone chan error) (int64, error) {
	ctx := context.Background()
	q := m.pgq
	var n atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	deadline := time.Now().Add(d)
	for w := range 2 { // two application sessions
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w)+7, 11))
			for time.Now().Before(deadline) && len(liveDone) == 0 {
				err := pgx.BeginFunc(ctx, m.pg, func(tx pgx.Tx) error { return write(ctx, namedTx{tx, m}, q, rng) })
				var pe *pgconn.PgError
				if errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01" || pe.Code == "23505") {
					continue
				}
				if err != nil {
					mu.Lock()
					first = errors.Join(first, err)
					mu.Unlock()
					return
				}
				n.Add(1)
				time.Sleep(2 * time.Millisecond)
			}
		}()
	}
	wg.Wait()
	return n.Load(), first
}

// forgetWayBack removes, when the test ends, what the cut-over and the
// reverse stream leave: the slot and publication, the boundary records on
// both sides, the reverse stream's state in the source's database sluice.
func forgetWayBack(t *testing.T, m migrated, rev string) {
	t.Cleanup(func() {
		ctx := context.Background()
		if c, err := pgx.Connect(ctx, m.env.PGAdminURL()); err == nil {
			_ = logical.Disarm(ctx, c, rev)
			_, _ = c.Exec(ctx, "DELETE FROM sluice.cutover WHERE stream = $1", m.stream)
			_ = c.Close(ctx)
		}
		_, _ = m.my.Exec("DELETE FROM sluice.cutover WHERE stream = ?", m.stream)
		_ = mysqlstate.Delete(ctx, m.my, rev)
	})
}

// pgExecs runs statements in order, each followed by its arguments, stopping
// at the first error.
func pgExecs(ctx context.Context, tx pgx.Tx, stmtsAndArgs ...any) error {
	for i := 0; i+1 < len(stmtsAndArgs); i += 2 {
		stmt := stmtsAndArgs[i].(string)
		if _, err := tx.Exec(ctx, stmt, stmtsAndArgs[i+1].([]any)...); err != nil {
			return fmt.Errorf("%s: %w", stmt, err)
		}
	}
	return nil
}
