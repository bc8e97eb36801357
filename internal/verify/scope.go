package verify

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/target"
	"github.com/sluice-db/sluice/internal/typemap"
)

// Scope is what a run compares and under which conversions, as a command
// binds it from its flags (--include/--exclude, the naming flags,
// --zero-date, --nul-char).
type Scope struct {
	Include, Exclude []string
	Naming           schema.NamingOptions
	ZeroDate         typemap.ZeroDatePolicy
	Nul              typemap.NulPolicy
}

// LoadScope reads the scope's tables from the source and the snapshot's
// conversion policies into o (Tables, Naming, Mapper). o.Source and
// o.Engine are set. A flag that cannot apply, or a scope without tables,
// is a configuration error (exit 2).
func LoadScope(ctx context.Context, o *Options, sc Scope) error {
	filter, err := schema.NewFilter(sc.Include, sc.Exclude, o.Source.Database)
	if err != nil {
		return err
	}
	if o.Naming, err = schema.NewNamingOptions(sc.Naming); err != nil {
		return exitcode.ConfigError(err)
	}
	if o.Engine.Capabilities().KeepsSourceNames { // no renames or identifier folding to undo
		if err := schema.RefuseForMySQL(sc.Naming); err != nil {
			return exitcode.ConfigError(err)
		}
	}
	db, err := o.Source.OpenDB()
	if err != nil {
		return err
	}
	defer db.Close()
	cat, err := schema.Load(ctx, db, filter)
	if err != nil {
		return err
	}
	if len(cat.Tables) == 0 {
		return exitcode.ConfigError(fmt.Errorf("no tables in scope on the source (filter %s): check --include/--exclude and the database in --source", filter))
	}
	o.Tables = cat.Tables
	o.Mapper, err = snapshotMapper(ctx, db, o.Engine, sc, cat.Tables)
	return err
}

// snapshotMapper is the mapper of the snapshot's conversions: the policies,
// the tables' charsets and whether the target has PostGIS (which decided
// how geometry columns were written).
func snapshotMapper(ctx context.Context, db *sql.DB, eng target.Engine, sc Scope, tables []*schema.Table) (*typemap.Mapper, error) {
	topts := typemap.Options{ZeroDate: sc.ZeroDate, Nul: sc.Nul}
	if err := topts.Validate(); err != nil {
		return nil, exitcode.ConfigError(err)
	}
	var err error
	if topts.Charsets, err = typemap.LoadCharsets(ctx, db, typemap.CharsetsOf(tables)...); err != nil {
		return nil, err
	}
	if p, ok := eng.(target.PostGISProber); ok {
		if topts.PostGIS, err = p.HasPostGIS(ctx); err != nil {
			return nil, err
		}
	}
	return typemap.New(topts, nil), nil
}
