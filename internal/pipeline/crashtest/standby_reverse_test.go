package crashtest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/source/postgres/logical"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestReverseStandbyTakesOver is TestStandbyTakesOver for the way back
// (PostgreSQL → MySQL): three `replicate --standby` processes of one reverse
// stream under a write load on PostgreSQL, the active one killed with
// SIGKILL (odd rounds) or frozen with SIGSTOP (even rounds). A takeover is
// complete once the new owner reads the slot (a frozen one's walsender
// keeps it until the new owner ends it). A frozen one, woken, exits 2; a
// standby with another --identifiers is refused. At the end every table on
// MySQL equals PostgreSQL, value for value (the counters show a
// transaction applied twice). Into the MariaDB target and into MySQL 9.7.
func TestReverseStandbyTakesOver(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end standby test takes a minute")
	}
	testenv.MariaDBAndMySQL9(t, testReverseStandby)
}

func testReverseStandby(t *testing.T, env *testenv.Env) {
	ctx := context.Background()
	target := env.MySQLTarget(t)
	db := testenv.UniqueName("rv_standby")
	target.NewDatabase(t, db)
	admin := target.Admin(t)
	stream := testenv.UniqueName("rvstandby")
	pg := env.PG(t)
	t.Cleanup(func() {
		_ = mysqlstate.Delete(context.Background(), admin, stream)
		if c, err := pgx.Connect(context.Background(), env.PGAdminURL()); err == nil {
			_ = logical.Disarm(context.Background(), c, stream)
			_, _ = c.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+pgx.Identifier{db}.Sanitize()+" CASCADE")
			_ = c.Close(context.Background())
		}
	})
	for _, q := range []string{
		"CREATE TABLE `" + db + "`.acct (id INT PRIMARY KEY, n INT NOT NULL, v VARCHAR(40))",
		"CREATE TABLE `" + db + "`.items (id BIGINT PRIMARY KEY, grp INT NOT NULL, payload TEXT, amount DECIMAL(12,2))",
	} {
		mustExec(t, admin, q)
	}
	// The PostgreSQL tables belong to the replicator's role, which arms the
	// slot and the publication for them.
	owner, err := pgx.Connect(ctx, env.TargetURL())
	if err != nil {
		t.Fatal(err)
	}
	schema := pgx.Identifier{db}.Sanitize()
	if _, err := owner.Exec(ctx, "CREATE SCHEMA "+schema+"; CREATE TABLE "+schema+".acct (id integer PRIMARY KEY, n integer NOT NULL, v varchar(40)); "+
		"CREATE TABLE "+schema+".items (id bigint PRIMARY KEY, grp integer NOT NULL, payload text, amount numeric(12,2))"); err != nil {
		t.Fatal(err)
	}
	_ = owner.Close(ctx)
	logPath := logFile(t)
	common := []string{"--source", env.TargetURL(), "--target", target.URL(db), "--stream", stream, "--workers", "2", "--log-level", "info"}
	first := append([]string{"replicate", "--start-at-current-lsn", "--until-caught-up"}, common...)
	if code := runToEnd(t, logPath, 2*time.Minute, first...); code != 0 {
		t.Fatalf("first run: exit %d\n%s", code, logTail(logPath, 30))
	}
	if _, err := pg.Exec(ctx, "INSERT INTO "+schema+".acct SELECT g, 0, 'start' FROM generate_series(0, 9) g"); err != nil {
		t.Fatal(err)
	}
	loadCtx, stopLoad := context.WithCancel(ctx)
	defer stopLoad()
	var committed, nextID atomic.Int64
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, 7))
			for loadCtx.Err() == nil {
				if reverseLoadTxn(loadCtx, pg, schema, rng, nextID.Add(1)) == nil {
					committed.Add(1)
				}
				time.Sleep(10 * time.Millisecond) // bounded: the box is shared
			}
		}(uint64(w))
	}
	slot := logical.SlotName(stream)
	g := &standbyRig{t: t, logPath: logPath, committed: committed.Load, count: 6,
		args: append([]string{"replicate", "--standby"}, common...),
		owner: func() string {
			var run string
			_ = admin.QueryRow("SELECT run FROM sluice.stream_owner WHERE stream = ?", stream).Scan(&run)
			return run
		},
		reader: func() string {
			var pid *string
			_ = pg.QueryRow(ctx, "SELECT active_pid::text FROM pg_replication_slots WHERE slot_name = $1", slot).Scan(&pid)
			if pid == nil {
				return ""
			}
			return *pid
		}}
	g.rounds(refusedStandby{args: []string{"--identifiers", "lower"}, says: "'s replicator: --identifiers"})
	// The frozen ones' walsenders were ended by their successors, not left
	// for wal_sender_timeout.
	if n := strings.Count(readLog(t, logPath), "ending the walsender of an earlier run"); n < g.count/2 {
		t.Errorf("%d walsenders of earlier runs were ended, want at least the %d frozen ones'", n, g.count/2)
	}
	stopLoad()
	wg.Wait()
	g.stop()
	t.Logf("load: %d PostgreSQL transactions committed", committed.Load())
	catchUp := append([]string{"replicate", "--until-caught-up"}, common...)
	if code := runToEnd(t, logPath, 3*time.Minute, catchUp...); code != 0 {
		t.Fatalf("replicate --until-caught-up: exit %d\n%s", code, logTail(logPath, 40))
	}
	for table, cols := range map[string]string{"acct": "id, n, v", "items": "id, grp, payload, amount"} {
		var want []string
		rows, err := pg.Query(ctx, "SELECT concat_ws('|', "+cols+") FROM "+schema+"."+table+" ORDER BY id")
		if err == nil {
			want, err = pgx.CollectRows(rows, pgx.RowTo[string])
		}
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range testenv.MySQLTexts(t, admin, "SELECT CONCAT_WS('|', "+cols+") FROM `"+db+"`."+table+" ORDER BY id") {
			got = append(got, r[0].String)
		}
		if !slices.Equal(got, want) {
			t.Errorf("table %s: MySQL has %d rows, PostgreSQL %d, and they differ (first: %v / %v)", table, len(got), len(want),
				first3(got), first3(want))
		} else {
			t.Logf("%s: %d rows equal", table, len(got))
		}
	}
}

