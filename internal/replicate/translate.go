package replicate

import (
	"fmt"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sluice-db/sluice/internal/mysql/binlog"
	"github.com/sluice-db/sluice/internal/schema"
)

// translator returns the stream's DDL translator.
//
// Until internal/ddl provides statement translation, every statement that
// touches a table or database in scope stops replication with an error
// naming it (never silently ignored); statements outside the scope and
// statements that change no schema are ignored.
func (r *runner) translator(_ map[schema.TableID]*schema.Table) binlog.Translator {
	parser, err := sqlparser.New(sqlparser.Options{MySQLServerVersion: "8.0.40"})
	if err != nil {
		panic(err) // a constant version string
	}
	return func(_ map[schema.TableID]*schema.Table, stmt, defaultDB string) (*binlog.DDLResult, error) {
		parsed, err := parser.Parse(stmt)
		if err != nil {
			for _, db := range r.cat.Databases {
				if strings.Contains(stmt, db.Name) || defaultDB == db.Name {
					return nil, fmt.Errorf("cannot parse the statement (%v)", err)
				}
			}
			return &binlog.DDLResult{Ignored: true, Reason: "not parsed, names no database in scope"}, nil
		}
		switch s := parsed.(type) {
		case sqlparser.DBDDLStatement:
			if r.filter.MatchDatabase(s.GetDatabaseName()) {
				return nil, fmt.Errorf("database DDL replication is not available yet")
			}
			return &binlog.DDLResult{Ignored: true, Reason: "database out of scope"}, nil
		case sqlparser.DDLStatement:
			for _, t := range s.AffectedTables() {
				db := t.Qualifier.String()
				if db == "" {
					db = defaultDB
				}
				if r.filter.Match(db, t.Name.String()) {
					return nil, fmt.Errorf("table DDL replication is not available yet")
				}
			}
			return &binlog.DDLResult{Ignored: true, Reason: "tables out of scope"}, nil
		}
		return &binlog.DDLResult{Ignored: true, Reason: "changes no schema"}, nil
	}
}
