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

// ErrJoinNotBuilt is the refusal once every check passed: the running
// replicator does not take requests yet (build order step 3 of the plan),
// so a recorded request would wait forever and block the stream's next add.
var ErrJoinNotBuilt = errors.New("the running replicator does not take tables yet")

// Run checks the request and then refuses it (ErrJoinNotBuilt, exit 2,
// nothing written) until the replicator's join is built.
func Run(ctx context.Context, o Options) (*Plan, error) {
	p, err := Check(ctx, o)
	if err != nil {
		return nil, err
	}
	return p, exitcode.ConfigError(fmt.Errorf("snapshot --add %s: every check passed, but %w (issue 23); nothing was written. "+
		"Until then copy the table as a stream of its own: sluice snapshot --include %s --stream %s-%s, then replicate that stream",
		strings.Join(o.Add, ", "), ErrJoinNotBuilt, o.Add[0], o.Stream, p.Tables[0].TableID.Name))
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
		return nil, exitcode.ConfigError(fmt.Errorf("snapshot --add: the %s target %s has no running stream to add tables to",
			o.Target.Name(), o.Target.Redacted()))
	}
	r, err := rep.ConnectReplica(ctx, target.ReplicaOptions{Stream: o.Stream, Workers: 1})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	adder, ok := r.(target.TableAdder)
	if !ok {
		return nil, exitcode.ConfigError(fmt.Errorf("snapshot --add: adding tables to a running stream into a %s target is not supported yet; "+
			"use snapshot --restart of the stream with the wider --include", o.Target.Name()))
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
	return &Plan{Stream: o.Stream, Tables: tables}, nil
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
