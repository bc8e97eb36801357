package schema

import (
	"fmt"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"
)

// QuoteLiteral quotes a string value the way MariaDB's information_schema
// shows string defaults: single quotes doubled, and backslash, NUL, newline
// and carriage return escaped with a backslash.
func QuoteLiteral(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'':
			b.WriteString("''")
		case '\\':
			b.WriteString(`\\`)
		case 0:
			b.WriteString(`\0`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// IsQuotedLiteral reports whether s is one single-quoted MySQL string literal.
func IsQuotedLiteral(s string) bool {
	if len(s) < 2 || s[0] != '\'' || s[len(s)-1] != '\'' {
		return false
	}
	_, err := UnquoteLiteral(s)
	return err == nil
}

// UnquoteLiteral returns the value of one single-quoted MySQL string literal
// with MySQL's escapes (” and \0 \' \" \b \n \r \t \Z \\; \% and \_ keep
// their backslash, as MySQL does outside LIKE patterns).
func UnquoteLiteral(lit string) (string, error) {
	if len(lit) < 2 || lit[0] != '\'' || lit[len(lit)-1] != '\'' {
		return "", fmt.Errorf("not a quoted string literal: %s", lit)
	}
	body := lit[1 : len(lit)-1]
	var b strings.Builder
	b.Grow(len(body))
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == '\'':
			if i+1 >= len(body) || body[i+1] != '\'' {
				return "", fmt.Errorf("unescaped quote inside literal %s", lit)
			}
			b.WriteByte('\'')
			i++
		case c == '\\' && i+1 < len(body):
			i++
			b.WriteString(unescape(body[i]))
		case c == '\\':
			return "", fmt.Errorf("literal %s ends in a backslash", lit)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

func unescape(c byte) string {
	switch c {
	case '0':
		return "\x00"
	case 'b':
		return "\b"
	case 'n':
		return "\n"
	case 'r':
		return "\r"
	case 't':
		return "\t"
	case 'Z':
		return "\x1a"
	case '%', '_':
		return `\` + string(c)
	}
	return string(c)
}

// exprParser parses expressions; vitess parsers are safe for concurrent use.
var exprParser = sqlparser.NewTestParser()

// ParseExpr parses one MySQL expression with the vitess parser.
func ParseExpr(s string) (sqlparser.Expr, error) {
	return exprParser.ParseExpr(s)
}

// CanonicalExpr formats a MySQL expression (a default, generation expression
// or CHECK clause) in one canonical spelling, so that the information_schema
// loader and the DDL parser store the same text for the same definition:
// formatted by the vitess parser, identifiers quoted only when needed,
// charset introducers (_utf8mb4'x', which MySQL 8 adds) removed, and
// now()/localtimestamp/CURRENT_TIMESTAMP written current_timestamp(n),
// function names in lower case.
// Text the parser cannot read is returned trimmed but otherwise unchanged.
func CanonicalExpr(s string) string {
	s = strings.TrimSpace(s)
	e, err := ParseExpr(s)
	if err != nil {
		return s
	}
	return FormatExpr(e)
}

// unescapeISExpr undoes the extra level of backslash escaping MySQL 8.0+
// puts on expressions in information_schema.COLUMNS (GENERATION_EXPRESSION
// and expression defaults): concat(_utf8mb4\'a\',x) stands for
// concat(_utf8mb4'a',x). Text that parses as it is (MariaDB's, or MySQL's
// without string literals) is returned unchanged, as is text that parses in
// neither form.
func unescapeISExpr(s string) string {
	if !strings.Contains(s, `\'`) {
		return s
	}
	if _, err := ParseExpr(s); err == nil {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '\'' || s[i+1] == '\\') {
			i++
		}
		b.WriteByte(s[i])
	}
	if _, err := ParseExpr(b.String()); err != nil {
		return s
	}
	return b.String()
}

// FormatExpr is CanonicalExpr for an already parsed expression.
func FormatExpr(e sqlparser.Expr) string {
	e = sqlparser.Rewrite(sqlparser.Clone(e), nil, func(c *sqlparser.Cursor) bool {
		switch n := c.Node().(type) {
		case *sqlparser.IntroducerExpr:
			c.Replace(n.Expr)
		case *sqlparser.FuncExpr:
			n.Name = sqlparser.NewIdentifierCI(n.Name.Lowered()) // MariaDB prints function names in lower case
		case *sqlparser.CurTimeFuncExpr:
			if isCurrentTimestamp(n.Name.Lowered()) {
				c.Replace(&sqlparser.CurTimeFuncExpr{Name: sqlparser.NewIdentifierCI("current_timestamp"), Fsp: n.Fsp})
			}
		}
		return true
	}).(sqlparser.Expr)
	return sqlparser.String(e)
}

func isCurrentTimestamp(fn string) bool {
	switch fn {
	case "current_timestamp", "now", "localtime", "localtimestamp":
		return true
	}
	return false
}

// IsCurrentTimestamp reports whether a canonical default is
// current_timestamp() or current_timestamp(n), and returns n.
func IsCurrentTimestamp(def string) (fsp int, ok bool) {
	if def == "current_timestamp()" {
		return 0, true
	}
	var n int
	if _, err := fmt.Sscanf(def, "current_timestamp(%d)", &n); err == nil && def == fmt.Sprintf("current_timestamp(%d)", n) {
		return n, true
	}
	return 0, false
}
