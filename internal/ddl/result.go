package ddl

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/sluice-db/sluice/internal/schema"
)

// Result is what one replicated DDL statement does to the target and to
// the tracked schema.
type Result struct {
	// PG are the statements to run on the target, in order, in one
	// transaction (with the schema history and checkpoint).
	PG []string
	// Tables are the new versions of the tables created or changed.
	Tables []*schema.Table
	// Dropped are the tables that no longer exist (also the old names of renamed tables).
	Dropped []schema.TableID
	// Renamed maps old table ids to new ones.
	Renamed map[schema.TableID]schema.TableID
	// Databases holds created or altered databases; a nil value means dropped.
	Databases map[string]*schema.Database
	Warnings  []string
	// Moved are the columns the statement placed FIRST or AFTER another,
	// changing the source's column order: a PostgreSQL target cannot
	// follow (the replicator warns once per table), a MySQL target replays
	// the statement and does.
	Moved []ColumnMove
	// Ignored is true when the statement changes nothing sluice replicates
	// (out of scope, or an object sluice does not migrate); Reason says why.
	Ignored bool
	Reason  string
}

// ColumnMove is one column placed FIRST or AFTER another on the source.
type ColumnMove struct {
	Table       schema.TableID
	Column      string
	Place       string   // "FIRST" or "AFTER x"
	SourceOrder []string // the table's columns in the source's new order
}

// UnsupportedError is a DDL statement that changes data or schema in scope
// but that sluice cannot translate. Replication stops on it.
type UnsupportedError struct {
	Statement string
	Reason    string
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("unsupported DDL %q: %s; to skip this statement knowingly, run with --skip-ddl '%s' "+
		"(and apply an equivalent change on the target yourself)", abbreviate(e.Statement, 200), e.Reason,
		SkipPattern(e.Statement))
}

func unsupported(stmt, format string, args ...any) error {
	return &UnsupportedError{Statement: stmt, Reason: fmt.Sprintf(format, args...)}
}

func abbreviate(s string, n int) string {
	s = collapseSpace(s)
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

func collapseSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// SkipPattern suggests a --skip-ddl pattern that matches stmt: its first
// words followed by *.
func SkipPattern(stmt string) string {
	words := strings.Fields(stmt)
	if len(words) > 4 {
		words = words[:4]
	}
	p := strings.Join(words, " ") + "*"
	return strings.NewReplacer("'", "?", "[", "?", "]", "?").Replace(p)
}

// MatchSkip reports whether a --skip-ddl pattern matches a statement: a
// case-insensitive glob (* and ?) over the statement with runs of white space
// collapsed to one space.
func MatchSkip(pattern, stmt string) bool {
	var re strings.Builder
	re.WriteString("(?is)^")
	for _, r := range collapseSpace(pattern) {
		switch r {
		case '*':
			re.WriteString(".*")
		case '?':
			re.WriteString(".")
		default:
			re.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	re.WriteString("$")
	ok, err := regexp.MatchString(re.String(), collapseSpace(stmt))
	return err == nil && ok
}
