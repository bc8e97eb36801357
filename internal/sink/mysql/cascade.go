package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/sluice-db/sluice/internal/ddl"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
)

// A foreign key's action (ON DELETE CASCADE, SET NULL, SET DEFAULT, the
// same ON UPDATE) changes child rows the source's binlog does not carry
// when the source runs its foreign keys inside InnoDB (MariaDB, MySQL
// before 9, MySQL 9 with innodb_native_foreign_keys=ON): on the target the
// same action, run by the target's own foreign key, is the only copy of
// those changes. A target table without foreign keys (MyRocks has none)
// would keep every child row the source deleted or changed that way, so
// such a table is refused, by the snapshot, at the start of replication
// and when a replicated schema change gives it such a foreign key. A
// foreign key without an action (RESTRICT, NO ACTION) changes no row: the
// source enforced it, and leaving it out of the target loses nothing the
// binlog would carry. A MySQL 9 source with foreign keys in the SQL layer
// logs the rows its actions change, so nothing is refused there.

// KeepsForeignKeys reports whether tables of a target storage engine keep
// their foreign keys (InnoDB; MyRocks has none).
func KeepsForeignKeys(engine string) bool { return strings.EqualFold(engine, "InnoDB") }

// fkActions lists t's foreign keys with an action, as "`name` (ON DELETE
// CASCADE)".
func fkActions(t *schema.Table) []string {
	var out []string
	for _, fk := range t.ForeignKeys {
		var acts []string
		if isAction(fk.OnDelete) {
			acts = append(acts, "ON DELETE "+strings.ToUpper(fk.OnDelete))
		}
		if isAction(fk.OnUpdate) {
			acts = append(acts, "ON UPDATE "+strings.ToUpper(fk.OnUpdate))
		}
		if len(acts) > 0 {
			out = append(out, fmt.Sprintf("%s (%s)", schema.QuoteMySQL(fk.Name), strings.Join(acts, ", ")))
		}
	}
	return out
}

func isAction(rule string) bool {
	switch strings.ToUpper(strings.TrimSpace(rule)) {
	case "CASCADE", "SET NULL", "SET DEFAULT":
		return true
	}
	return false
}

// CascadeRefusal refuses the tables whose foreign key actions the target
// would not run (engineOf gives a table's engine on the target), naming
// every such table and foreign key and the fix; nil when there is none or
// the source logs the rows its actions change (logged).
func CascadeRefusal(tables []*schema.Table, engineOf func(*schema.Table) string, logged bool) error {
	if logged {
		return nil
	}
	var bad, names []string
	for _, t := range tables {
		if t.LeftOut != "" || KeepsForeignKeys(engineOf(t)) {
			continue
		}
		if acts := fkActions(t); len(acts) > 0 {
			bad = append(bad, fmt.Sprintf("%s (%s on the target): foreign key %s", t.TableID, engineOf(t), strings.Join(acts, ", foreign key ")))
			names = append(names, t.TableID.String())
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("foreign key actions the target would not repeat: the source runs them inside InnoDB, so the binlog "+
		"does not carry the rows they change, and the target engine has no foreign keys to run them (the replica would keep "+
		"rows the source deleted or changed):\n  %s\n  fix: leave these tables out (--exclude %s) or give them a target "+
		"engine with foreign keys (--target-engine InnoDB); foreign keys without an action (RESTRICT, NO ACTION) are "+
		"left out harmlessly", strings.Join(bad, "\n  "), strings.Join(names, " --exclude "))
}

// TargetEngines reads the storage engine of every table of a target
// database, by table name.
func TargetEngines(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, db string) (map[string]string, error) {
	rows, err := q.QueryContext(ctx, "SELECT TABLE_NAME, COALESCE(ENGINE, '') FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?", db)
	if err != nil {
		return nil, fmt.Errorf("target: read the tables' storage engines: %w", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var name, engine string
		if err := rows.Scan(&name, &engine); err != nil {
			return nil, fmt.Errorf("target: read the tables' storage engines: %w", err)
		}
		out[name] = engine
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("target: read the tables' storage engines: %w", err)
	}
	return out, nil
}

// EngineOf gives a table's engine on the target: that of the target table
// of its name (existing; a replayed ALTER keeps it), else --target-engine
// (engine: what sluice creates tables with), else the source table's own.
func EngineOf(engine string, existing map[string]string) func(*schema.Table) string {
	return func(t *schema.Table) string {
		if e := existing[t.Name]; e != "" {
			return e
		}
		if engine != "" {
			return engine
		}
		return t.Engine
	}
}

// refuseCascades refuses a schema change that leaves a table with foreign
// key actions the target would not run (CascadeRefusal), before it runs.
func (s *session) refuseCascades(ctx context.Context, d *model.DDL) error {
	if s.a.cfg.SourceLogsFKActions {
		return nil
	}
	var with []*schema.Table
	for _, t := range d.Tables {
		if len(fkActions(t)) > 0 {
			with = append(with, t)
		}
	}
	if len(with) == 0 {
		return nil
	}
	existing, err := TargetEngines(ctx, s.conn, s.a.cfg.TargetDB)
	if err != nil {
		return err
	}
	err = CascadeRefusal(with, EngineOf(s.a.cfg.Engine, existing), false)
	if err == nil {
		return nil
	}
	hint := "leave the table out from here on: stop, and restart with --exclude (its target table stays as it is now)"
	if createsTable(d.Statement, with[0].Name) {
		hint = fmt.Sprintf("re-run with --skip-ddl '%s': the new table then stays out of replication", ddl.SkipPattern(d.Statement))
	}
	return exitcode.ConfigError(fmt.Errorf("%w\n  to go on: %s", err, hint))
}
