package ddl

import "strings"

// columnDef rewrites one column definition (name, type, attributes) and
// returns the column-level CHECK constraints it held, as table-level
// "CONSTRAINT name CHECK (...)" items (vitess reads only those). MariaDB names
// a column-level check after its column.
func (p *preparer) columnDef(it []token) ([]token, [][]token) {
	if len(it) < 2 {
		return it, nil
	}
	colName := it[0]
	typ, rest, isJSON := p.columnType(it[1:])
	out := append([]token{colName}, typ...)
	var checks [][]token
	if isJSON {
		p.out.jsonColumns[strings.ToLower(colName.name())] = true
		checks = append(checks, p.checkItem(colName, nil, []token{tk(tPunct, "("), tk(tWord, "json_valid"),
			tk(tPunct, "("), unglued(colName), tk(tPunct, ")"), tk(tPunct, ")")}))
	}
	for i := 0; i < len(rest); i++ {
		t := rest[i]
		switch {
		case t.is("persistent"):
			out = append(out, tk(tWord, "stored"))
		case t.is("serial") && i+2 < len(rest) && rest[i+1].is("default") && rest[i+2].is("value"):
			// SERIAL DEFAULT VALUE is MariaDB's and MySQL's alias of these.
			out = append(out, tk(tWord, "not"), tk(tWord, "null"), tk(tWord, "auto_increment"),
				tk(tWord, "unique"), tk(tWord, "key"))
			i += 2
		case t.is("char") && i+1 < len(rest) && rest[i+1].is("set"):
			out = append(out, tk(tWord, "character"))
		case t.is("binary") && i+1 < len(rest) && charsetAt(rest[i+1:]) > 0:
			// BINARY with a charset means the charset's _bin collation
			// (SHOW CREATE TABLE prints it so); vitess reads only that form.
			n := charsetAt(rest[i+1:])
			cs := rest[i+n]
			out = append(out, tk(tWord, "character"), tk(tWord, "set"), unglued(cs),
				tk(tWord, "collate"), tk(tWord, strings.ToLower(cs.name())+"_bin"))
			i += n
		case t.is("storage") && i+1 < len(rest) && (rest[i+1].is("disk") || rest[i+1].is("memory") || rest[i+1].is("default")):
			// MySQL's NDB storage attribute: InnoDB ignores it, so does sluice.
			i++
		case t.is("ref_system_id") && i+2 < len(rest) && rest[i+1].isPunct("="):
			// MariaDB's spatial reference of a geometry column. Values
			// carry their own SRID on both paths (docs/types.md), so the
			// column attribute changes nothing sluice writes.
			i += 2
		case t.is("default") && i+2 < len(rest) && rest[i+1].kind == tWord && rest[i+2].isPunct("(") &&
			!isTimestampFunc(rest[i+1].text):
			// MariaDB writes expression defaults without parentheses: DEFAULT uuid().
			end := matchParen(rest, i+2)
			if end < 0 {
				out = append(out, t)
				continue
			}
			out = append(out, t, tk(tPunct, "("))
			out = append(out, rest[i+1:end+1]...)
			out = append(out, tk(tPunct, ")"))
			i = end
		case (t.is("constraint") && i+2 < len(rest) && rest[i+2].is("check")) || t.is("check"):
			var name *token
			if t.is("constraint") {
				name = &rest[i+1]
				i += 2
			}
			if i+1 >= len(rest) || !rest[i+1].isPunct("(") {
				out = append(out, t)
				continue
			}
			end := matchParen(rest, i+1)
			if end < 0 {
				out = append(out, t)
				continue
			}
			checks = append(checks, p.checkItem(colName, name, rest[i+1:end+1]))
			i = end
			// a trailing [NOT] ENFORCED belongs to the check
			if i+1 < len(rest) && rest[i+1].is("enforced") {
				i++
			} else if i+2 < len(rest) && rest[i+1].is("not") && rest[i+2].is("enforced") {
				checks[len(checks)-1] = append(checks[len(checks)-1], rest[i+1], rest[i+2])
				i += 2
			}
		default:
			out = append(out, t)
		}
	}
	return out, checks
}

// checkItem builds "CONSTRAINT name CHECK (expr)": an explicit name, else
// (MariaDB) the column's name; MySQL 8 generates a name, so none is given.
func (p *preparer) checkItem(col token, name *token, expr []token) []token {
	var out []token
	switch {
	case name != nil:
		out = append(out, tk(tWord, "constraint"), unglued(*name))
	case p.flavor != "mysql":
		out = append(out, tk(tWord, "constraint"), unglued(col))
	}
	out = append(out, tk(tWord, "check"))
	return append(out, expr...)
}

func isTimestampFunc(w string) bool {
	switch strings.ToLower(w) {
	case "current_timestamp", "now", "localtime", "localtimestamp":
		return true
	}
	return false
}

// columnType rewrites the type at the start of toks and returns it, the
// attribute tokens after it, and whether it is MariaDB's JSON alias.
func (p *preparer) columnType(toks []token) (typ, rest []token, isJSON bool) {
	n := typeLen(toks)
	typ, rest = toks[:n], toks[n:]
	if len(typ) == 0 {
		return typ, rest, false
	}
	if typ[0].is("json") && p.flavor != "mysql" {
		return []token{tk(tWord, "longtext"), tk(tWord, "character"), tk(tWord, "set"), tk(tWord, "utf8mb4"),
			tk(tWord, "collate"), tk(tWord, "utf8mb4_bin")}, rest, true
	}
	for _, r := range typeRewrites {
		if len(typ) < len(r.words) || !wordsMatch(typ, r.words) {
			continue
		}
		after := typ[len(r.words):]
		out := []token{tk(tWord, r.replace)}
		args := 0
		if len(after) > 0 && after[0].isPunct("(") {
			if end := matchParen(after, 0); end >= 0 {
				args = end + 1
			}
		}
		out = append(out, after[:args]...)
		if r.suffix != "" {
			out = append(out, tk(tWord, strings.TrimSpace(r.suffix)))
		}
		out = append(out, after[args:]...)
		return out, rest, false
	}
	return typ, rest, false
}

func wordsMatch(toks []token, words []string) bool {
	for i, w := range words {
		if !toks[i].is(w) {
			return false
		}
	}
	return true
}

// typeLen returns how many tokens form the type: its words (several for
// the multi-word names in typeRewrites) and their parenthesised arguments.
func typeLen(toks []token) int {
	if len(toks) == 0 || toks[0].kind != tWord {
		return 0
	}
	i := 1
	for i < len(toks) && toks[i].kind == tWord && extendsTypeName(toks[:i+1]) {
		i++
	}
	if i < len(toks) && toks[i].isPunct("(") {
		end := matchParen(toks, i)
		if end < 0 {
			return len(toks)
		}
		i = end + 1
	}
	return i
}

// extendsTypeName reports whether toks is the start of a multi-word type name.
func extendsTypeName(toks []token) bool {
	for _, r := range typeRewrites {
		if len(r.words) >= len(toks) && wordsMatch(toks, r.words[:len(toks)]) {
			return true
		}
	}
	return false
}

// charsetAt returns how many tokens "CHARACTER SET x", "CHAR SET x" or
// "CHARSET x" at the start of toks take (0 when none is there).
func charsetAt(toks []token) int {
	switch {
	case len(toks) >= 3 && (toks[0].is("character") || toks[0].is("char")) && toks[1].is("set") && toks[2].isName():
		return 3
	case len(toks) >= 2 && toks[0].is("charset") && toks[1].isName():
		return 2
	}
	return 0
}
