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

// sigToks are a statement's significant tokens (no spaces or comments),
// addressed by their index k among them.
type sigToks struct {
	stmt string
	toks []tok
	sig  []int // indexes of significant tokens
}

// newSigToks lexes stmt once, so that rewrite's checks look only at
// significant tokens and edit the text by the tokens' offsets.
func newSigToks(stmt string) sigToks {
	toks := lexSQL(stmt)
	var sig []int
	for i, t := range toks {
		if t.kind != tkSpace {
			sig = append(sig, i)
		}
	}
	return sigToks{stmt: stmt, toks: toks, sig: sig}
}

func (s sigToks) tok(k int) tok      { return s.toks[s.sig[k]] }
func (s sigToks) text(k int) string  { t := s.toks[s.sig[k]]; return s.stmt[t.start:t.end] }
func (s sigToks) kind(k int) tokKind { return s.toks[s.sig[k]].kind }
func (s sigToks) word(k int, w string) bool {
	return k >= 0 && k < len(s.sig) && s.kind(k) == tkWord && strings.EqualFold(s.text(k), w)
}
func (s sigToks) punct(k int, p string) bool {
	return k >= 0 && k < len(s.sig) && s.kind(k) == tkPunct && s.text(k) == p
}

// name is the identifier of token k, unquoted.
func (s sigToks) name(k int) string {
	t := s.text(k)
	if s.kind(k) == tkQuoted {
		return strings.ReplaceAll(t[1:len(t)-1], "``", "`")
	}
	return t
}

// rewriteScan is what rewrite's pass over the tokens collects: the edits,
// the parenthesis depth, and for a CREATE TABLE where its column list ends
// and whether it names an engine and a collation.
type rewriteScan struct {
	edits                 []edit
	depth                 int
	hasEngine, hasCollate bool
	create                int  // CREATE TABLE's TABLE token, or -1
	like                  bool // CREATE TABLE … LIKE
	openAt                int  // the '(' opening the column list, or -1
	closeOfColumns        int  // the token index of the ')' ending a CREATE TABLE's column list
}

func (r rewriter) rewrite(stmt string) string {
	s := newSigToks(stmt)
	sc := &rewriteScan{openAt: -1, closeOfColumns: -1}
	// DROP TABLE t: the source no longer has t, and neither must the
	// target, also when it never had it (a CREATE skipped with --skip-ddl,
	// a table left out of the target), which the statement as written
	// refuses (Error 1051), stopping replication for nothing.
	if s.word(0, "DROP") && s.word(1, "TABLE") && !s.word(2, "IF") {
		at := s.tok(1).end
		sc.edits = append(sc.edits, edit{at, at, " IF EXISTS"})
	}
	sc.create, sc.like = r.createTable(s.sig, s.word, s.punct)
	for k := 0; k < len(s.sig); k++ {
		r.scanToken(s, sc, k)
	}
	if sc.create >= 0 && !sc.like && sc.closeOfColumns >= 0 {
		r.addTableOptions(s, sc)
	}
	return applyEdits(stmt, sc.edits)
}

// scanToken looks at token k: parentheses, database qualifiers and the
// ENGINE, COLLATE and CHARSET options.
func (r rewriter) scanToken(s sigToks, sc *rewriteScan, k int) {
	t := s.tok(k)
	switch {
	case s.punct(k, "("):
		if sc.create >= 0 && sc.openAt < 0 && sc.depth == 0 && k > sc.create {
			sc.openAt = k
		}
		sc.depth++
	case s.punct(k, ")"):
		sc.depth--
		if sc.depth == 0 && sc.openAt >= 0 && sc.closeOfColumns < 0 {
			sc.closeOfColumns = k
		}
	case (t.kind == tkWord || t.kind == tkQuoted) && s.punct(k+1, ".") && s.name(k) == r.sourceDB:
		sc.edits = append(sc.edits, edit{t.start, t.end, schema.QuoteMySQL(r.targetDB)})
	case s.word(k, "ENGINE") && sc.depth <= 1 && !s.punct(k-1, "."):
		r.engineOption(s, sc, k)
	case s.word(k, "COLLATE"):
		r.collateOption(s, sc, k)
	case len(r.charsetCollations) > 0 && sc.depth <= 1 && (s.word(k, "CHARSET") || s.word(k, "CHARACTER") && s.word(k+1, "SET")):
		r.charsetOption(s, sc, k)
	}
}

// engineOption notes an ENGINE option at k and replaces its value with the
// target's engine, if set.
func (r rewriter) engineOption(s sigToks, sc *rewriteScan, k int) {
	v := k + 1
	if s.punct(v, "=") {
		v++
	} else if !(sc.depth == 0 && v < len(s.sig) && knownEngines[strings.ToLower(s.name(v))]) {
		return
	}
	if v >= len(s.sig) || s.kind(v) == tkString || s.kind(v) == tkPunct {
		return
	}
	sc.hasEngine = true
	if r.engine != "" {
		vt := s.tok(v)
		sc.edits = append(sc.edits, edit{vt.start, vt.end, r.engine})
	}
}

// collateOption notes a table's COLLATE at k and maps its collation to the
// target's name for it.
func (r rewriter) collateOption(s sigToks, sc *rewriteScan, k int) {
	if sc.depth == 0 {
		sc.hasCollate = true
	}
	v := k + 1
	if s.punct(v, "=") {
		v++
	}
	if r.mapCollation != nil && v < len(s.sig) && (s.kind(v) == tkWord || s.kind(v) == tkString || s.kind(v) == tkQuoted) {
		if c := r.mapCollation(strings.Trim(s.name(v), "'\"")); c != "" {
			vt := s.tok(v)
			sc.edits = append(sc.edits, edit{vt.start, vt.end, c})
		}
	}
}

// charsetOption adds, after a charset clause at k that names no collation,
// the collation the clause meant on the source (charsetCollations).
func (r rewriter) charsetOption(s sigToks, sc *rewriteScan, k int) {
	v := k + 1
	if s.word(k, "CHARACTER") {
		v++
	}
	if s.punct(v, "=") {
		v++
	}
	coll := ""
	if v < len(s.sig) {
		coll = r.charsetCollations[strings.ToLower(strings.Trim(s.name(v), "'\""))]
	}
	// The BINARY attribute (VARCHAR(10) BINARY CHARACTER SET cp1251) names
	// the charset's _bin collation already.
	binary := s.word(k-1, "BINARY") || s.word(v+1, "BINARY")
	if coll != "" && !binary && !s.word(v+1, "COLLATE") && !(s.word(v+1, "DEFAULT") && s.word(v+2, "COLLATE")) {
		at := s.tok(v).end
		sc.edits = append(sc.edits, edit{at, at, " COLLATE " + coll})
		if sc.depth == 0 {
			sc.hasCollate = true
		}
	}
}

// addTableOptions adds the target's engine and collation after a CREATE
// TABLE's column list when the statement names none.
func (r rewriter) addTableOptions(s sigToks, sc *rewriteScan) {
	var add string
	if r.engine != "" && !sc.hasEngine {
		add += " ENGINE=" + r.engine
	}
	if r.collation != "" && !sc.hasCollate {
		add += " " + r.collation
	}
	if add != "" {
		at := s.tok(sc.closeOfColumns).end
		if at < len(s.stmt) && !unicode.IsSpace(rune(s.stmt[at])) {
			add += " " // `)ENGINE=InnoDB`: the next option must not run into it
		}
		sc.edits = append(sc.edits, edit{at, at, add})
	}
}

// applyEdits writes stmt with the edits made.
func applyEdits(stmt string, edits []edit) string {
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
