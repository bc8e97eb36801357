package ddl

import (
	"strings"
)

// tokKind classifies the tokens of the small lexer the pre-processor uses.
type tokKind int

const (
	tSpace   tokKind = iota
	tComment         // /* */, -- and # comments (executable /*! */ comments too: kept opaque)
	tString          // '...' or "..."
	tQuoted          // `...`
	tWord            // keywords, names, numbers
	tPunct           // one character: ( ) , ; = . and others
)

type token struct {
	kind tokKind
	text string
	// glued is true when the token directly follows the previous one in the
	// source (no space or comment between): joining keeps "1.5" and "b'01'" whole.
	glued bool
}

// lex splits MySQL SQL text into tokens; joining their text gives the input back.
func lex(s string) []token {
	var out []token
	for i := 0; i < len(s); {
		c := s[i]
		j := i + 1
		kind := tPunct
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			kind = tSpace
			for j < len(s) && strings.IndexByte(" \t\n\r", s[j]) >= 0 {
				j++
			}
		case c == '/' && j < len(s) && s[j] == '*':
			kind = tComment
			if k := strings.Index(s[i+2:], "*/"); k >= 0 {
				j = i + 2 + k + 2
			} else {
				j = len(s)
			}
		case c == '#' || (c == '-' && strings.HasPrefix(s[i:], "-- ")):
			kind = tComment
			for j < len(s) && s[j] != '\n' {
				j++
			}
		case c == '\'' || c == '"' || c == '`':
			kind = tString
			if c == '`' {
				kind = tQuoted
			}
			j = endOfQuoted(s, i)
		case c >= '0' && c <= '9':
			kind = tWord
			j = endOfNumber(s, i)
		case isWordByte(c):
			kind = tWord
			for j < len(s) && isWordByte(s[j]) {
				j++
			}
			// b'0101', x'4a', N'text', _utf8mb4'text': one literal token
			if j < len(s) && s[j] == '\'' && isLiteralPrefix(s[i:j]) {
				kind = tString
				j = endOfQuoted(s, j)
			}
		}
		out = append(out, token{kind: kind, text: s[i:j]})
		i = j
	}
	return out
}

func endOfQuoted(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch {
		case s[j] == '\\' && q != '`':
			j++
		case s[j] == q && j+1 < len(s) && s[j+1] == q:
			j++
		case s[j] == q:
			return j + 1
		}
	}
	return len(s)
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// is reports whether t is the word w (case-insensitive).
func (t token) is(w string) bool { return t.kind == tWord && strings.EqualFold(t.text, w) }

func (t token) isPunct(p string) bool { return t.kind == tPunct && t.text == p }

// name returns the identifier a word or backquoted token names.
func (t token) name() string {
	if t.kind == tQuoted {
		return strings.ReplaceAll(t.text[1:len(t.text)-1], "``", "`")
	}
	return t.text
}

func (t token) isName() bool { return t.kind == tWord || t.kind == tQuoted }

// sig returns the indexes of the significant tokens (not space or comment).
func sig(toks []token) []int {
	var out []int
	for i, t := range toks {
		if t.kind != tSpace && t.kind != tComment {
			out = append(out, i)
		}
	}
	return out
}

func join(toks []token) string {
	var b strings.Builder
	for _, t := range toks {
		b.WriteString(t.text)
	}
	return b.String()
}

// tk makes a token inserted by the pre-processor.
func tk(kind tokKind, text string) token { return token{kind: kind, text: text} }

// endOfNumber returns the end of a number (1, 1.5, 1e-5, 0x1f, 0b01) or of
// a name that starts with a digit.
func endOfNumber(s string, i int) int {
	j := i
	for j < len(s) {
		c := s[j]
		switch {
		case isWordByte(c) || c == '.':
			j++
		case (c == '-' || c == '+') && (s[j-1] == 'e' || s[j-1] == 'E') && j+1 < len(s) && s[j+1] >= '0' && s[j+1] <= '9' &&
			!strings.ContainsAny(s[i:j], "xXbB"):
			j++
		default:
			return j
		}
	}
	return j
}

func isLiteralPrefix(w string) bool {
	switch strings.ToLower(w) {
	case "b", "x", "n":
		return true
	}
	return strings.HasPrefix(w, "_")
}

func unglued(t token) token { t.glued = false; return t }
