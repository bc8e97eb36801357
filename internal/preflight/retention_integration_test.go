package preflight_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/preflight"
	"github.com/sluice-db/sluice/internal/source/mysql/binlog"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestBinlogRetentionPreflight: a source that purges binlogs sooner than
// the minimum is refused with exit code 2 and the exact change; one that
// keeps them long enough passes and reports its retention; 0 disables the
// check.
func TestBinlogRetentionPreflight(t *testing.T) { testenv.Flavors(t, testBinlogRetentionPreflight) }

func testBinlogRetentionPreflight(t *testing.T, env *testenv.Env) {
	ctx := context.Background()
	db := env.NewDatabase(t, "pf_ret")
	admin := env.MySQL(t, db)
	retention, err := binlog.ReadRetention(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	if retention <= 0 || retention >= 24*time.Hour {
		t.Fatalf("the test wants a sandbox retention between 0 and 24h, the server has %v", retention)
	}
	src, dst := mustSource(t, env.SourceURL(db)), mustTarget(t, env.TargetURL())
	for _, needs := range []preflight.Needs{{Source: true, Binlog: true}, {Source: true, Snapshot: true}} {
		needs.MinBinlogRetention = retention + time.Hour
		err := preflight.Check(ctx, src, dst, needs).Err()
		if err == nil || exitcode.Of(err) != exitcode.Config {
			t.Fatalf("%+v: want a refusal with exit code 2, got %v", needs, err)
		}
		want := []string{
			"the source purges binlogs after " + preflight.HumanDuration(retention),
			"shorter than --min-binlog-retention " + preflight.HumanDuration(retention+time.Hour),
			"CALL mysql.rds_set_configuration('binlog retention hours', " + itoa((retention+time.Hour)/time.Hour) + ")",
			"binlog_expire_logs_seconds = " + itoa((retention+time.Hour)/time.Second),
			"0 disables this check",
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("the refusal lacks %q:\n%v", w, err)
			}
		}
		needs.MinBinlogRetention = retention
		rep := preflight.Check(ctx, src, dst, needs)
		if err := rep.Err(); err != nil {
			t.Fatalf("a retention equal to the minimum passes: %v", err)
		}
		if rep.Source.BinlogRetention != retention {
			t.Errorf("reported retention %v, want %v", rep.Source.BinlogRetention, retention)
		}
		needs.MinBinlogRetention = 0
		if err := preflight.Check(ctx, src, dst, needs).Err(); err != nil {
			t.Errorf("--min-binlog-retention 0 disables the check: %v", err)
		}
	}
}

// TestBinlogRetentionNeverPurged: retention 0 means the source never purges
// binlogs by age, which any minimum accepts.
func TestBinlogRetentionNeverPurged(t *testing.T) {
	src := mustSource(t, testenv.StartMariaDB(t, "--binlog-expire-logs-seconds=0", "--expire-logs-days=0"))
	rep := preflight.Check(context.Background(), src, mustTarget(t, testenv.Get(t).TargetURL()),
		preflight.Needs{Source: true, Binlog: true, MinBinlogRetention: 24 * time.Hour})
	if err := rep.Err(); err != nil {
		t.Fatalf("a source that never purges passes: %v", err)
	}
	if rep.Source.BinlogRetention != 0 {
		t.Errorf("retention %v, want 0 (never purged)", rep.Source.BinlogRetention)
	}
}

func itoa(d time.Duration) string { return strconv.FormatInt(int64(d), 10) }

// TestBinlogRetentionOnRDS: RDS and Aurora purge binlogs by their own
// 'binlog retention hours' (mysql.rds_configuration), whatever the
// server's variables say. A private MariaDB with that table (as RDS has it)
// and a long server retention: NULL, RDS's default (binlogs kept minutes),
// is refused naming the RDS setting and its fix; 48 hours passes and is the
// retention reported.
func TestBinlogRetentionOnRDS(t *testing.T) {
	srv := testenv.StartMariaDBServer(t, "--binlog-expire-logs-seconds=2592000")
	url, admin := srv.URL, srv.DB(t, "")
	for _, q := range []string{
		"CREATE TABLE mysql.rds_configuration (name VARCHAR(100) NOT NULL PRIMARY KEY, value VARCHAR(100), description VARCHAR(300) NOT NULL DEFAULT '')",
		"INSERT INTO mysql.rds_configuration (name, value) VALUES ('binlog retention hours', NULL)",
	} {
		if _, err := admin.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	ctx := context.Background()
	src, dst := mustSource(t, url), mustTarget(t, testenv.Get(t).TargetURL())
	needs := preflight.Needs{Source: true, Binlog: true, MinBinlogRetention: 24 * time.Hour}
	err := preflight.Check(ctx, src, dst, needs).Err()
	if exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), "mysql.rds_configuration 'binlog retention hours'") ||
		!strings.Contains(err.Error(), "CALL mysql.rds_set_configuration('binlog retention hours', 24)") {
		t.Fatalf("RDS's NULL retention (binlogs kept minutes, the server's 30 days notwithstanding): want exit 2 naming the RDS setting, got %v", err)
	}
	if _, err := admin.Exec("UPDATE mysql.rds_configuration SET value = '48' WHERE name = 'binlog retention hours'"); err != nil {
		t.Fatal(err)
	}
	rep := preflight.Check(ctx, src, dst, needs)
	if err := rep.Err(); err != nil {
		t.Fatalf("48 binlog retention hours pass a 24h minimum: %v", err)
	}
	if rep.Source.BinlogRetention != 48*time.Hour {
		t.Errorf("reported retention %v, want 48h", rep.Source.BinlogRetention)
	}
}
