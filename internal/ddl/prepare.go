package ddl

import (
	"strings"
)

// prepared is a DDL statement rewritten so that the vitess parser (a MySQL 8
// grammar) reads MariaDB's and older MySQL's spellings, plus what the rewrite
// removed and the translation must still honour.
type prepared struct {
	sql       string
	orReplace bool // CREATE OR REPLACE TABLE
	// renameIfExists: MariaDB's RENAME TABLE IF EXISTS, which passes over
	// the pairs whose table does not exist.
	renameIfExists bool
	// ifExists and ifNotExists hold the lower-cased names of ALTER TABLE
	// clauses written with IF [NOT] EXISTS (MariaDB), which vitess rejects.
	ifExists, ifNotExists map[string]bool
	// jsonColumns holds the lower-cased names of columns declared JSON
	// (MariaDB's alias: LONGTEXT with a json_valid check).
	jsonColumns map[string]bool
}

// Type names vitess does not know, by their words, and what replaces them.
// suffix is inserted after the type's optional (length) arguments.
var typeRewrites = []struct {
	words   []string
	replace string
	suffix  string
}{
	{[]string{"double", "precision"}, "double", ""},
	{[]string{"national", "char", "varying"}, "varchar", " character set utf8mb3"},
	{[]string{"national", "character", "varying"}, "varchar", " character set utf8mb3"},
	{[]string{"national", "varchar"}, "varchar", " character set utf8mb3"},
	{[]string{"national", "character"}, "char", " character set utf8mb3"},
	{[]string{"national", "char"}, "char", " character set utf8mb3"},
	{[]string{"nchar", "varchar"}, "varchar", " character set utf8mb3"},
	{[]string{"nchar", "varying"}, "varchar", " character set utf8mb3"},
	{[]string{"nchar"}, "char", " character set utf8mb3"},
	{[]string{"nvarchar"}, "varchar", " character set utf8mb3"},
	{[]string{"character", "varying"}, "varchar", ""},
	{[]string{"char", "varying"}, "varchar", ""},
	{[]string{"character"}, "char", ""},
	{[]string{"long", "varbinary"}, "mediumblob", ""},
	{[]string{"long", "varchar"}, "mediumtext", ""},
	{[]string{"long"}, "mediumtext", ""},
	{[]string{"serial"}, "bigint", " unsigned not null auto_increment unique"},
	{[]string{"int1"}, "tinyint", ""},
	{[]string{"int2"}, "smallint", ""},
	{[]string{"int3"}, "mediumint", ""},
	{[]string{"middleint"}, "mediumint", ""},
	{[]string{"int4"}, "int", ""},
	{[]string{"int8"}, "bigint", ""},
	{[]string{"fixed"}, "decimal", ""},
	{[]string{"dec"}, "decimal", ""},
	// MariaDB's own types: parsed as a varchar whose charset names the type.
	{[]string{"uuid"}, "varchar(1)", " character set " + markerPrefix + "uuid"},
	{[]string{"inet4"}, "varchar(1)", " character set " + markerPrefix + "inet4"},
	{[]string{"inet6"}, "varchar(1)", " character set " + markerPrefix + "inet6"},
}

// markerPrefix marks a charset name that stands for a MariaDB type.
const markerPrefix = "sluice_type_"

// nonColumnWords start the items of a CREATE TABLE body (or follow ADD in
// ALTER TABLE) that are not column definitions.
var nonColumnWords = map[string]bool{
	"constraint": true, "primary": true, "unique": true, "key": true, "index": true, "fulltext": true,
	"spatial": true, "foreign": true, "check": true, "period": true, "like": true, "partition": true,
	"system": true,
}

type preparer struct {
	flavor string
	out    prepared
}

