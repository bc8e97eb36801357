package ddl

import (
	"fmt"
	"strings"
	"time"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sluice-db/sluice/internal/schema"
)

// Tables is the tracked schema: each in-scope table's current version.
type Tables = map[schema.TableID]*schema.Table

// Translate translates one statement of a binlog QUERY event, given the
// tables in force before it and the event's default database. It returns
// what to run on the target and the new table versions, Ignored for
// statements that change nothing sluice replicates, or an
// *UnsupportedError for changes in scope sluice cannot reproduce.
func (tr *Translator) Translate(cur Tables, stmt, defaultDB string) (*Result, error) {
	return tr.TranslateAt(cur, stmt, defaultDB, time.Time{})
}

// TranslateAt is Translate of a statement the source ran at a known time
// (the binlog event's, to the microsecond where the server logged it): the
// value MySQL gives existing rows when a change fills them with the current
// time. Without it (the zero time) such changes are refused.
func (tr *Translator) TranslateAt(cur Tables, stmt, defaultDB string, at time.Time) (*Result, error) {
	stmt = withoutSetStatement(stmt)
	if reason := ignoredStatement(stmt); reason != "" {
		return &Result{Ignored: true, Reason: reason}, nil
	}
	pr := prepare(stmt, tr.Flavor)
	st, err := parseStatement(pr.sql)
	if err != nil {
		if reason := tr.unparsedScope(stmt, defaultDB, err); reason != "" {
			return &Result{Ignored: true, Reason: reason}, nil
		}
		return nil, unsupported(stmt, "sluice cannot parse it (%v)", err)
	}
	x := &translation{tr: tr, cur: cur, stmt: stmt, db: defaultDB, at: at, pr: pr, res: &Result{}}
	switch s := st.(type) {
	case *sqlparser.CreateTable:
		err = x.createTable(s)
	case *sqlparser.DropTable:
		err = x.dropTables(s)
	case *sqlparser.TruncateTable:
		err = x.truncate(s)
	case *sqlparser.RenameTable:
		err = x.renameTables(s)
	case *sqlparser.AlterTable:
		err = x.alterTable(s)
	case *sqlparser.CreateDatabase:
		err = x.createDatabase(s)
	case *sqlparser.AlterDatabase:
		err = x.alterDatabase(s)
	case *sqlparser.DropDatabase:
		err = x.dropDatabase(s)
	case sqlparser.DDLStatement:
		// views, and other DDL vitess parses that does not concern tables
		x.ignore("%T: not a table sluice migrates", s)
	default:
		x.ignore("not a schema change (%T)", s)
	}
	if err == nil {
		err = x.checkNames()
	}
	if err != nil {
		return nil, err
	}
	if !x.res.Ignored && len(x.res.PG) == 0 && len(x.res.Tables) == 0 && len(x.res.Dropped) == 0 &&
		len(x.res.Databases) == 0 {
		x.ignore("changes nothing on the target")
	}
	return x.res, nil
}

// checkNames refuses new table versions the naming cannot hold on the
// target (schema.Naming.CheckTable): two columns or indexes under one name,
// a name over 63 bytes, a key over an excluded column; and a table that
// takes the target name of another one.
func (x *translation) checkNames() error {
	n := x.tr.Naming
	if x.tr.ReplayTarget {
		n = n.ForMySQLTarget()
	}
	for _, t := range x.res.Tables {
		if errs := n.CheckTable(t); len(errs) > 0 {
			return x.unsupported("%v", errs[0])
		}
		for id := range x.cur {
			if id != t.TableID && n.Schema(id.Database) == n.Schema(t.Database) && n.Table(id) == n.Table(t.TableID) &&
				!x.renamedAway(id) {
				return x.unsupported("tables %s and %s both become %s on the target: give one another name with --rename %s=new_name",
					id, t.TableID, n.QTable(t.TableID), t.TableID)
			}
		}
	}
	return nil
}

// renamedAway reports whether the statement dropped a table or renamed it
// away (Dropped holds the old names of renamed tables too).
func (x *translation) renamedAway(id schema.TableID) bool {
	for _, d := range x.res.Dropped {
		if d == id {
			return true
		}
	}
	return false
}

// translation is one Translate call.
type translation struct {
	tr   *Translator
	cur  Tables
	stmt string
	db   string
	at   time.Time // when the source ran the statement (TranslateAt)
	pr   prepared
	res  *Result
}

func (x *translation) ignore(format string, args ...any) {
	x.res.Ignored = true
	x.res.Reason = fmt.Sprintf(format, args...)
}

