package mysql

import (
	"strings"
	"unicode"

	"github.com/sluice-db/sluice/internal/schema"
)

// The source's DDL is replayed as written, with two rewrites done on its
// tokens (so strings, comments and quoted names are never touched by
// mistake): a database qualifier naming the source database names the target
// database instead, and with --target-engine every ENGINE= table option
// names that engine (a CREATE TABLE without one gets it). A CREATE TABLE
// without a table COLLATE gets the collation the source gave the table, so
// that columns without their own charset get the same charset and collation
// on the target whatever its server and database defaults.

type tokKind uint8

const (
	tkSpace  tokKind = iota // whitespace and comments
	tkWord                  // keywords, names, numbers
	tkQuoted                // `name`
	tkString                // 'text' or "text"
	tkPunct                 // one character
)

type tok struct {
	kind       tokKind
	start, end int
}

// lexSQL splits a statement into tokens. Executable comments (/*! ... */,
// /*M! ... */) are code: only their markers count as comments.
func lexSQL(s string) []tok {
	var out []tok
	for i := 0; i < len(s); {
		c := s[i]
		start := i
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			for i < len(s) && strings.IndexByte(" \t\n\r\f\v", s[i]) >= 0 {
				i++
			}
			out = append(out, tok{tkSpace, start, i})
		case c == '#' || c == '-' && strings.HasPrefix(s[i:], "-- ") || c == '-' && (s[i:] == "--" || strings.HasPrefix(s[i:], "--\n") || strings.HasPrefix(s[i:], "--\t")):
			for i < len(s) && s[i] != '\n' {
				i++
			}
			out = append(out, tok{tkSpace, start, i})
		case c == '/' && strings.HasPrefix(s[i:], "/*!") || c == '/' && strings.HasPrefix(s[i:], "/*M!"):
			i += 3
			if s[start+2] == 'M' {
				i++
			}
			for i < len(s) && s[i] >= '0' && s[i] <= '9' {
				i++
			}
			out = append(out, tok{tkSpace, start, i})
		case c == '*' && strings.HasPrefix(s[i:], "*/"):
			i += 2 // the end of an executable comment
			out = append(out, tok{tkSpace, start, i})
		case c == '/' && strings.HasPrefix(s[i:], "/*"):
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				i = len(s)
			} else {
				i += 2 + end + 2
			}
			out = append(out, tok{tkSpace, start, i})
		case c == '`':
			i++
			for i < len(s) {
				if s[i] == '`' {
					if i+1 < len(s) && s[i+1] == '`' {
						i += 2
						continue
					}
					i++
					break
				}
				i++
			}
			out = append(out, tok{tkQuoted, start, i})
		case c == '\'' || c == '"':
			i++
			for i < len(s) {
				if s[i] == '\\' {
					i += 2
					continue
				}
				if s[i] == c {
					if i+1 < len(s) && s[i+1] == c {
						i += 2
						continue
					}
					i++
					break
				}
				i++
			}
			out = append(out, tok{tkString, start, min(i, len(s))})
		case isWordByte(c):
			for i < len(s) && isWordByte(s[i]) {
				i++
			}
			out = append(out, tok{tkWord, start, i})
		default:
			i++
			out = append(out, tok{tkPunct, start, i})
		}
	}
	return out
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '$' || c >= 0x80
}

// knownEngines are storage engine names, to tell "ENGINE InnoDB" (a table
// option without '=') from a column named engine.
var knownEngines = map[string]bool{
	"innodb": true, "myisam": true, "aria": true, "memory": true, "heap": true, "rocksdb": true, "csv": true,
	"archive": true, "blackhole": true, "merge": true, "mrg_myisam": true, "federated": true, "federatedx": true,
	"connect": true, "sequence": true, "s3": true, "columnstore": true, "spider": true, "tokudb": true, "ndb": true,
	"ndbcluster": true, "xtradb": true,
}

// rewriter rewrites one statement for the target.
type rewriter struct {
	sourceDB, targetDB string
	engine             string // --target-engine, "" = keep
	collation          string // table option giving a CREATE TABLE without COLLATE the created table's collation ("COLLATE=x")
	// mapCollation gives the target's name of a collation the statement
	// names ("" keeps it): TargetCollation, for a MySQL 8+ source into MariaDB.
	mapCollation func(string) string
	// charsetCollations: a collation added to a charset clause without COLLATE
	// (CHARACTER SET utf8mb4, CONVERT TO CHARSET utf8mb4), by charset: what the
	// clause meant on the source, as the target names it, where the target's own
	// default would differ (a MySQL 8+ source's utf8mb4_0900_ai_ci; a MariaDB 11
	// session's character_set_collations, model.DDL.CharsetCollations).
	charsetCollations map[string]string
}

type edit struct {
	start, end int
	text       string
}

// RetargetQualifiers rewrites the database qualifiers of stmt that name
// sourceDB to targetDB (`app`.`t` → `replica`.`t`), token-aware (strings,
// comments and other names are left alone): for objects the snapshot copies
// into a MySQL target, such as views and routines.
func RetargetQualifiers(stmt, sourceDB, targetDB string) string {
	return rewriter{sourceDB: sourceDB, targetDB: targetDB}.rewrite(stmt)
}

