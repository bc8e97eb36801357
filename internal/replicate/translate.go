package replicate

import (
	"github.com/sluice-db/sluice/internal/ddl"
	"github.com/sluice-db/sluice/internal/mysql/binlog"
	"github.com/sluice-db/sluice/internal/schema"
)

// translator adapts internal/ddl to the stream: the stream passes the
// tables in force, the translator keeps the database defaults (from the
// current catalog: the schema history stores tables only, and database
// defaults only matter for CREATE TABLE without a charset).
func (r *runner) translator() binlog.Translator {
	tr := ddl.NewTranslator(r.cat, r.mapper, r.naming, r.filter)
	return func(cur map[schema.TableID]*schema.Table, stmt, defaultDB string) (*binlog.DDLResult, error) {
		res, err := tr.Translate(cur, stmt, defaultDB)
		if err != nil {
			return nil, err
		}
		for _, w := range res.Warnings {
			r.log.Warn("schema change: "+w, "statement", stmt)
		}
		return &binlog.DDLResult{PG: res.PG, Tables: res.Tables, Dropped: res.Dropped,
			Ignored: res.Ignored, Reason: res.Reason}, nil
	}
}
