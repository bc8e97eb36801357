package addtable

import (
	"context"
	"fmt"
	"strings"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/target"
	"github.com/sluice-db/sluice/internal/window"
)

// checkStream refuses a stream without a checkpoint on the target, or one
// recorded with another naming, and returns the tables in its scope now.
func checkStream(ctx context.Context, r target.Replica, o Options) (map[schema.TableID]*schema.Table, error) {
	st, err := r.LoadState(ctx, o.Stream)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return nil, exitcode.ConfigError(fmt.Errorf("snapshot --add: stream %q has no checkpoint on %s; --add brings tables into an existing stream: "+
			"check --stream, or start the stream with sluice snapshot --stream %s", o.Stream, o.Target.Redacted(), o.Stream))
	}
	if ns, ok := r.(target.NamingStore); ok {
		if err := ns.CheckNaming(ctx, o.Stream, o.Naming); err != nil {
			return nil, err
		}
	}
	return r.LoadSchema(ctx, o.Stream, st.SchemaVersion)
}

// loadTables reads the added tables' definitions from the source, scoped
// to those tables (schema.Load refuses a table that does not exist).
func loadTables(ctx context.Context, o Options, ids []schema.TableID) ([]*schema.Table, error) {
	include := make([]string, len(ids))
	for i, id := range ids {
		include[i] = schema.QuoteMySQL(id.Database) + "." + schema.QuoteMySQL(id.Name)
	}
	filter, err := schema.NewFilter(include, nil, "")
	if err != nil {
		return nil, exitcode.ConfigError(err)
	}
	db, err := o.Source.OpenDB()
	if err != nil {
		return nil, exitcode.ConfigError(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	cat, err := schema.Load(ctx, db, filter)
	if err != nil {
		if exitcode.Of(err) == exitcode.Config {
			return nil, fmt.Errorf("snapshot --add: %w", err)
		}
		return nil, fmt.Errorf("source: %w", err)
	}
	out := make([]*schema.Table, 0, len(ids))
	for _, id := range ids {
		if t := cat.Table(id); t != nil {
			out = append(out, t)
		}
	}
	return out, nil
}

// checkTable lists what refuses one table.
func checkTable(ctx context.Context, a target.TableAdder, o Options, t *schema.Table,
	inStream map[schema.TableID]*schema.Table) []error {
	id := t.TableID
	if _, ok := inStream[id]; ok {
		return []error{fmt.Errorf("table %s is already in stream %q: to copy it again use sluice snapshot --include %s --recopy", id, o.Stream, id)}
	}
	var errs []error
	excl, err := schema.NewFilter([]string{"*.*"}, o.Exclude, "")
	if err != nil {
		return []error{err}
	}
	if !excl.Match(id.Database, id.Name) {
		errs = append(errs, fmt.Errorf("table %s is excluded by --exclude %s: leave it out of --add, or drop the --exclude",
			id, strings.Join(o.Exclude, ",")))
	}
	if _, err := window.KeyColumnsOf(t); err != nil {
		errs = append(errs, fmt.Errorf("%w: add a primary key (or a NOT NULL unique key of integer or utf8mb4/ascii/binary text columns) on the source, "+
			"or copy the table as a stream of its own with sluice snapshot --include %s --stream NAME", err, id))
	}
	if err := oneDatabase(o, id, inStream); err != nil {
		errs = append(errs, err)
	}
	n, err := schema.NewNamingOptions(o.Naming)
	if err != nil {
		return append(errs, err)
	}
	if o.Target.Capabilities().KeepsSourceNames {
		n = n.ForMySQLTarget()
	}
	exists, err := a.TargetTableExists(ctx, id, n)
	if err != nil {
		return append(errs, err)
	}
	if exists {
		errs = append(errs, fmt.Errorf("table %s: the target already has a table %s that is not stream %q's: drop or rename it on the target first "+
			"(or give the new table another name there with --rename, PostgreSQL targets)", id, n.QTable(id), o.Stream))
	}
	return errs
}

// oneDatabase refuses, on a target that keeps the source's names (one
// source database into the URL's database), a table of another database
// than the stream's.
func oneDatabase(o Options, id schema.TableID, inStream map[schema.TableID]*schema.Table) error {
	if !o.Target.Capabilities().KeepsSourceNames {
		return nil
	}
	for other := range inStream {
		if other.Database != id.Database {
			return fmt.Errorf("table %s: stream %q receives database %s into %s, one source database per target database; "+
				"add a table of %s, or copy this one into a target database of its own", id, o.Stream, other.Database, o.Target.Redacted(), other.Database)
		}
	}
	return nil
}

// refusePending refuses while an add of the stream runs: the request
// record is keyed by stream, so two adds never interleave.
func refusePending(ctx context.Context, a target.TableAdder, stream string) error {
	adds, err := a.LoadAdds(ctx, stream)
	if err != nil {
		return err
	}
	var running []string
	for _, r := range adds {
		if r.State.Pending() {
			running = append(running, r.Table.String())
		}
	}
	if len(running) > 0 {
		return exitcode.ConfigError(fmt.Errorf("snapshot --add: %w: stream %q is still adding %s; wait until sluice status shows it done",
			target.ErrAddPending, stream, strings.Join(running, ", ")))
	}
	return nil
}
