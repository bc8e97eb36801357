package schema

import (
	"fmt"
	"path"
	"strings"
)

// SystemDatabases are never in scope unless an --include pattern names one
// literally (a wildcard in the database part never matches them).
// "sluice" is sluice's own state database on a MySQL server (a MySQL
// target's checkpoint, the reverse stream's state and the cut-over record
// on a source): never the application's data.
var SystemDatabases = []string{"mysql", "information_schema", "performance_schema", "sys", "sluice"}

// IsSystemDatabase reports whether db is one of SystemDatabases.
func IsSystemDatabase(db string) bool {
	for _, s := range SystemDatabases {
		if strings.EqualFold(db, s) {
			return true
		}
	}
	return false
}

// Pattern is one db.table pattern with * and ? wildcards (path.Match
// syntax, so [abc] classes work too). A backslash is a character of the
// name, as in MySQL (db.a\b names the table a\b), never an escape. A part in
// backquotes is a literal name (`a*b`, `x.y`): no wildcards, dots its own.
// Names compare case-sensitively, as MySQL on Linux does.
type Pattern struct {
	DB    string
	Table string
	// dbLiteral and tableLiteral are set for backquoted parts.
	dbLiteral, tableLiteral bool
}

func (p Pattern) String() string { return p.DB + "." + p.Table }

// Literal reports whether the pattern names exactly one table.
func (p Pattern) Literal() bool {
	return (p.dbLiteral || !hasWildcard(p.DB)) && (p.tableLiteral || !hasWildcard(p.Table))
}

func (p Pattern) matchDB(db string) bool {
	if p.dbLiteral {
		return p.DB == db
	}
	if hasWildcard(p.DB) && IsSystemDatabase(db) {
		return false
	}
	ok, _ := path.Match(glob(p.DB), db)
	return ok
}

func (p Pattern) match(db, table string) bool {
	if !p.matchDB(db) {
		return false
	}
	if p.tableLiteral {
		return p.Table == table
	}
	ok, _ := path.Match(glob(p.Table), table)
	return ok
}

func hasWildcard(s string) bool { return strings.ContainsAny(s, "*?[") }

// glob is a pattern part in path.Match syntax: its backslashes are names'
// characters (MySQL allows them in names), so they are escaped.
func glob(s string) string { return strings.ReplaceAll(s, `\`, `\\`) }

// ParsePattern parses "db.table", "db.*" or a bare "db" (= "db.*"). The
// database part ends at the first dot outside backquotes: table names may
// contain dots.
func ParsePattern(s string) (Pattern, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Pattern{}, fmt.Errorf("empty table pattern")
	}
	db, table, found, err := cutPattern(s)
	if err != nil {
		return Pattern{}, fmt.Errorf("table pattern %q: %w", s, err)
	}
	if !found {
		table = "*"
	}
	var p Pattern
	p.DB, p.dbLiteral = unquote(db)
	p.Table, p.tableLiteral = unquote(table)
	if p.DB == "" || p.Table == "" {
		return Pattern{}, fmt.Errorf("table pattern %q: want db.table, db.* or db (e.g. shop.order*)", s)
	}
	for _, part := range []struct {
		s   string
		lit bool
	}{{p.DB, p.dbLiteral}, {p.Table, p.tableLiteral}} {
		if part.lit {
			continue
		}
		if _, err := path.Match(glob(part.s), ""); err != nil {
			return Pattern{}, fmt.Errorf("table pattern %q: %w (put a name with [ in backquotes: `name`)", s, err)
		}
	}
	return p, nil
}

// cutPattern splits s at the first dot that is not inside backquotes.
func cutPattern(s string) (db, table string, found bool, err error) {
	in := false
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '`' && in && i+1 < len(s) && s[i+1] == '`':
			i++ // `` inside backquotes
		case s[i] == '`':
			in = !in
		case s[i] == '.' && !in:
			return s[:i], s[i+1:], true, nil
		}
	}
	if in {
		return "", "", false, fmt.Errorf("unterminated backquote")
	}
	return s, "", false, nil
}

// unquote strips MySQL backquotes around one name part and reports whether
// there were any (the part is then a literal name).
func unquote(s string) (string, bool) {
	if len(s) >= 2 && s[0] == '`' && s[len(s)-1] == '`' {
		return strings.ReplaceAll(s[1:len(s)-1], "``", "`"), true
	}
	return s, false
}

// Filter decides which source tables are in scope: those matching an
// include pattern and no exclude pattern. With no include patterns the
// scope is the source URL's database, or every non-system database.
type Filter struct {
	Include []Pattern
	Exclude []Pattern
}

// NewFilter builds the filter from --include and --exclude values and the
// database named in the source URL (may be empty).
func NewFilter(include, exclude []string, urlDatabase string) (Filter, error) {
	var f Filter
	for _, s := range include {
		p, err := ParsePattern(s)
		if err != nil {
			return Filter{}, fmt.Errorf("--include: %w", err)
		}
		f.Include = append(f.Include, p)
	}
	for _, s := range exclude {
		p, err := ParsePattern(s)
		if err != nil {
			return Filter{}, fmt.Errorf("--exclude: %w", err)
		}
		f.Exclude = append(f.Exclude, p)
	}
	if len(f.Include) == 0 {
		if urlDatabase != "" {
			f.Include = []Pattern{{DB: urlDatabase, Table: "*"}}
		} else {
			f.Include = []Pattern{{DB: "*", Table: "*"}}
		}
	}
	return f, nil
}

// Match reports whether table db.table is in scope.
func (f Filter) Match(db, table string) bool {
	for _, p := range f.Exclude {
		if p.match(db, table) {
			return false
		}
	}
	for _, p := range f.Include {
		if p.match(db, table) {
			return true
		}
	}
	return false
}

// MatchDatabase reports whether some table of db may be in scope (used for
// CREATE/DROP DATABASE and for the objects that belong to a database, such
// as routines and events). A database excluded as a whole ("db" or "db.*")
// is out of scope.
func (f Filter) MatchDatabase(db string) bool {
	for _, p := range f.Exclude {
		if p.Table == "*" && p.matchDB(db) {
			return false
		}
	}
	for _, p := range f.Include {
		if p.matchDB(db) {
			return true
		}
	}
	return false
}

// LiteralIncludes returns the include patterns that name exactly one table
// (no wildcards): each must exist on the source.
func (f Filter) LiteralIncludes() []TableID {
	var ids []TableID
	for _, p := range f.Include {
		if p.Literal() {
			ids = append(ids, TableID{Database: p.DB, Name: p.Table})
		}
	}
	return ids
}

// String describes the scope for logs and reports.
func (f Filter) String() string {
	var b strings.Builder
	for i, p := range f.Include {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(p.String())
	}
	if len(f.Exclude) > 0 {
		b.WriteString(" except ")
		for i, p := range f.Exclude {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(p.String())
		}
	}
	return b.String()
}
