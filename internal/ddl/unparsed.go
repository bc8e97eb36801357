package ddl

import (
	"fmt"
	"strings"

	"github.com/sluice-db/sluice/internal/schema"
)

// A statement the parser cannot read must stop replication when it may
// change a table in scope: sluice cannot know what it did. But on a shared
// server most DDL concerns other databases, written in whatever syntax their
// applications use, and stopping for those would make a scope pointless. So
// the tables (or database) an unparsable statement names are found from its
// leading words, for the common forms only; when they are all out of scope
// the statement is ignored, else (or when the form is not recognised) it
// stops as before.

// unparsedTarget is what an unparsable statement changes.
type unparsedTarget struct {
	tables    []schema.TableID
	databases []string
}

// unparsedScope returns the reason to ignore an unparsable statement that
// names only objects outside the scope, or "" when it must stop.
func (tr *Translator) unparsedScope(stmt, defaultDB string, parseErr error) string {
	tgt, ok := unparsedTargets(stmt, defaultDB)
	if !ok {
		return ""
	}
	var names []string
	for _, id := range tgt.tables {
		if tr.Filter.Match(id.Database, id.Name) {
			return ""
		}
		names = append(names, id.Database+"."+id.Name)
	}
	for _, db := range tgt.databases {
		if tr.Filter.MatchDatabase(db) {
			return ""
		}
		names = append(names, "database "+db)
	}
	return fmt.Sprintf("%s not in scope (the statement was not parsed: %v)", strings.Join(names, ", "), parseErr)
}

// unparsedTargets finds the tables or databases a DDL statement changes from
// its leading words: CREATE/ALTER/DROP/TRUNCATE/RENAME TABLE, CREATE/DROP
// INDEX ... ON, CREATE/ALTER/DROP DATABASE. ok is false for any other form
// or when an unqualified table name has no default database.
func unparsedTargets(stmt, defaultDB string) (unparsedTarget, bool) {
	s := &nameScanner{toks: significant(lex(stmt)), db: defaultDB}
	var t unparsedTarget
	switch {
	case s.word("create"):
		s.word("or")
		s.word("replace")
		s.words("online", "offline", "unique", "fulltext", "spatial")
		switch {
		case s.word("table"):
			s.ifExists()
			return s.tables(&t, 1)
		case s.word("index"):
			return s.indexTable(&t)
		case s.word("database") || s.word("schema"):
			return s.database(&t)
		}
	case s.word("alter"):
		s.words("online", "ignore")
		switch {
		case s.word("table"):
			if !s.table(&t) {
				return t, false
			}
			return s.renameTo(&t)
		case s.word("database") || s.word("schema"):
			return s.database(&t)
		}
	case s.word("drop"):
		s.words("online", "offline")
		switch {
		case s.word("table"):
			s.ifExists()
			return s.tables(&t, -1)
		case s.word("index"):
			return s.indexTable(&t)
		case s.word("database") || s.word("schema"):
			s.ifExists()
			return s.database(&t)
		}
	case s.word("truncate"):
		s.word("table")
		return s.tables(&t, 1)
	case s.word("rename"):
		if s.word("table") || s.word("tables") {
			s.ifExists()
			return s.renames(&t)
		}
	}
	return t, false
}

// nameScanner walks the significant tokens of a statement.
type nameScanner struct {
	toks []token
	i    int
	db   string
}

func (s *nameScanner) word(w string) bool {
	if s.i < len(s.toks) && s.toks[s.i].is(w) {
		s.i++
		return true
	}
	return false
}

// words skips any of the optional words, in any order.
func (s *nameScanner) words(ws ...string) {
	for progressed := true; progressed; {
		progressed = false
		for _, w := range ws {
			if s.word(w) {
				progressed = true
			}
		}
	}
}

func (s *nameScanner) punct(p string) bool {
	if s.i < len(s.toks) && s.toks[s.i].isPunct(p) {
		s.i++
		return true
	}
	return false
}

// ifExists skips IF [NOT] EXISTS.
func (s *nameScanner) ifExists() {
	if s.word("if") {
		s.word("not")
		s.word("exists")
	}
}

// name reads [db.]name.
func (s *nameScanner) name() (schema.TableID, bool) {
	if s.i >= len(s.toks) || !s.toks[s.i].isName() {
		return schema.TableID{}, false
	}
	first := s.toks[s.i].name()
	s.i++
	if s.punct(".") {
		if s.i >= len(s.toks) || !s.toks[s.i].isName() {
			return schema.TableID{}, false
		}
		second := s.toks[s.i].name()
		s.i++
		return schema.TableID{Database: first, Name: second}, true
	}
	if s.db == "" {
		return schema.TableID{}, false
	}
	return schema.TableID{Database: s.db, Name: first}, true
}

func (s *nameScanner) table(t *unparsedTarget) bool {
	id, ok := s.name()
	if ok {
		t.tables = append(t.tables, id)
	}
	return ok
}

// tables reads a comma-separated list of table names (at most max, -1 for
// any number).
func (s *nameScanner) tables(t *unparsedTarget, max int) (unparsedTarget, bool) {
	for n := 0; max < 0 || n < max; n++ {
		if !s.table(t) {
			return *t, false
		}
		if !s.punct(",") {
			break
		}
	}
	return *t, len(t.tables) > 0
}

// indexTable reads "name [USING ...] ON table" (CREATE/DROP INDEX).
func (s *nameScanner) indexTable(t *unparsedTarget) (unparsedTarget, bool) {
	s.ifExists()
	for ; s.i < len(s.toks); s.i++ {
		if s.toks[s.i].is("on") {
			s.i++
			return *t, s.table(t)
		}
	}
	return *t, false
}

func (s *nameScanner) database(t *unparsedTarget) (unparsedTarget, bool) {
	s.ifExists()
	if s.i >= len(s.toks) || !s.toks[s.i].isName() {
		return *t, false
	}
	t.databases = append(t.databases, s.toks[s.i].name())
	return *t, true
}

// renames reads "a TO b [, c TO d ...]": both sides count.
func (s *nameScanner) renames(t *unparsedTarget) (unparsedTarget, bool) {
	for {
		if !s.table(t) || !s.word("to") || !s.table(t) {
			return *t, false
		}
		if !s.punct(",") {
			return *t, true
		}
	}
}

// renameTo adds the new name of an ALTER TABLE ... RENAME [TO|AS] name,
// wherever it stands among the clauses outside parentheses.
func (s *nameScanner) renameTo(t *unparsedTarget) (unparsedTarget, bool) {
	depth := 0
	for ; s.i < len(s.toks); s.i++ {
		tok := s.toks[s.i]
		switch {
		case tok.isPunct("("):
			depth++
		case tok.isPunct(")"):
			depth--
		case depth == 0 && tok.is("rename"):
			s.i++
			if s.word("column") || s.word("index") || s.word("key") {
				continue
			}
			s.words("to", "as")
			if !s.table(t) {
				return *t, false
			}
			s.i--
		}
	}
	return *t, true
}
