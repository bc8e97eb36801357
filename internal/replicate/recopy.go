package replicate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlog"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	engines "github.com/sluice-db/sluice/internal/target"
)

// The replicator's side of `sluice snapshot --recopy` (the protocol is in
// internal/checkpoint/recopy.go, the argument in docs/replication.md):
//
//   - a run that sees a live re-copy request stops like a graceful stop
//     (apply commits everything it received) and Run waits, without a
//     session on the target, until the re-copy is done or died;
//   - a run starts with the re-copied tables and their positions P: the
//     stream drops their row changes at or before P, and a TRUNCATE of
//     such a table at or before P is recorded but not run (the copy has its
//     effect); other schema changes up to P run as usual (the re-copy made
//     sure the live table's columns are those at P).

// errRecopyPause ends a run that gave way to a re-copy.
var errRecopyPause = errors.New("paused for a re-copy")

// recopyPoll is how often a running replicator looks for re-copy requests.
const recopyPoll = 500 * time.Millisecond

// loadRecopied reads the re-copied tables whose positions lie past the
// start (the others have nothing left to skip and are forgotten).
func (r *runner) loadRecopied(ctx context.Context, start binlogpos.Position) error {
	t, ok := r.tgt.(engines.Recopier)
	if !ok {
		return nil
	}
	all, err := t.LoadRecopied(ctx, r.o.Stream)
	if err != nil {
		return err
	}
	var done []schema.TableID
	r.recopied = map[schema.TableID]model.Position{}
	for id, p := range all {
		if p.Compare(start) <= 0 {
			done = append(done, id)
			continue
		}
		r.recopied[id] = p
		r.log.Info("re-copied table: its changes up to the copy's position are in the copy and are skipped",
			"table", id.String(), "copied_at", p.String(), "start", start.String())
	}
	return t.ForgetRecopied(ctx, r.o.Stream, done)
}

// skipRows is binlog.Config.SkipRows: the rows of a re-copied table at or
// before the copy's position. A rows event lies inside its transaction,
// and the copy's position is a transaction boundary, so the event is at or
// before it exactly when its whole transaction is.
func (r *runner) skipRows(id schema.TableID, at binlogpos.Position) bool {
	p, ok := r.recopied[id]
	return ok && at.Compare(p) <= 0
}

// recopyDDL is binlog.Config.SchemaChangeAt. The re-copy replaced the
// rows of a live table whose definition is the one at the copy's position
// P (it refuses otherwise), so schema changes of the table up to P still
// run on it, except a TRUNCATE: its effect on the rows is in the copy,
// and running it would empty the copied rows. One that drops the table
// stops replication (docs/replication.md, "Re-copying a table").
func (r *runner) recopyDDL(res *binlog.DDLResult, stmt string, at binlogpos.Position) error {
	for _, id := range res.Dropped {
		if p, ok := r.recopied[id]; ok && at.Compare(p) <= 0 {
			// Dropping (or renaming away) the live table would drop the
			// copied rows, and its changes up to P are skipped: stop rather
			// than lose them.
			return fmt.Errorf("replication stopped at %s: %q drops or renames table %s, which was re-copied at a later position %s; "+
				"sluice cannot replay it without losing the copied rows: skip it knowingly with --skip-ddl (the target table already "+
				"is the source's at the copy), or re-run sluice snapshot --restart", at, clip(stmt), id, p)
		}
	}
	var keep []string
	for _, s := range res.PG {
		if r.truncatesRecopied(s, at) {
			r.log.Warn("TRUNCATE of a re-copied table before its copy's position: not run (the copy has its effect)",
				"statement", clip(stmt), "position", at.String())
			continue
		}
		keep = append(keep, s)
	}
	res.PG = keep
	return nil
}

// truncatesRecopied reports a target TRUNCATE of a table re-copied at a
// position at or past at.
func (r *runner) truncatesRecopied(s string, at binlogpos.Position) bool {
	if !strings.HasPrefix(strings.ToUpper(strings.TrimSpace(s)), "TRUNCATE") {
		return false
	}
	for id, p := range r.recopied {
		if at.Compare(p) <= 0 && ddlTouches(&binlog.DDLResult{PG: []string{s}}, id, r.naming.QTable(id)) {
			return true
		}
	}
	return false
}

// ddlTouches reports whether a translated schema change names the table.
func ddlTouches(res *binlog.DDLResult, id schema.TableID, qtable string) bool {
	for _, t := range res.Tables {
		if t.TableID == id {
			return true
		}
	}
	for _, d := range res.Dropped {
		if d == id {
			return true
		}
	}
	for _, s := range res.PG {
		if strings.Contains(s, qtable) {
			return true
		}
	}
	return false
}

// watchRecopy polls for a live re-copy request of the stream and closes
// req when one appears.
func (r *runner) watchRecopy(ctx context.Context, req chan<- struct{}) {
	t, ok := r.tgt.(engines.Recopier)
	if !ok {
		return
	}
	tick := time.NewTicker(recopyPoll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		requested, alive, err := t.RecopyRequested(ctx, r.o.Stream)
		if err != nil {
			r.log.Warn("replicate: cannot look for re-copy requests", "err", err)
			continue
		}
		if requested && alive {
			close(req)
			return
		}
	}
}

// waitRecopy waits, before a run starts, until no live re-copy of the
// stream wants the replicator out of the way. A request whose re-copy no
// longer holds its lock (killed) is dropped: the table was not swapped,
// and replication continues as before.
func waitRecopy(ctx context.Context, o Options) error {
	eng := o.Target
	rep, ok := eng.(engines.Replicated)
	if !eng.Capabilities().Recopy || !ok {
		return nil // no re-copy writes this target
	}
	conn, err := rep.ConnectReplica(ctx, engines.ReplicaOptions{Stream: o.Stream})
	if err != nil {
		return nil // the run's own connect reports (and retries) a target that is away
	}
	defer conn.Close()
	t, ok := conn.(engines.Recopier)
	if !ok {
		return nil
	}
	logged := false
	for {
		requested, alive, err := t.RecopyRequested(ctx, o.Stream)
		if err != nil || !requested {
			return err
		}
		if !alive {
			o.Log.Warn("replicate: a re-copy of the stream ended without finishing (killed?); continuing without it", "stream", o.Stream)
			return t.DropRecopyRequests(ctx, o.Stream)
		}
		if !logged {
			o.Log.Info("replicate: waiting for the re-copy of tables of the stream to finish", "stream", o.Stream)
			logged = true
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(recopyPoll):
		}
	}
}

// clip shortens a statement for a message.
func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
