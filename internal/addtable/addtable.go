// Package addtable is `sluice snapshot --add`: tables join a running
// stream (issue 23, docs/design/issue23-plan.md). The command checks the
// request against the source, the target and the stream's state before
// anything is written (exit 2 with the fix); the stream's replicator does
// the copy, in chunks merged into its own apply order (internal/window),
// because only the process that hands transactions to apply can put a
// chunk between two of them.
package addtable

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/target"
)

// Options are the command's.
type Options struct {
	Source config.MySQL
	Target target.Engine
	Stream string
	// Add are the --add values: one table each, db.table.
	Add []string
	// Exclude is --exclude: a table it matches is refused.
	Exclude []string
	// Naming must be the stream's (NamingStore.CheckNaming).
	Naming schema.NamingOptions
	Log    *slog.Logger
}

// Plan is a checked request: the tables to add, as on the source now.
type Plan struct {
	Stream string
	Tables []*schema.Table
}

// Run checks the request, records it, and waits until the stream's
// running replicator has taken it and copied every table (the replicator
// does the copy, in its own apply order: only the process that hands
// transactions to apply can put a chunk between two of them). Progress is
// logged as the records change. Interrupting the command leaves the
// request recorded: the replicator finishes it, and a new `snapshot --add`
// of the stream is refused until it is done.
func Run(ctx context.Context, o Options) (*Plan, error) {
	p, err := Check(ctx, o)
	if err != nil {
		return nil, err
	}
	rep := o.Target.(target.Replicated)
	r, err := rep.ConnectReplica(ctx, target.ReplicaOptions{Stream: o.Stream, Workers: 1})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	adder := r.(target.TableAdder)
	ids := make([]schema.TableID, len(p.Tables))
	for i, t := range p.Tables {
		ids[i] = t.TableID
	}
	if err := adder.RequestAdd(ctx, o.Stream, ids); err != nil {
		if errors.Is(err, target.ErrAddPending) {
			return nil, exitcode.ConfigError(fmt.Errorf("snapshot --add: %w; wait until it is done", err))
		}
		return nil, err
	}
	o.log().Info("add requested; waiting for the stream's replicator to copy the tables (interrupting leaves the request to the replicator)",
		"stream", o.Stream, "tables", strings.Join(o.Add, ","))
	return p, Wait(ctx, adder, o.Stream, ids, o.log())
}

// waitPoll is how often Wait reads the add records.
var waitPoll = time.Second

// takeHint is how long a request may stay untaken before Wait says what
// takes it.
const takeHint = 15 * time.Second

// Wait follows the stream's add records of ids until every one is done,
// logging each change of state or count.
func Wait(ctx context.Context, a target.TableAdder, stream string, ids []schema.TableID, log *slog.Logger) error {
	seen := map[schema.TableID]target.AddRecord{}
	start, hinted := time.Now(), false
	for {
		adds, err := a.LoadAdds(ctx, stream)
		if err != nil {
			return err
		}
		byID := map[schema.TableID]target.AddRecord{}
		for _, r := range adds {
			byID[r.Table] = r
		}
		done, taken := 0, false
		for _, id := range ids {
			r, ok := byID[id]
			if !ok {
				return fmt.Errorf("snapshot --add: the add record of %s is gone (forgotten by another command?)", id)
			}
			if prev := seen[id]; prev.State != r.State || prev.Chunks != r.Chunks {
				log.Info("add", "table", id.String(), "state", string(r.State), "rows", r.Rows, "chunks", r.Chunks)
				seen[id] = r
			}
			if r.State == target.AddDone {
				done++
			}
			taken = taken || r.State != target.AddRequested
		}
		if done == len(ids) {
			return nil
		}
		if !taken && !hinted && time.Since(start) > takeHint {
			hinted = true
			log.Warn("the request is not taken yet: the stream's replicator takes it, is `sluice replicate --stream "+stream+"` running? "+
				"(the request stays recorded until a replicator finishes it)", "stream", stream)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("snapshot --add: stopped waiting (%w); the request stays with the stream's replicator, which finishes it", ctx.Err())
		case <-time.After(waitPoll):
		}
	}
}

func (o Options) log() *slog.Logger {
	if o.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Log
}

// Check refuses, before anything is written, what cannot join the stream:
// an unknown table, one without a usable key, one already in the stream or
// excluded, a target table that exists, another add of the stream still
// running, a stream that does not exist or has another naming.
func Check(ctx context.Context, o Options) (*Plan, error) {
	ids, err := parseAdds(o.Add)
	if err != nil {
		return nil, exitcode.ConfigError(err)
	}
	rep, ok := o.Target.(target.Replicated)
	if !ok {
		return nil, exitcode.ConfigError(fmt.Errorf("snapshot --add: the %s target %s has no running stream to add tables to "+
			"(adding tables works into PostgreSQL targets)", o.Target.Name(), o.Target.Redacted()))
	}
	r, err := rep.ConnectReplica(ctx, target.ReplicaOptions{Stream: o.Stream, Workers: 1})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	adder, ok := r.(target.TableAdder)
	if !ok {
		return nil, notSupported(o)
	}
	inStream, err := checkStream(ctx, r, o)
	if err != nil {
		return nil, err
	}
	tables, err := loadTables(ctx, o, ids)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, t := range tables {
		errs = append(errs, checkTable(ctx, adder, o, t, inStream)...)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, exitcode.ConfigError(err)
	}
	if err := refusePending(ctx, adder, o.Stream); err != nil {
		return nil, err
	}
	if _, ok := r.(target.ChunkApplier); !ok {
		// After the other checks, which hold for the engine too: the
		// replicator of this target cannot copy, so nothing is recorded.
		return nil, notSupported(o)
	}
	return &Plan{Stream: o.Stream, Tables: tables}, nil
}

// notSupported refuses a target whose replicator cannot copy a table in.
func notSupported(o Options) error {
	return exitcode.ConfigError(fmt.Errorf("snapshot --add: adding tables to a running stream into a %s target is not supported yet "+
		"(it works into PostgreSQL targets); meanwhile copy the table as a stream of its own (docs/add-table.md), "+
		"or run snapshot --restart of the stream with the wider --include", o.Target.Name()))
}

// parseAdds reads the --add values: one table each, db.table, no
// wildcards, no table twice.
func parseAdds(adds []string) ([]schema.TableID, error) {
	if len(adds) == 0 {
		return nil, errors.New("snapshot --add needs a table, e.g. --add shop.orders")
	}
	var ids []schema.TableID
	seen := map[schema.TableID]bool{}
	for _, s := range adds {
		p, err := schema.ParsePattern(s)
		if err != nil {
			return nil, fmt.Errorf("--add: %w", err)
		}
		if !p.Literal() || p.DB == "" {
			return nil, fmt.Errorf("--add %q: name one table as db.table, without wildcards, e.g. --add shop.orders (repeat --add for more)", s)
		}
		id := schema.TableID{Database: p.DB, Name: p.Table}
		if seen[id] {
			return nil, fmt.Errorf("--add %s is given twice", id)
		}
		seen[id] = true
		ids = append(ids, id)
	}
	return ids, nil
}
