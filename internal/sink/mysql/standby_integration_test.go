package mysql

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestStandbySeesABinaryStatement: the standby's look at the active
// replicator's connections works while one of them runs a statement whose
// text is not UTF-8 (a binary value, as the way back's applied keys are),
// which MySQL 9.7's information_schema.PROCESSLIST refuses to show (error
// 3854): the connection counts as busy, its idle time as under a second.
func TestStandbySeesABinaryStatement(t *testing.T) {
	testenv.MariaDBAndMySQL9(t, testStandbySeesABinaryStatement)
}

func testStandbySeesABinaryStatement(t *testing.T, env *testenv.Env) {
	f := newFixtureOn(t, env)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	active, err := f.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer active.Close()
	var id int64
	if err := active.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := active.ExecContext(ctx, "DO SLEEP(4), _binary'\xE9\x80\xFF'")
		done <- err
	}()
	standby, err := f.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer standby.Close()
	time.Sleep(1500 * time.Millisecond)
	idle, busy, err := connectionsIdle(ctx, standby, []string{strconv.FormatInt(id, 10)})
	if err != nil {
		t.Fatalf("connections of the active replicator: %v", err)
	}
	if !busy || idle < time.Second || idle > 3*time.Second {
		t.Fatalf("a connection 1.5 s into DO SLEEP(4): busy %v, idle %s; want busy, 1–3 s in its statement", busy, idle)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