// prepare rewrites a DDL statement for the vitess parser.
func prepare(stmt, flavor string) prepared {
	p := &preparer{flavor: flavor, out: prepared{ifExists: map[string]bool{}, ifNotExists: map[string]bool{},
		jsonColumns: map[string]bool{}}}
	toks := quoteNonASCIINames(significant(lex(stmt)))
	toks = p.statementPrefix(toks)
	toks = p.ifExistsClauses(toks)
	switch {
	case len(toks) > 2 && toks[0].is("create") && (toks[1].is("table") || (toks[1].is("temporary") && toks[2].is("table"))):
		toks = p.createTableBody(toks)
	case len(toks) > 2 && toks[0].is("alter") && toks[1].is("table"):
		toks = p.alterItems(toks)
	}
	toks = dropIndexUsingBeforeParen(toks)
	p.out.sql = joinSpaced(toks)
	return p.out
}

// quoteNonASCIINames backquotes unquoted names with non-ASCII letters
// (CREATE TABLE tëst): MySQL reads them as names, vitess's lexer does not.
func quoteNonASCIINames(toks []token) []token {
	for i, t := range toks {
		if t.kind == tWord && strings.IndexFunc(t.text, func(r rune) bool { return r >= 0x80 }) >= 0 {
			toks[i].kind = tQuoted
			toks[i].text = "`" + t.text + "`"
		}
	}
	return toks
}

// significant drops spaces and ordinary comments; executable comments
// (/*! ... */) are kept as opaque tokens.
func significant(toks []token) []token {
	out := make([]token, 0, len(toks))
	glued := false
	for _, t := range toks {
		if t.kind == tSpace || (t.kind == tComment && !strings.HasPrefix(t.text, "/*!")) {
			glued = false
			continue
		}
		t.glued = glued && len(out) > 0
		out = append(out, t)
		glued = true
	}
	return out
}

// joinSpaced joins tokens with one space, except where they were glued in the source.
func joinSpaced(toks []token) string {
	var b strings.Builder
	for i, t := range toks {
		if i > 0 && !t.glued {
			b.WriteByte(' ')
		}
		b.WriteString(t.text)
	}
	return b.String()
}

// statementPrefix removes CREATE OR REPLACE (recorded), ALTER ONLINE/IGNORE
// and MariaDB's WAIT n / NOWAIT.
func (p *preparer) statementPrefix(toks []token) []token {
	if len(toks) > 3 && toks[0].is("create") && toks[1].is("or") && toks[2].is("replace") {
		p.out.orReplace = true
		toks = append([]token{toks[0]}, toks[3:]...)
	}
	if len(toks) > 2 && toks[0].is("alter") && (toks[1].is("online") || toks[1].is("ignore")) {
		toks = append([]token{toks[0]}, toks[2:]...)
	}
	if len(toks) > 2 && toks[0].is("rename") && (toks[1].is("table") || toks[1].is("tables")) {
		toks = append([]token{toks[0], tk(tWord, "table")}, toks[2:]...) // vitess knows RENAME TABLE only
		if len(toks) > 4 && toks[2].is("if") && toks[3].is("exists") {
			p.out.renameIfExists = true
			toks = append(toks[:2:2], toks[4:]...)
		}
	}
	out := toks[:0:0]
	for i := 0; i < len(toks); i++ {
		if toks[i].is("nowait") {
			continue
		}
		if toks[i].is("wait") && i+1 < len(toks) && toks[i+1].kind == tWord && isDigits(toks[i+1].text) {
			i++
			continue
		}
		out = append(out, toks[i])
	}
	return out
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// ifExistsClauses removes IF [NOT] EXISTS outside parentheses, except after
// TABLE/DATABASE/SCHEMA where vitess reads it, and records the name that follows.
func (p *preparer) ifExistsClauses(toks []token) []token {
	out := make([]token, 0, len(toks))
	depth := 0
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.isPunct("("):
			depth++
		case t.isPunct(")"):
			depth--
		}
		if depth != 0 || !t.is("if") || len(out) == 0 {
			out = append(out, t)
			continue
		}
		prev := out[len(out)-1]
		if prev.is("table") || prev.is("database") || prev.is("schema") || prev.is("tables") {
			out = append(out, t)
			continue
		}
		set, n := p.out.ifExists, 2
		if i+2 < len(toks) && toks[i+1].is("not") && toks[i+2].is("exists") {
			set, n = p.out.ifNotExists, 3
		} else if !(i+1 < len(toks) && toks[i+1].is("exists")) {
			out = append(out, t)
			continue
		}
		if i+n < len(toks) && toks[i+n].isName() {
			set[strings.ToLower(toks[i+n].name())] = true
		}
		i += n - 1
	}
	return out
}

