package snapshot

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestCopyLongerThanRetentionRefused: a source that keeps binlogs one hour
// cannot serve a snapshot at --max-rate whose copy plus the hour for
// replication to start is longer: refused with exit 2 and the fix before
// anything is written; with the check disabled (0) the copy runs.
func TestCopyLongerThanRetentionRefused(t *testing.T) {
	admin := testenv.StartMariaDB(t, "--binlog-expire-logs-seconds=3600")
	env := testenv.Get(t)
	m, err := config.ParseSource(admin)
	if err != nil {
		t.Fatal(err)
	}
	my, err := m.OpenDB()
	if err != nil {
		t.Fatal(err)
	}
	defer my.Close()
	db := testenv.UniqueName("snap_ret") // the schema it gets in the shared target
	t.Cleanup(func() {
		_, _ = env.PG(t).Exec(context.Background(), `DROP SCHEMA IF EXISTS "`+db+`" CASCADE`)
	})
	for _, q := range []string{"CREATE DATABASE " + db, "CREATE TABLE " + db + ".t (id INT PRIMARY KEY, v VARCHAR(20))",
		"INSERT INTO " + db + ".t VALUES (1, 'a'), (2, 'b')"} {
		if _, err := my.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	o := testOptions(t, env, "")
	o.Source = m.WithDatabase(db)
	o.Include, o.MaxRate, o.MinBinlogRetention = []string{db}, 256<<10, 30*time.Minute
	ctx := context.Background()
	_, err = Run(ctx, o)
	if err == nil || exitcode.Of(err) != exitcode.Config {
		t.Fatalf("want a refusal with exit code 2, got %v", err)
	}
	for _, want := range []string{"at --max-rate 262144 bytes/s the copy", "the source's binlog retention of 1h0m0s purges the position",
		"raise the retention to at least 2h0m0s"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal lacks %q: %v", want, err)
		}
	}
	var runs int
	if err := env.PG(t).QueryRow(ctx, "SELECT count(*) FROM sluice.snapshot_run WHERE stream = $1", o.Stream).Scan(&runs); err != nil || runs != 0 {
		t.Errorf("a refused snapshot recorded %d runs (%v)", runs, err)
	}
	o.MinBinlogRetention = 0
	rep, err := Run(ctx, o)
	if err != nil || rep.Rows != 2 {
		t.Fatalf("with the check disabled: %v, report %+v", err, rep)
	}
}
