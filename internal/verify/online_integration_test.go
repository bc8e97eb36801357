package verify

import (
	"context"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/schema"
	pgsink "github.com/sluice-db/sluice/internal/sink/postgres"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/testenv"
	"github.com/sluice-db/sluice/internal/typemap"
	"github.com/sluice-db/sluice/internal/verify/verifydb"
)

func TestReached(t *testing.T) {
	p := binlogpos.Position{File: "bin.000002", Pos: 500, GTIDSet: "0-1-40,1-2-7", Flavor: "mariadb"}
	cases := []struct {
		applied binlogpos.Position
		want    bool
	}{
		{binlogpos.Position{File: "bin.000002", Pos: 500}, true},
		{binlogpos.Position{File: "bin.000002", Pos: 499}, false},
		{binlogpos.Position{File: "bin.000003", Pos: 4}, true},
		{binlogpos.Position{File: "bin.000001", Pos: 9000}, false},
		// Behind by offset, but every GTID domain applied (filtered tail).
		{binlogpos.Position{File: "bin.000002", Pos: 100, GTIDSet: "0-1-40,1-2-9", Flavor: "mariadb"}, true},
		{binlogpos.Position{File: "bin.000002", Pos: 100, GTIDSet: "0-1-39,1-2-9", Flavor: "mariadb"}, false},
		{binlogpos.Position{File: "bin.000002", Pos: 100, GTIDSet: "0-1-40", Flavor: "mariadb"}, false},
		{binlogpos.Position{}, false},
	}
	for _, c := range cases {
		if got := reached(c.applied, p); got != c.want {
			t.Errorf("reached(%v, %v) = %v, want %v", c.applied, p, got, c.want)
		}
	}
}

// TestOnlineRecheck plays the replicator by hand: a row differs because
// its change is "in flight" (the checkpoint is behind the source), and a
// row was changed directly on the target. Verify in online mode must wait
// for the checkpoint, re-read, drop the in-flight row and report the other.
func TestOnlineRecheck(t *testing.T) { testenv.Flavors(t, testOnlineRecheck) }

func testOnlineRecheck(t *testing.T, env *testenv.Env) {
	s := newSide(t, env, "verify_online")
	ctx := context.Background()
	s.mustMy(t, `CREATE TABLE o (id INT PRIMARY KEY, v VARCHAR(20));
INSERT INTO o SELECT seq, CONCAT('v', seq) FROM seq_1_to_500;`)
	tb := loadTable(t, s.my, s.db, "o")
	s.snapshot(t, typemap.DefaultOptions(), "o")
	stream := s.db
	if err := checkpoint.Ensure(ctx, s.pg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = checkpoint.Delete(context.Background(), s.pg, stream) })
	my, err := verifydb.OpenSource(ctx, s.src, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer my.Close()
	before, err := sourcePosition(ctx, my)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkpoint.Save(ctx, s.pg, stream, checkpoint.State{Position: before}); err != nil {
		t.Fatal(err)
	}
	// In flight: changed on the source, not yet on the target.
	s.mustMy(t, "UPDATE o SET v = 'changed' WHERE id = 7")
	// Tampered: changed on the target only.
	s.mustPG(t, "UPDATE "+verifydb.QuotePG(s.pgSchm)+".o SET v = 'tampered' WHERE id = 300")

	// The "replicator" applies the change 1.5 s later and moves its checkpoint.
	applied := make(chan error, 1)
	go func() {
		time.Sleep(1500 * time.Millisecond)
		pos, err := sourcePosition(ctx, my)
		if err == nil {
			_, err = s.pg.Exec(ctx, "UPDATE "+verifydb.QuotePG(s.pgSchm)+".o SET v = 'changed' WHERE id = 7")
		}
		if err == nil {
			err = checkpoint.Save(ctx, s.pg, stream, checkpoint.State{Position: pos})
		}
		applied <- err
	}()
	start := time.Now()
	rep := s.runVerify(t, []*schema.Table{tb}, func(o *Options) {
		o.Online, o.Stream, o.Recheck, o.RecheckWait = OnlineOn, stream, 2, 10*time.Second
	})
	if err := <-applied; err != nil {
		t.Fatal(err)
	}
	if !rep.Online {
		t.Error("report does not say online")
	}
	sameLines(t, "online differences", found(rep), []string{"o differs id=300 v"})
	if took := time.Since(start); took < time.Second {
		t.Errorf("verify did not wait for the checkpoint (took %v)", took)
	}

	// Offline, the same situation reports both rows immediately.
	s.mustMy(t, "UPDATE o SET v = 'again' WHERE id = 8")
	rep = s.runVerify(t, []*schema.Table{tb}, nil)
	sameLines(t, "offline differences", found(rep), []string{"o differs id=300 v", "o differs id=8 v"})

	// auto: online while a replicator of the stream holds its lock (here a
	// session plays the replicator), offline otherwise, whatever the
	// checkpoint's age.
	online, err := resolveOnline(ctx, pgsink.VerifyTarget(s.pg, schema.Naming{}), OnlineAuto, stream)
	if err != nil || online {
		t.Errorf("auto with a fresh checkpoint and no replicator: online=%v err=%v", online, err)
	}
	conn, err := s.pg.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock_shared($1, hashtext($2))", checkpoint.StreamLockClass, stream); err != nil {
		t.Fatal(err)
	}
	defer func() { _, _ = conn.Exec(ctx, "SELECT pg_advisory_unlock_all()") }()
	online, err = resolveOnline(ctx, pgsink.VerifyTarget(s.pg, schema.Naming{}), OnlineAuto, stream)
	if err != nil || !online {
		t.Errorf("auto with a replicator connected: online=%v err=%v", online, err)
	}
	online, err = resolveOnline(ctx, pgsink.VerifyTarget(s.pg, schema.Naming{}), OnlineAuto, stream+"_none")
	if err != nil || online {
		t.Errorf("auto for a stream nobody replicates: online=%v err=%v", online, err)
	}
}