func (r rewriter) rewrite(stmt string) string {
	toks := lexSQL(stmt)
	var sig []int // indexes of significant tokens
	for i, t := range toks {
		if t.kind != tkSpace {
			sig = append(sig, i)
		}
	}
	text := func(k int) string { t := toks[sig[k]]; return stmt[t.start:t.end] }
	kind := func(k int) tokKind { return toks[sig[k]].kind }
	word := func(k int, w string) bool {
		return k >= 0 && k < len(sig) && kind(k) == tkWord && strings.EqualFold(text(k), w)
	}
	punct := func(k int, p string) bool { return k >= 0 && k < len(sig) && kind(k) == tkPunct && text(k) == p }
	name := func(k int) string {
		s := text(k)
		if kind(k) == tkQuoted {
			return strings.ReplaceAll(s[1:len(s)-1], "``", "`")
		}
		return s
	}

	var edits []edit
	// DROP TABLE t: the source no longer has t, and neither must the
	// target, also when it never had it (a CREATE skipped with --skip-ddl,
	// a table left out of the target), which the statement as written
	// refuses (Error 1051), stopping replication for nothing.
	if word(0, "DROP") && word(1, "TABLE") && !word(2, "IF") {
		at := toks[sig[1]].end
		edits = append(edits, edit{at, at, " IF EXISTS"})
	}
	depth := 0
	hasEngine, hasCollate := false, false
	closeOfColumns := -1 // the token index of the ')' ending a CREATE TABLE's column list
	create, like := r.createTable(sig, word, punct)
	openAt := -1
	for k := 0; k < len(sig); k++ {
		t := toks[sig[k]]
		switch {
		case punct(k, "("):
			if create >= 0 && openAt < 0 && depth == 0 && k > create {
				openAt = k
			}
			depth++
		case punct(k, ")"):
			depth--
			if depth == 0 && openAt >= 0 && closeOfColumns < 0 {
				closeOfColumns = k
			}
		case (t.kind == tkWord || t.kind == tkQuoted) && punct(k+1, ".") && name(k) == r.sourceDB:
			edits = append(edits, edit{t.start, t.end, schema.QuoteMySQL(r.targetDB)})
		case word(k, "ENGINE") && depth <= 1 && !punct(k-1, "."):
			v := k + 1
			if punct(v, "=") {
				v++
			} else if !(depth == 0 && v < len(sig) && knownEngines[strings.ToLower(name(v))]) {
				continue
			}
			if v >= len(sig) || kind(v) == tkString || kind(v) == tkPunct {
				continue
			}
			hasEngine = true
			if r.engine != "" {
				vt := toks[sig[v]]
				edits = append(edits, edit{vt.start, vt.end, r.engine})
			}
		case word(k, "COLLATE"):
			if depth == 0 {
				hasCollate = true
			}
			v := k + 1
			if punct(v, "=") {
				v++
			}
			if r.mapCollation != nil && v < len(sig) && (kind(v) == tkWord || kind(v) == tkString || kind(v) == tkQuoted) {
				if c := r.mapCollation(strings.Trim(name(v), "'\"")); c != "" {
					vt := toks[sig[v]]
					edits = append(edits, edit{vt.start, vt.end, c})
				}
			}
		case len(r.charsetCollations) > 0 && depth <= 1 && (word(k, "CHARSET") || word(k, "CHARACTER") && word(k+1, "SET")):
			v := k + 1
			if word(k, "CHARACTER") {
				v++
			}
			if punct(v, "=") {
				v++
			}
			coll := ""
			if v < len(sig) {
				coll = r.charsetCollations[strings.ToLower(strings.Trim(name(v), "'\""))]
			}
			if coll != "" && !word(v+1, "COLLATE") && !(word(v+1, "DEFAULT") && word(v+2, "COLLATE")) {
				at := toks[sig[v]].end
				edits = append(edits, edit{at, at, " COLLATE " + coll})
				if depth == 0 {
					hasCollate = true
				}
			}
		}
	}
	if create >= 0 && !like && closeOfColumns >= 0 {
		var add string
		if r.engine != "" && !hasEngine {
			add += " ENGINE=" + r.engine
		}
		if r.collation != "" && !hasCollate {
			add += " " + r.collation
		}
		if add != "" {
			at := toks[sig[closeOfColumns]].end
			if at < len(stmt) && !unicode.IsSpace(rune(stmt[at])) {
				add += " " // `)ENGINE=InnoDB`: the next option must not run into it
			}
			edits = append(edits, edit{at, at, add})
		}
	}
	if len(edits) == 0 {
		return stmt
	}
	var b strings.Builder
	last := 0
	// edits are in statement order except the insertion, which sorts by position
	sortEdits(edits)
	for _, e := range edits {
		b.WriteString(stmt[last:e.start])
		b.WriteString(e.text)
		last = e.end
	}
	b.WriteString(stmt[last:])
	return b.String()
}

// createTable returns the index (among significant tokens) of TABLE in a
// CREATE [OR REPLACE] [TEMPORARY] TABLE statement, or -1, and whether it
// copies another table (LIKE).
func (r rewriter) createTable(sig []int, word func(int, string) bool, punct func(int, string) bool) (int, bool) {
	k := 0
	if !word(k, "CREATE") {
		return -1, false
	}
	k++
	if word(k, "OR") && word(k+1, "REPLACE") {
		k += 2
	}
	if word(k, "TEMPORARY") {
		k++
	}
	if !word(k, "TABLE") {
		return -1, false
	}
	at := k
	k++
	if word(k, "IF") && word(k+1, "NOT") && word(k+2, "EXISTS") {
		k += 3
	}
	k++ // the name
	if punct(k, ".") {
		k += 2
	}
	like := word(k, "LIKE") || punct(k, "(") && word(k+1, "LIKE")
	return at, like
}

func sortEdits(es []edit) {
	for i := 1; i < len(es); i++ {
		for j := i; j > 0 && es[j].start < es[j-1].start; j-- {
			es[j], es[j-1] = es[j-1], es[j]
		}
	}
}
