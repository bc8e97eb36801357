package mysql

import (
	"context"
	"fmt"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/target"
)

// CheckScope refuses, once the run's scope is known, what a MySQL target
// database cannot receive (target.ScopeChecker): more than one source
// database, a MariaDB source into MySQL, the source's own database on the
// same server, a target database with triggers. It keeps the one source
// database the sink then writes from.
func (t *replica) CheckScope(ctx context.Context, s target.Scope) error {
	var err error
	if t.sourceDB, err = t.scopeDatabase(s); err != nil {
		return err
	}
	if err := t.refuseFlavor(ctx, s.Flavor, s.Version); err != nil {
		return err
	}
	if err := t.refuseSourceDatabase(ctx, s); err != nil {
		return err
	}
	return RefuseForwardTriggers(ctx, t.db, t.e.cfg.Database)
}

// refuseFlavor refuses a MariaDB source into a MySQL (not MariaDB) target,
// as the snapshot does (FlavorRefusal).
func (t *replica) refuseFlavor(ctx context.Context, srcFlavor, srcVersion string) error {
	var version string
	if err := t.db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
		return fmt.Errorf("target: %w", err)
	}
	if err := FlavorRefusal(srcFlavor, srcVersion, version); err != nil {
		return exitcode.ConfigError(err)
	}
	return nil
}

// CheckCascades refuses tables whose foreign key actions the target would
// not run (CascadeRefusal): their engine on the target (the table there,
// else --target-engine or the source's) has no foreign keys and the source
// does not log the rows the actions change.
func (t *replica) CheckCascades(ctx context.Context, tables []*schema.Table, sourceLogsFKActions bool) error {
	if sourceLogsFKActions {
		return nil
	}
	existing, err := TargetEngines(ctx, t.db, t.e.cfg.Database)
	if err != nil {
		return err
	}
	if err := CascadeRefusal(tables, EngineOf(t.e.storage, existing), false); err != nil {
		return exitcode.ConfigError(err)
	}
	return nil
}

// refuseSourceDatabase refuses a target database on the source server that
// is the source database or in the source scope (SourceScopeRefusal), as
// the snapshot does.
func (t *replica) refuseSourceDatabase(ctx context.Context, s target.Scope) error {
	filter, err := schema.NewFilter(s.Include, s.Exclude, s.Source.Database)
	if err != nil {
		return exitcode.ConfigError(err)
	}
	tdb := t.e.cfg.Database
	isSource, inScope := t.sourceDB == tdb, filter.MatchDatabase(tdb)
	if !isSource && !inScope {
		return nil
	}
	same, err := SameServer(ctx, t.db, s.SourceDB)
	if err != nil {
		return exitcode.ConfigError(fmt.Errorf("%s: %w", t.e.cfg.Redacted(), err))
	}
	if !same {
		return nil
	}
	if err := SourceScopeRefusal(tdb, isSource, inScope, filter); err != nil {
		return exitcode.ConfigError(err)
	}
	return nil
}

// scopeDatabase is the one source database a MySQL target database
// receives: more than one in scope is refused.
func (t *replica) scopeDatabase(s target.Scope) (string, error) {
	seen := map[string]bool{}
	var dbs []string
	add := func(d string) {
		if d != "" && !seen[d] {
			seen[d] = true
			dbs = append(dbs, d)
		}
	}
	for _, d := range s.Catalog.Databases {
		add(d.Name)
	}
	for _, tb := range s.Catalog.Tables {
		add(tb.Database)
	}
	if len(dbs) == 0 {
		add(s.Source.Database)
	}
	if len(dbs) != 1 {
		return "", exitcode.ConfigError(fmt.Errorf("a MySQL target database (%s) receives the tables of one source database, "+
			"but %d are in scope (%v): narrow --include to one database, and replicate each into its own target database with its own --stream",
			t.e.cfg.Redacted(), len(dbs), dbs))
	}
	if t.e.cfg.Database == "" {
		return "", exitcode.ConfigError(fmt.Errorf("the MySQL --target URL names no database: add the database that receives the tables, e.g. mysql://user:pw@host:3306/replica"))
	}
	if len(s.SchemaMap) > 0 {
		return "", exitcode.ConfigError(fmt.Errorf("--schema-map does not apply to a MySQL target: the --target URL's database receives the tables"))
	}
	if err := schema.RefuseForMySQL(s.Naming); err != nil {
		return "", exitcode.ConfigError(err)
	}
	return dbs[0], nil
}
