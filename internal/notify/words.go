package notify

import (
	"errors"
	"strings"
)

// splitWords splits a hook's COMMAND the way a POSIX shell splits a word
// list, without running a shell: blanks separate words, 'single quotes'
// keep everything, "double quotes" keep everything but \" and \\, and a
// backslash outside quotes escapes the next character. No variables, globs
// or pipes: a hook that wants them says /bin/sh -c '…'.
func splitWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words, inWord = append(words, w.String()), false
				w.Reset()
			}
			continue
		case c == '\\' && i+1 < len(s):
			i++
			w.WriteByte(s[i])
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, errors.New("unterminated ' quote")
			}
			w.WriteString(s[i+1 : i+1+end])
			i += end + 1
		case c == '"':
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' && j+1 < len(s) && (s[j+1] == '"' || s[j+1] == '\\') {
					j++
				}
				w.WriteByte(s[j])
			}
			if j >= len(s) {
				return nil, errors.New(`unterminated " quote`)
			}
			i = j
		default:
			w.WriteByte(c)
		}
		inWord = true
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}
