package replicate

import (
	"context"
	"strings"
	"time"

	"github.com/sluice-db/sluice/internal/ddl"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlog"
	engines "github.com/sluice-db/sluice/internal/target"
)

// translator adapts internal/ddl to the stream: the stream passes the
// tables in force, the translator keeps the database defaults (from the
// current catalog: the schema history stores tables only, and database
// defaults only matter for CREATE TABLE without a charset).
func (r *runner) translator() binlog.Translator {
	tr := ddl.NewTranslator(r.cat, r.mapper, r.naming, r.filter)
	r.tr = tr // a table joining the stream widens its filter (join.go)
	caps := r.eng.Capabilities()
	tr.ReplayTarget = caps.DDL == engines.DDLReplay
	return func(cur map[schema.TableID]*schema.Table, stmt, defaultDB string, at time.Time) (*binlog.DDLResult, error) {
		res, err := tr.TranslateAt(cur, stmt, defaultDB, at)
		if err != nil {
			return nil, err
		}
		for _, w := range res.Warnings {
			r.log.Warn("schema change: "+w, "statement", stmt)
		}
		if caps.DDL != engines.DDLReplay {
			r.noteMoves(res.Moved, stmt)
		}
		out := &binlog.DDLResult{PG: res.PG, Tables: res.Tables, Dropped: res.Dropped,
			Ignored: res.Ignored, Reason: res.Reason}
		if caps.SourceStatements && !res.Ignored {
			out.PG = mysqlStatements(stmt, res)
		}
		return out, nil
	}
}

// mysqlStatements is what a target with SourceStatements (MySQL; Kafka's
// events) receives for a schema change: the
// source's own statement (the sink rewrites its database and engine), except
// for database statements: the target database is not the source's, so
// CREATE and ALTER DATABASE change nothing there and DROP DATABASE drops the
// tables it held.
func mysqlStatements(stmt string, res *ddl.Result) []string {
	if len(res.Databases) == 0 {
		return []string{stmt}
	}
	if len(res.Dropped) == 0 {
		return nil
	}
	names := make([]string, len(res.Dropped))
	for i, id := range res.Dropped {
		names[i] = schema.QuoteMySQL(id.Database) + "." + schema.QuoteMySQL(id.Name)
	}
	return []string{"DROP TABLE IF EXISTS " + strings.Join(names, ", ")}
}

// reload reads the current definitions of tables from the source, for a
// statement skipped with --skip-ddl.
func (r *runner) reload(ctx context.Context, ids []schema.TableID) (map[schema.TableID]*schema.Table, error) {
	var include []string
	seen := map[string]bool{}
	for _, id := range ids {
		if !seen[id.Database] {
			seen[id.Database] = true
			include = append(include, id.Database+".*")
		}
	}
	f, err := schema.NewFilter(include, nil, "")
	if err != nil {
		return nil, err
	}
	cat, err := schema.Load(ctx, r.srcDB, f)
	if err != nil {
		return nil, err
	}
	want := map[schema.TableID]bool{}
	for _, id := range ids {
		want[id] = true
	}
	out := map[schema.TableID]*schema.Table{}
	for _, t := range cat.Tables {
		if want[t.TableID] {
			out[t.TableID] = t
		}
	}
	return out, nil
}
