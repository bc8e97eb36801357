package rowpolicy

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// collation is how two strings of a column compare. Only what can be
// computed exactly is supported: binary order (the _bin collations), and
// case-insensitive collations for the characters whose weights are known
// here (general_ci: ASCII and Latin-1; the UCA collations: printable ASCII,
// equality and LIKE only, as their order of punctuation is not ASCII's).
// Anything else is refused when the condition is compiled, or, for a value
// outside the known characters, when it is evaluated (the stream stops:
// never a guess).
type collation struct {
	name    string
	fold    bool // case-insensitive
	general bool // general_ci weights (ASCII and Latin-1 known)
	pad     bool // PAD SPACE: trailing spaces do not count in = and <
	ordered bool // < > BETWEEN are exact
}

func collationOf(name string) (*collation, error) {
	n := strings.ToLower(name)
	cs, rest, _ := strings.Cut(n, "_")
	switch cs {
	case "utf8mb4", "utf8mb3", "utf8", "ascii":
	default:
		return nil, fmt.Errorf("collation %s: only utf8mb4/utf8mb3/ascii text is supported in --where", name)
	}
	switch rest {
	case "bin":
		return &collation{name: n, pad: true, ordered: true}, nil
	case "0900_bin":
		return &collation{name: n, ordered: true}, nil
	case "general_ci":
		return &collation{name: n, fold: true, general: true, pad: true, ordered: true}, nil
	case "unicode_ci", "unicode_520_ci", "uca1400_ai_ci":
		return &collation{name: n, fold: true, pad: true}, nil
	case "0900_ai_ci", "uca1400_nopad_ai_ci":
		return &collation{name: n, fold: true}, nil
	}
	return nil, fmt.Errorf("collation %s is not supported in --where (supported: *_bin, *_0900_bin, *_general_ci; *_unicode_ci, *_unicode_520_ci, *_0900_ai_ci, *_uca1400_ai_ci for = <> IN LIKE)", name)
}

// latin1Weights is general_ci's weight for U+00C0..U+00FF (MySQL's
// plane00 table): accents and case fold to the base letter.
var latin1Weights = []rune("AAAAAA\u00c6CEEEEIIII\u00d0NOOOOO\u00d7\u00d8UUUUY\u00deSAAAAAA\u00c6CEEEEIIII\u00d0NOOOOO\u00f7\u00d8UUUUY\u00deY")

// weight is one character's weight, or false when it is not known here.
func (c *collation) weight(r rune) (rune, bool) {
	if !c.fold {
		return r, true
	}
	switch {
	case r >= 'a' && r <= 'z':
		return r - 32, true
	case r < 0x80 && c.general:
		return r, true
	case r >= 0x20 && r < 0x7f:
		return r, true
	case c.general && r >= 0xc0 && r <= 0xff:
		return latin1Weights[r-0xc0], true
	}
	return 0, false
}

// compare orders a and b by their sequences of weights (trailing spaces
// dropped under PAD SPACE), walking both in place: a comparison allocates
// nothing. Weights are compared as code points, which is the byte order of
// their UTF-8 text. Any character without a known weight, in either value,
// is an error, wherever it stands.
func (c *collation) compare(a, b string) (int, error) {
	if c.pad {
		a, b = strings.TrimRight(a, " "), strings.TrimRight(b, " ")
	}
	if !c.fold {
		return strings.Compare(a, b), nil
	}
	if err := c.known(a); err != nil {
		return 0, err
	}
	if err := c.known(b); err != nil {
		return 0, err
	}
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		wa, _ := c.weight(ra)
		wb, _ := c.weight(rb)
		if wa != wb {
			if wa < wb {
				return -1, nil
			}
			return 1, nil
		}
		a, b = a[na:], b[nb:]
	}
	switch {
	case a != "":
		return 1, nil
	case b != "":
		return -1, nil
	}
	return 0, nil
}

// known checks that every character of s has a weight here.
func (c *collation) known(s string) error {
	for _, r := range s {
		if _, ok := c.weight(r); !ok || r == utf8.RuneError {
			// The character itself stays out of the message: the value may be one a mask hides.
			return fmt.Errorf("collation %s: a value holds a character whose weight --where's evaluator does not know (refusing to guess)", c.name)
		}
	}
	return nil
}

// like is MySQL's LIKE: % any run, _ one character, esc escapes, compared
// character by character under the collation, without padding.
func (c *collation) like(s, pat string, esc rune) (bool, error) {
	sr, pr := []rune(s), []rune(pat)
	eq := func(a, b rune) (bool, error) {
		if c == nil || !c.fold {
			return a == b, nil
		}
		wa, ok1 := c.weight(a)
		wb, ok2 := c.weight(b)
		if !ok1 || !ok2 {
			return false, fmt.Errorf("collation %s: LIKE on a value holding a character whose weight --where's evaluator does not know (refusing to guess)", c.name)
		}
		return wa == wb, nil
	}
	return likeMatch(sr, pr, esc, eq)
}

func likeMatch(s, p []rune, esc rune, eq func(a, b rune) (bool, error)) (bool, error) {
	for len(p) > 0 {
		switch {
		case p[0] == '%':
			for len(p) > 0 && p[0] == '%' {
				p = p[1:]
			}
			if len(p) == 0 {
				return true, nil
			}
			for i := 0; i <= len(s); i++ {
				ok, err := likeMatch(s[i:], p, esc, eq)
				if err != nil || ok {
					return ok, err
				}
			}
			return false, nil
		case p[0] == '_':
			if len(s) == 0 {
				return false, nil
			}
			s, p = s[1:], p[1:]
		default:
			if p[0] == esc && len(p) > 1 {
				p = p[1:]
			}
			if len(s) == 0 {
				return false, nil
			}
			ok, err := eq(s[0], p[0])
			if err != nil || !ok {
				return false, err
			}
			s, p = s[1:], p[1:]
		}
	}
	return len(s) == 0, nil
}
