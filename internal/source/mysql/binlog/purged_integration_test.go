package binlog

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestPurgedBinlogIsAConfigurationError purges the binlog a start position
// needs on a throwaway server (never on the shared sandbox) and expects the
// "re-run snapshot" error with exit code 2, by file position and by GTID.
func TestPurgedBinlogIsAConfigurationError(t *testing.T) {
	ts := startThrowawaySource(t)
	src, db, s, info := ts.src, ts.db, ts.s, ts.info
	ctx := context.Background()
	for _, q := range []string{"CREATE DATABASE p", "CREATE TABLE p.t (id INT PRIMARY KEY)", "INSERT INTO p.t VALUES (1)"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	old, err := s.MasterStatus(ctx, info)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"FLUSH BINARY LOGS", "INSERT INTO p.t VALUES (2)", "FLUSH BINARY LOGS"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	now, err := s.MasterStatus(ctx, info)
	if err != nil {
		t.Fatal(err)
	}
	// MariaDB keeps a binlog until its InnoDB checkpoint is done: retry.
	for i := 0; ; i++ {
		if _, err := db.Exec("PURGE BINARY LOGS TO '" + now.File + "'"); err != nil {
			t.Fatal(err)
		}
		files, err := s.BinaryLogs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if files[0] == now.File {
			break
		}
		if i == 50 {
			t.Fatalf("binlogs still there after PURGE: %v", files)
		}
		time.Sleep(200 * time.Millisecond)
	}
	byFile := old
	byFile.GTIDSet = ""
	for name, start := range map[string]binlogpos.Position{"file": byFile, "gtid": old} {
		t.Run(name, func(t *testing.T) {
			cfg := Config{Source: src, Info: info, ServerID: 77, Start: start,
				Log: testenv.Logger(),
				Translate: func(map[schema.TableID]*schema.Table, string, string, time.Time) (*DDLResult, error) {
					return &DDLResult{Ignored: true}, nil
				}}
			st, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			err = st.Run(ctx, make(chan *model.Txn, 1))
			var pe *PurgedError
			if !errors.As(err, &pe) {
				t.Fatalf("want a PurgedError, got %v", err)
			}
			if exitcode.Of(err) != exitcode.Config {
				t.Errorf("exit code %d, want %d", exitcode.Of(err), exitcode.Config)
			}
			want := "needed by the checkpoint has been purged from the source (its binlog retention, binlog_expire_logs_seconds"
			if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "re-run `sluice snapshot --restart`, and raise the retention") || (name == "file" && !strings.Contains(err.Error(), "the binlog "+old.File+" ")) {
				t.Errorf("message: %v", err)
			}
		})
	}
}
