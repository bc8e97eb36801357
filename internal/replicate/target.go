package replicate

import (
	"context"
	"slices"
	"strings"

	"github.com/sluice-db/sluice/internal/schema"
	engines "github.com/sluice-db/sluice/internal/target"
)

// The run's target is the engine's engines.Replica (ConnectReplica), in
// the engine's own package; what only some targets do is a facet of it
// (NamingStore, Recopier, ScopeChecker), asserted here, never the engine.

// refuseCascades refuses tables whose foreign key actions the target would
// not run (engines.ScopeChecker.CheckCascades: a MySQL target whose engine
// has no foreign keys, from a source that does not log the rows).
func (r *runner) refuseCascades(ctx context.Context, tables []*schema.Table) error {
	sc, ok := r.tgt.(engines.ScopeChecker)
	if !ok {
		return nil
	}
	return sc.CheckCascades(ctx, tables, r.info.SQLForeignKeys)
}

// inScope lists the tables of a schema version that the filter keeps.
func (r *runner) inScope(tables map[schema.TableID]*schema.Table) []*schema.Table {
	var out []*schema.Table
	for id, t := range tables {
		if r.filter.Match(id.Database, id.Name) {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b *schema.Table) int { return strings.Compare(a.TableID.String(), b.TableID.String()) })
	return out
}