func (x *translation) unsupported(format string, args ...any) error {
	return unsupported(x.stmt, format, args...)
}

func (x *translation) warn(format string, args ...any) {
	x.res.Warnings = append(x.res.Warnings, fmt.Sprintf(format, args...))
}

func (x *translation) inScope(id schema.TableID) bool { return x.tr.Filter.Match(id.Database, id.Name) }

func (x *translation) emit(stmts ...string) { x.res.PG = append(x.res.PG, stmts...) }

// ignoredKinds are statements about objects sluice does not migrate, by
// their first words (after CREATE/ALTER/DROP and their options).
var ignoredObjects = map[string]string{
	"view": "views are not migrated", "trigger": "triggers are not migrated",
	"procedure": "stored procedures are not migrated", "function": "stored functions are not migrated",
	"event": "events are not migrated", "sequence": "sequences are not migrated",
	"server": "federated servers are not migrated", "user": "accounts are not migrated",
	"role": "roles are not migrated", "package": "packages are not migrated",
	"tablespace": "tablespaces do not matter on the target", "logfile": "log file groups do not matter on the target",
	"reference": "spatial reference systems are not migrated", "resource": "resource groups are not migrated",
	"temporary": "temporary tables are not replicated",
}

// ignoredFirstWords are statements that never change replicated tables.
var ignoredFirstWords = map[string]string{
	"grant": "privileges are not migrated", "revoke": "privileges are not migrated",
	"flush": "server administration", "analyze": "table maintenance", "optimize": "table maintenance",
	"repair": "table maintenance", "check": "table maintenance", "checksum": "table maintenance",
	"set": "session setting", "do": "no effect on data", "lock": "locking", "unlock": "locking",
	"install": "plugins are not migrated", "uninstall": "plugins are not migrated", "purge": "server administration",
	"reset": "server administration", "kill": "server administration", "savepoint": "transaction control",
	"release": "transaction control", "begin": "transaction control", "commit": "transaction control",
	"rollback": "transaction control", "start": "transaction control", "use": "session setting",
	"show": "no effect on data", "select": "no effect on data", "help": "no effect on data",
	"binlog": "server administration", "change": "server administration", "stop": "server administration",
	"shutdown": "server administration", "cache": "server administration", "deallocate": "session",
	"prepare": "session", "execute": "session", "handler": "no effect on data", "signal": "no effect on data",
	"resignal": "no effect on data", "call": "stored routine call: its row changes are logged as rows",
}

// ignoredStatement classifies statements by their leading words before
// parsing (vitess cannot parse many of them). It returns the reason, or ""
// when the statement must be parsed.
func ignoredStatement(stmt string) string {
	words := leadingWords(stmt, 12)
	if len(words) == 0 {
		return "empty statement"
	}
	if r, ok := ignoredFirstWords[words[0]]; ok {
		return r
	}
	switch words[0] {
	case "create", "alter", "drop", "rename":
	default:
		return ""
	}
	for _, w := range words[1:] {
		if r, ok := ignoredObjects[w]; ok {
			return r
		}
		switch w {
		case "table", "tables", "database", "schema", "databases", "schemas", "index":
			return ""
		}
	}
	return ""
}

// leadingWords returns up to n lower-cased words of a statement, skipping
// comments, quoted strings and DEFINER=... clauses.
func leadingWords(stmt string, n int) []string {
	var out []string
	toks := lex(stmt)
	for i := 0; i < len(toks) && len(out) < n; i++ {
		t := toks[i]
		if t.kind != tWord {
			continue
		}
		out = append(out, strings.ToLower(t.text))
	}
	return out
}

// withoutSetStatement returns the statement that MariaDB's
// SET STATEMENT var = value [, ...] FOR <statement> runs: the settings only
// change how the server runs it (a lock wait timeout, a sql_mode), and
// without this an online schema change tool's ALTER would be taken for a
// session setting and passed over. Other statements are returned unchanged.
func withoutSetStatement(stmt string) string {
	off, words, depth := 0, 0, 0
	for _, t := range lex(stmt) {
		switch {
		case t.kind == tWord:
			w := strings.ToLower(t.text)
			words++
			switch {
			case words == 1 && w != "set", words == 2 && w != "statement":
				return stmt
			case words > 2 && depth == 0 && w == "for":
				return strings.TrimSpace(stmt[off+len(t.text):])
			}
		case t.text == "(":
			depth++
		case t.text == ")":
			depth--
		}
		off += len(t.text)
	}
	return stmt
}
