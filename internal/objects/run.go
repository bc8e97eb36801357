package objects

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/sink/postgres"
)

// Options say which objects to write where.
type Options struct {
	Source config.MySQL
	// Target, when set, is where the translations are tried (rolled back);
	// nil for a dry run, whose tables do not exist on the target.
	Target *config.Postgres
	// Include, Exclude and SchemaMap are the snapshot's: the same scope and
	// names; Naming holds every naming flag (its SchemaMap wins when set).
	Include, Exclude, SchemaMap []string
	Naming                      schema.NamingOptions
	File                        string
	Log                         *slog.Logger
}

// Run loads the scope's objects from the source, translates them, checks
// the translations on the target and writes the file.
func Run(ctx context.Context, o Options) (*Result, error) {
	filter, err := schema.NewFilter(o.Include, o.Exclude, o.Source.Database)
	if err != nil {
		return nil, exitcode.ConfigError(err)
	}
	naming, err := schema.NewNamingOptions(o.naming())
	if err != nil {
		return nil, exitcode.ConfigError(err)
	}
	src, err := o.Source.OpenDB()
	if err != nil {
		return nil, fmt.Errorf("objects: source: %w", err)
	}
	defer src.Close()
	src.SetMaxOpenConns(1)
	cat, err := schema.Load(ctx, src, filter)
	if err != nil {
		return nil, fmt.Errorf("objects: source: %w", err)
	}
	res, err := Generate(ctx, src, cat, naming)
	if err != nil {
		return nil, fmt.Errorf("objects: source: %w", err)
	}
	if o.Target != nil {
		pool, err := postgres.Connect(ctx, o.Target.ConnString(), 1)
		if err != nil {
			return nil, fmt.Errorf("objects: target: %w", err)
		}
		defer pool.Close()
		if err := res.Check(ctx, pool); err != nil {
			return nil, err
		}
	}
	if err := res.WriteFile(o.File); err != nil {
		return nil, err
	}
	if o.Log != nil {
		s := res.Summary(o.File)
		o.Log.Info("objects for review written", "file", o.File, "translated", s.Translated, "need_human", s.NeedHuman,
			"checked_on_target", s.Checked)
	}
	return res, nil
}

// naming merges SchemaMap into Naming.
func (o Options) naming() schema.NamingOptions {
	n := o.Naming
	if len(n.SchemaMap) == 0 {
		n.SchemaMap = o.SchemaMap
	}
	return n
}
