package verify

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/source/mysql/binlog"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/verify/verifydb"
)

// Online mode: while `sluice replicate` runs, a row can differ only because
// its latest change is still on its way. Verify then reads the source rows,
// takes the source's binlog position right after that read, waits until
// the replicator's checkpoint (saved in the same target transaction as the
// rows it covers) has reached that position, and only then reads the target
// rows: every change the source read saw is then applied. Rows that still
// differ are read again the same way, up to --recheck times; only rows
// that differ in every round are reported. docs/verify.md has the details.

// Online modes.
const (
	OnlineAuto = "auto" // on while a replicator of the stream is connected to the target
	OnlineOn   = "on"
	OnlineOff  = "off"
)

// resolveOnline decides whether a run is online. auto: when a replicator of
// the stream is connected to the target now (it holds the stream's lock,
// checkpoint.StreamRunning); a stopped replicator leaves nothing in flight,
// and a recent checkpoint alone would make verify wait for one that never
// moves again.
func resolveOnline(ctx context.Context, tgt verifydb.Target, mode, stream string) (bool, error) {
	switch mode {
	case OnlineOn:
		return true, nil
	case OnlineOff:
		return false, nil
	case OnlineAuto, "":
	default:
		return false, fmt.Errorf("--online %q: want auto, on or off", mode)
	}
	return tgt.StreamRunning(ctx, stream)
}

// sourcePosition returns the source's current binlog position (the end of
// the last committed transaction) and its GTID set, read the way the
// replicator reads it.
func sourcePosition(ctx context.Context, db *sql.DB) (binlogpos.Position, error) {
	src := binlog.SourceOnPool(db)
	info, err := src.Info(ctx)
	if err != nil {
		return binlogpos.Position{}, fmt.Errorf("source binlog position: %w", err)
	}
	return src.MasterStatus(ctx, info)
}

// reached reports whether an applied position covers the source position
// p: by binlog file and offset, or, for MariaDB GTIDs, when every domain of
// p is applied up to its sequence number (a replicator that checkpoints
// only at transactions it replicates can stay behind the file offset of
// later transactions of other databases, never behind their GTIDs if it
// records them).
func reached(applied, p binlogpos.Position) bool {
	if applied.File != "" && p.File != "" && applied.Compare(p) >= 0 {
		return true
	}
	if applied.Flavor == "mariadb" && p.Flavor == "mariadb" && p.GTIDSet != "" && applied.GTIDSet != "" {
		a, b := mariaDomains(applied.GTIDSet), mariaDomains(p.GTIDSet)
		for d, seq := range b {
			if a[d] < seq {
				return false
			}
		}
		return true
	}
	return false
}

// mariaDomains parses "0-1-42,1-2-7" into domain → sequence number.
func mariaDomains(set string) map[string]uint64 {
	out := map[string]uint64{}
	for _, g := range strings.Split(set, ",") {
		parts := strings.Split(strings.TrimSpace(g), "-")
		if len(parts) != 3 {
			continue
		}
		n, err := strconv.ParseUint(parts[2], 10, 64)
		if err == nil && n > out[parts[0]] {
			out[parts[0]] = n
		}
	}
	return out
}

// waitApplied waits until the stream's checkpoint reaches p, at most limit.
// reachedPos is false when the limit passed first; moved says whether the
// checkpoint changed at all meanwhile (a replicator that is not running).
func waitApplied(ctx context.Context, tgt verifydb.Target, stream string, p binlogpos.Position, limit time.Duration) (reachedPos, moved bool, err error) {
	deadline := time.Now().Add(limit)
	delay := 20 * time.Millisecond
	var first model.Position
	for {
		st, err := tgt.Checkpoint(ctx, stream)
		if err != nil {
			return false, moved, err
		}
		if st != nil {
			if first == nil {
				first = st.Position
			} else if st.Position != first {
				moved = true
			}
			applied, err := binlogpos.From(st.Position)
			if err != nil {
				return false, moved, err
			}
			if reached(applied, p) {
				return true, true, nil
			}
		}
		if time.Now().After(deadline) {
			return false, moved, nil
		}
		select {
		case <-ctx.Done():
			return false, moved, ctx.Err()
		case <-time.After(delay):
		}
		delay = min(delay*2, 500*time.Millisecond)
	}
}

// waitForPosition is the engine's wait for the replicator: after one wait
// in which the checkpoint did not move at all, the replicator is taken as
// stopped and later re-checks compare without waiting (said once).
func (e *engine) waitForPosition(ctx context.Context, table string, pos binlogpos.Position) error {
	if e.stalled.Load() {
		return nil
	}
	ok, moved, err := waitApplied(ctx, e.tgt, e.o.Stream, pos, e.o.RecheckWait)
	if err != nil || ok {
		return err
	}
	if !moved && e.stalled.CompareAndSwap(false, true) {
		e.o.Log.Warn("the replicator's checkpoint did not move: is sluice replicate running? Re-checks go on without waiting",
			"stream", e.o.Stream, "waited", e.o.RecheckWait.String())
		return nil
	}
	e.o.Log.Warn("replicator did not reach the source position in time; comparing anyway",
		"table", table, "position", pos.String(), "waited", e.o.RecheckWait.String())
	return nil
}