// createTableBody rewrites the column definitions of CREATE TABLE (...).
func (p *preparer) createTableBody(toks []token) []token {
	open := -1
	for i, t := range toks {
		if t.isPunct("(") {
			open = i
			break
		}
		if t.is("like") || t.is("select") || t.is("as") {
			return toks
		}
	}
	if open < 0 {
		return toks
	}
	closeIdx := matchParen(toks, open)
	if closeIdx < 0 {
		return toks
	}
	items := splitItems(toks[open+1 : closeIdx])
	var body, keys, extra [][]token
	for _, it := range items {
		if isColumnItem(it) {
			col, checks := p.columnDef(it)
			body = append(body, col)
			extra = append(extra, checks...)
		} else {
			// MySQL accepts keys and constraints before the columns; vitess
			// reads them only after, where their order is the same.
			keys = append(keys, it)
		}
	}
	body = append(body, keys...)
	body = append(body, extra...)
	out := append([]token{}, toks[:open+1]...)
	out = append(out, joinItems(body)...)
	return append(out, dropTableOptions(toks[closeIdx:])...)
}

// ignoredTableOptions are MariaDB table options vitess does not read and
// that do not matter for PostgreSQL.
var ignoredTableOptions = map[string]bool{
	"page_checksum": true, "transactional": true, "page_compressed": true, "page_compression_level": true,
	"encrypted": true, "encryption_key_id": true, "ietf_quotes": true, "sequence": false,
}

// dropTableOptions removes ignoredTableOptions (name [=] value) from the
// tokens after a table body.
func dropTableOptions(toks []token) []token {
	out := make([]token, 0, len(toks))
	for i := 0; i < len(toks); i++ {
		if toks[i].is("char") && i+1 < len(toks) && toks[i+1].is("set") {
			out = append(out, tk(tWord, "character")) // [DEFAULT] CHAR SET [=] x
			continue
		}
		if j := defaultCharsetOption(toks, i); j > i {
			// [DEFAULT] CHARACTER SET|CHARSET|COLLATE [=] DEFAULT: the
			// database's, which a table without the option inherits too.
			if len(out) > 0 && out[len(out)-1].is("default") {
				out = out[:len(out)-1]
			}
			i = j
			continue
		}
		if toks[i].isName() && ignoredTableOptions[strings.ToLower(toks[i].name())] {
			j := i + 1
			if j < len(toks) && toks[j].isPunct("=") {
				j++
			}
			if j < len(toks) {
				i = j // skip the value too
				continue
			}
		}
		out = append(out, toks[i])
	}
	return out
}

// defaultCharsetOption returns the index of the last token of a
// CHARACTER SET, CHARSET or COLLATE table option starting at i whose value is
// DEFAULT, or i when there is none.
func defaultCharsetOption(toks []token, i int) int {
	j := i
	switch {
	case toks[j].is("character") || toks[j].is("char"):
		if j+1 >= len(toks) || !toks[j+1].is("set") {
			return i
		}
		j += 2
	case toks[j].is("charset") || toks[j].is("collate"):
		j++
	default:
		return i
	}
	if j < len(toks) && toks[j].isPunct("=") {
		j++
	}
	if j < len(toks) && toks[j].is("default") {
		return j
	}
	return i
}