// reverseLoadTxn is one application transaction on PostgreSQL: a new item,
// a counter increment (applied twice, it would show), now and then an
// update or a delete of an earlier item.
func reverseLoadTxn(ctx context.Context, pg *pgxpool.Pool, schema string, rng *rand.Rand, id int64) error {
	return pgx.BeginFunc(ctx, pg, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "INSERT INTO "+schema+".items VALUES ($1, $2, $3, $4::numeric)", id, rng.IntN(5),
			fmt.Sprintf("payload %d é %d", id, rng.IntN(1000)), fmt.Sprintf("%d.%02d", rng.IntN(10000), rng.IntN(100))); err != nil {
			return err
		}
		acct := rng.IntN(10)
		if _, err := tx.Exec(ctx, "UPDATE "+schema+".acct SET n = n + 1, v = $2 WHERE id = $1", acct, fmt.Sprintf("item %d", id)); err != nil {
			return err
		}
		switch r := rng.IntN(10); {
		case r == 0 && id > 20:
			_, err := tx.Exec(ctx, "DELETE FROM "+schema+".items WHERE id = $1", id-20)
			return err
		case r < 3 && id > 10:
			_, err := tx.Exec(ctx, "UPDATE "+schema+".items SET payload = payload || ' updated', amount = amount + 1 WHERE id = $1", id-10)
			return err
		}
		return nil
	})
}

func first3(v []string) []string { return v[:min(3, len(v))] }
