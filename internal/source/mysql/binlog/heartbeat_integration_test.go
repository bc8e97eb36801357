package binlog

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestIdleSourceSendsHeartbeats runs on a throwaway server nobody else
// writes to: an idle stream must emit position-only Txns about once a
// second, stamped with the time they arrived (so lag reads 0) and carrying
// the source's current position, and call OnIdle.
func TestIdleSourceSendsHeartbeats(t *testing.T) {
	ts := startThrowawaySource(t)
	src, db, s, info := ts.src, ts.db, ts.s, ts.info
	ctx := context.Background()
	start, err := s.MasterStatus(ctx, info)
	if err != nil {
		t.Fatal(err)
	}
	var idle atomic.Int32
	cfg := Config{Source: src, Info: info, ServerID: 78, Start: start, Log: testenv.Logger(),
		OnIdle: func(binlogpos.Position) { idle.Add(1) },
		Translate: func(map[schema.TableID]*schema.Table, string, string, time.Time) (*DDLResult, error) {
			return &DDLResult{Ignored: true}, nil
		}}
	r := startStream(t, cfg)
	if _, err := db.Exec("CREATE DATABASE hb"); err != nil { // one event, then silence
		t.Fatal(err)
	}
	now, err := s.MasterStatus(ctx, info)
	if err != nil {
		t.Fatal(err)
	}
	var beats []*model.Txn
	deadline := time.After(8 * time.Second)
	for len(beats) < 3 {
		select {
		case txn := <-r.out:
			if txn.GTID == "" && len(txn.Changes) == 0 && txn.DDL == nil {
				if d := time.Since(txn.Timestamp); d < 0 || d > time.Second {
					t.Errorf("heartbeat stamped %s ago, want the time it arrived", d)
				}
				beats = append(beats, txn)
			}
		case <-deadline:
			t.Fatalf("%d heartbeats in 8s", len(beats))
		}
	}
	last := beats[len(beats)-1]
	if endOf(last).File != now.File || endOf(last).Pos != now.Pos || endOf(last).GTIDSet != now.GTIDSet {
		t.Errorf("heartbeat position %s, source at %s", last.End, now)
	}
	for i := 1; i < len(beats); i++ {
		if beats[i].Seq <= beats[i-1].Seq || beats[i].End.Compare(beats[i-1].End) < 0 {
			t.Errorf("heartbeat %d: seq %d end %s after seq %d end %s", i, beats[i].Seq, beats[i].End, beats[i-1].Seq, beats[i-1].End)
		}
	}
	if idle.Load() < 3 {
		t.Errorf("OnIdle called %d times for %d heartbeats", idle.Load(), len(beats))
	}
}