// alterItems rewrites the column definitions of ADD/MODIFY/CHANGE clauses.
func (p *preparer) alterItems(toks []token) []token {
	// ALTER TABLE name <items>
	start := 3
	if len(toks) > 4 && toks[3].isPunct(".") {
		start = 5
	}
	if start > len(toks) {
		return toks
	}
	items := splitItems(toks[start:])
	var outItems [][]token
	for i, it := range items {
		if len(it) > 1 && it[0].is("order") && it[1].is("by") {
			// ORDER BY (the last clause: its column list takes the commas
			// after it) orders the source's rows once; nothing for the target.
			items = items[:i]
			break
		}
	}
	for _, it := range items {
		rewritten, extra := p.alterItem(it)
		outItems = append(outItems, rewritten)
		for _, ck := range extra {
			outItems = append(outItems, append([]token{tk(tWord, "add")}, ck...))
		}
	}
	return append(append([]token{}, toks[:start]...), joinItems(outItems)...)
}

func (p *preparer) alterItem(it []token) ([]token, [][]token) {
	if len(it) < 2 {
		return it, nil
	}
	head := 1 // tokens before the column definition
	switch {
	case it[0].is("add"):
		if it[1].is("column") {
			head = 2
		}
		if head < len(it) && it[head].isPunct("(") {
			return p.parenColumns(it, head)
		}
		if head >= len(it) || (it[head].kind == tWord && nonColumnWords[strings.ToLower(it[head].text)]) {
			return it, nil
		}
	case it[0].is("modify"):
		if it[1].is("column") {
			head = 2
		}
	case it[0].is("change"):
		head = 2
		if it[1].is("column") {
			head = 3
		}
	default:
		return it, nil
	}
	if head >= len(it) {
		return it, nil
	}
	col, checks := p.columnDef(it[head:])
	return append(append([]token{}, it[:head]...), col...), checks
}

// parenColumns handles ADD [COLUMN] (def, def, ...).
func (p *preparer) parenColumns(it []token, open int) ([]token, [][]token) {
	closeIdx := matchParen(it, open)
	if closeIdx < 0 {
		return it, nil
	}
	var defs, extra [][]token
	for _, d := range splitItems(it[open+1 : closeIdx]) {
		col, checks := p.columnDef(d)
		defs = append(defs, col)
		extra = append(extra, checks...)
	}
	out := append([]token{}, it[:open+1]...)
	out = append(out, joinItems(defs)...)
	return append(out, it[closeIdx:]...), extra
}

func isColumnItem(it []token) bool {
	if len(it) < 2 || !it[0].isName() {
		return false
	}
	return it[0].kind == tQuoted || !nonColumnWords[strings.ToLower(it[0].text)]
}

// splitItems splits at commas outside parentheses.
func splitItems(toks []token) [][]token {
	var items [][]token
	depth, start := 0, 0
	for i, t := range toks {
		switch {
		case t.isPunct("("):
			depth++
		case t.isPunct(")"):
			depth--
		case t.isPunct(",") && depth == 0:
			items = append(items, toks[start:i])
			start = i + 1
		}
	}
	return append(items, toks[start:])
}

func joinItems(items [][]token) []token {
	var out []token
	for i, it := range items {
		if i > 0 {
			out = append(out, tk(tPunct, ","))
		}
		out = append(out, it...)
	}
	return out
}

func matchParen(toks []token, open int) int {
	depth := 0
	for i := open; i < len(toks); i++ {
		switch {
		case toks[i].isPunct("("):
			depth++
		case toks[i].isPunct(")"):
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// dropIndexUsingBeforeParen removes "USING BTREE|HASH" written before an
// index's column list (ADD PRIMARY KEY USING BTREE (a)), which vitess only
// reads after it; the index type does not matter for PostgreSQL.
func dropIndexUsingBeforeParen(toks []token) []token {
	out := make([]token, 0, len(toks))
	for i := 0; i < len(toks); i++ {
		if toks[i].is("using") && i+2 < len(toks) && (toks[i+1].is("btree") || toks[i+1].is("hash")) &&
			toks[i+2].isPunct("(") {
			i++
			continue
		}
		out = append(out, toks[i])
	}
	return out
}
