package replicate

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/source/mysql/binlog"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/supervise"
)

// Source failover (docs/replication.md, "Source failover"): a source URL
// with several hosts makes each run choose the server to read from
// (binlog.ChooseHost), and a stream that loses its server for good ends the
// run (binlog.SourceLost) so the next one chooses again. A run that starts
// on a server other than the checkpoint's continues there by GTID, once the
// server is shown to hold every transaction the checkpoint covers.

// chooseSource picks the server of a multi-host source for this run.
func (r *runner) chooseSource(ctx context.Context) error {
	m, err := binlog.ChooseHost(ctx, r.o.Source, r.log)
	if err != nil {
		return err
	}
	r.o.Source = m
	return nil
}

// followSource checks a start position recorded on another server than the
// one this run reads (a failover, or a DNS name that moved) and returns the
// position to read from there: by GTID alone, since file:pos name another
// server's binlog. A position without GTIDs, applied records the new server
// cannot recognise, or a server that lacks transactions the checkpoint
// covers are refused (exit 2).
func (r *runner) followSource(ctx context.Context, pos binlogpos.Position) (binlogpos.Position, error) {
	addr := r.o.Source.Addr()
	switch {
	case pos.ServerID == r.info.ServerID:
		return pos, nil
	case pos.ServerID == 0:
		// Recorded by an older sluice, on a server it did not name: a
		// GTID position is checked all the same (on its own server it
		// always holds).
		if r.info.GTID && pos.GTIDSet != "" {
			return pos, binlog.CheckContains(ctx, r.src, r.info, addr, pos)
		}
		return pos, nil
	}
	if !r.info.GTID || pos.GTIDSet == "" {
		return pos, exitcode.ConfigError(fmt.Errorf("the checkpoint of stream %q is at %s on the server with server_id %d, but %s is "+
			"server_id %d: without GTIDs a binlog position names one server's files and cannot be continued on another. "+
			"Fix: replicate from the server the checkpoint is on, or turn GTIDs on (MySQL gtid_mode=ON) and start over with "+
			"`sluice snapshot --restart`", r.o.Stream, pos.Key(), pos.ServerID, addr, r.info.ServerID))
	}
	if n := r.applier.AppliedAbove(); n > 0 {
		return pos, exitcode.ConfigError(fmt.Errorf("stream %q: %d source transactions above the checkpoint are recorded in "+
			"sluice.applied by the binlog file:pos of the server with server_id %d (the run before stopped without draining), "+
			"which %s (server_id %d) cannot recognise. Fix: run replicate once against that server until it is caught up "+
			"(--until-caught-up), or start over with `sluice snapshot --restart`", r.o.Stream, n, pos.ServerID, addr, r.info.ServerID))
	}
	if err := binlog.CheckContains(ctx, r.src, r.info, addr, pos); err != nil {
		return pos, err
	}
	r.log.Warn("source: the checkpoint was recorded on another server; continuing on this one by GTID (it has every transaction the checkpoint covers)",
		"host", addr, "server_id", r.info.ServerID, "checkpoint_server_id", pos.ServerID, "gtid", pos.GTIDSet)
	r.applier.SourceMoved()
	pos.File, pos.Pos = "", 0 // position the dump by GTID
	return pos, nil
}

// sourceRetry paces the runs after a lost source for as long as it takes
// (the stream of a one-host source reconnects without end too).
func (o Options) sourceRetry() *supervise.Retry {
	return &supervise.Retry{Limit: supervise.Forever, Warn: func(t supervise.Try, err error) {
		o.Log.Warn("replicate: lost the source; choosing its server again and continuing from the checkpoint (exactly once)",
			"attempt", t.Attempt, "since", t.Lost.Round(time.Second).String(), "cause", shortCause(err), "next_try_in", t.Wait.String())
	}}
}

// isSourceLoss reports a run that ended because no server of the source
// could be read.
func isSourceLoss(err error) bool {
	var sl *binlog.SourceLost
	return errors.As(err, &sl)
}
