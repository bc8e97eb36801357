package rowpolicy

import (
	"crypto/sha256"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sluice-db/sluice/internal/schema"
)

// Mask kinds.
const (
	MaskHash     = "hash"
	MaskNull     = "null"
	MaskConst    = "const"
	MaskKeepLast = "keep-last"
	MaskEmail    = "email"
)

// MaskSpec is one --mask db.t.c=kind[:arg]; Table may be the pattern *.
type MaskSpec struct {
	Database, Table, Column string
	Kind, Arg               string
}

func (m MaskSpec) String() string {
	s := m.Database + "." + m.Table + "." + m.Column + "=" + m.Kind
	if m.Kind == MaskConst || m.Kind == MaskKeepLast {
		s += ":" + m.Arg
	}
	return s
}

// matches reports whether the spec applies to column col of table id.
func (m MaskSpec) matches(id schema.TableID, col string) bool {
	return strings.EqualFold(m.Database, id.Database) && (m.Table == "*" || strings.EqualFold(m.Table, id.Name)) &&
		strings.EqualFold(m.Column, col)
}

// ParseMask reads one --mask value.
func ParseMask(s string) (MaskSpec, error) {
	target, kind, ok := strings.Cut(s, "=")
	parts := strings.Split(target, ".")
	if !ok || len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" || strings.Contains(parts[0]+parts[2], "*") {
		return MaskSpec{}, fmt.Errorf("--mask %q: want db.table.column=KIND or db.*.column=KIND (KIND: hash, null, const:<value>, keep-last:<n>, email)", s)
	}
	m := MaskSpec{Database: parts[0], Table: parts[1], Column: parts[2]}
	m.Kind, m.Arg, _ = strings.Cut(kind, ":")
	switch m.Kind {
	case MaskHash, MaskNull, MaskEmail:
		if m.Arg != "" {
			return MaskSpec{}, fmt.Errorf("--mask %q: %s takes no argument", s, m.Kind)
		}
	case MaskConst:
		if !strings.Contains(kind, ":") {
			return MaskSpec{}, fmt.Errorf("--mask %q: const needs its value, e.g. const:redacted", s)
		}
	case MaskKeepLast:
		if n, err := strconv.Atoi(m.Arg); err != nil || n < 0 {
			return MaskSpec{}, fmt.Errorf("--mask %q: keep-last needs a count, e.g. keep-last:4", s)
		}
	default:
		return MaskSpec{}, fmt.Errorf("--mask %q: unknown mask %q (hash, null, const:<value>, keep-last:<n>, email)", s, m.Kind)
	}
	return m, nil
}

// columnMask is a mask resolved for one column of one table version.
type columnMask struct {
	spec  MaskSpec
	index int
	apply func(v any) any
}

// textual: the column holds text the masks may rewrite character-wise.
func textual(c *schema.Column) bool {
	switch strings.ToLower(c.DataType) {
	case "char", "varchar", "tinytext", "text", "mediumtext", "longtext":
		return c.Charset != "binary" && !c.IsJSON
	}
	return false
}

func utf8Text(c *schema.Column) bool {
	switch strings.ToLower(c.Charset) {
	case "utf8mb4", "utf8mb3", "utf8", "ascii":
		return textual(c)
	}
	return false
}

func binaryCol(c *schema.Column) bool {
	switch strings.ToLower(c.DataType) {
	case "varbinary", "tinyblob", "blob", "mediumblob", "longblob":
		return true
	}
	return false
}

// resolveMask checks that the mask's output fits column c (and keeps a key
// unique) and returns the function rewriting one value.
func resolveMask(m MaskSpec, t *schema.Table, c *schema.Column, h *keyedHash, inKey bool) (func(any) any, error) {
	where := fmt.Sprintf("--mask %s on %s.%s (%s)", m, t.TableID, c.Name, c.ColumnType)
	fits := func(n int) bool { return c.CharMaxLength <= 0 || int64(n) <= c.CharMaxLength }
	switch m.Kind {
	case MaskNull:
		if inKey {
			return nil, fmt.Errorf("%s: the column is part of a unique key, and NULL in every row would break it; use hash (keeps it unique)", where)
		}
		if !c.Nullable {
			return nil, fmt.Errorf("%s: the column is NOT NULL; use const:<value> or hash", where)
		}
		return func(any) any { return nil }, nil
	case MaskConst:
		if inKey {
			return nil, fmt.Errorf("%s: the column is part of a unique key, and one value in every row would break it; use hash (keeps it unique)", where)
		}
		return constMask(m.Arg, c, where)
	case MaskKeepLast, MaskEmail:
		if !utf8Text(c) {
			return nil, fmt.Errorf("%s: %s rewrites UTF-8 text; the column's charset is %s", where, m.Kind, c.Charset)
		}
		if inKey {
			return nil, fmt.Errorf("%s: the column is part of a unique key, and %s can map two values to one; use hash (keeps it unique)", where, m.Kind)
		}
		if !textual(c) {
			return nil, fmt.Errorf("%s: %s rewrites text; the column is not a text column", where, m.Kind)
		}
		if m.Kind == MaskEmail {
			return textMask(emailMask), nil
		}
		n, _ := strconv.Atoi(m.Arg)
		return textMask(func(s string) string { return keepLast(s, n) }), nil
	case MaskHash:
		if h == nil {
			return nil, fmt.Errorf("%s: hash needs a key: --mask-key-file PATH or the SLUICE_MASK_KEY environment variable (never on the command line or in the config file)", where)
		}
		switch {
		case textual(c) && !utf8Text(c):
			return nil, fmt.Errorf("%s: hash of %s text is not supported (the binlog and the copy give its bytes differently)", where, c.Charset)
		case textual(c):
			if !fits(2 * sha256.Size) {
				return nil, fmt.Errorf("%s: hash writes 64 hex characters and the column holds %d; widen the target column or use keep-last/const", where, c.CharMaxLength)
			}
			return h.hexMask, nil
		case binaryCol(c):
			if !fits(sha256.Size) {
				return nil, fmt.Errorf("%s: hash writes 32 bytes and the column holds %d", where, c.CharMaxLength)
			}
			return h.binaryMask, nil
		case strings.EqualFold(c.DataType, "bigint") && !c.Unsigned:
			return h.bigintMask, nil
		}
		return nil, fmt.Errorf("%s: hash fits text columns of 64+ characters, binary columns of 32+ bytes and signed BIGINT (63 bits); not this type", where)
	}
	return nil, fmt.Errorf("%s: unknown mask", where)
}

func textMask(f func(string) string) func(any) any {
	return func(v any) any {
		s, ok := text(v)
		if !ok || v == nil {
			return v
		}
		return f(s)
	}
}

// keepLast replaces all but the last n characters with '*' (the length,
// and so the column's limit, stays).
func keepLast(s string, n int) string {
	k := utf8.RuneCountInString(s)
	if k <= n {
		return s
	}
	if utf8.ValidString(s) {
		// The kept tail as it is, one allocation of the exact size.
		tail := len(s)
		for i := 0; i < n; i++ {
			_, w := utf8.DecodeLastRuneInString(s[:tail])
			tail -= w
		}
		var b strings.Builder
		b.Grow(k - n + len(s) - tail)
		for i := 0; i < k-n; i++ {
			b.WriteByte('*')
		}
		b.WriteString(s[tail:])
		return b.String()
	}
	// Invalid UTF-8: each bad byte is one character, and a kept one
	// becomes U+FFFD (what ranging over the string gives).
	var b strings.Builder
	i := 0
	for _, r := range s {
		if i < k-n {
			b.WriteByte('*')
		} else {
			b.WriteRune(r)
		}
		i++
	}
	return b.String()
}

// emailMask keeps the first character of the local part and the domain;
// the rest of the local part becomes '*' (same length). A value without @
// is starred whole.
func emailMask(s string) string {
	at := strings.LastIndexByte(s, '@')
	if at < 0 {
		return strings.Repeat("*", utf8.RuneCountInString(s))
	}
	if local := s[:at]; utf8.ValidString(local) {
		if local == "" {
			return s
		}
		_, w := utf8.DecodeRuneInString(local)
		stars := utf8.RuneCountInString(local) - 1
		var b strings.Builder
		b.Grow(w + stars + len(s) - at)
		b.WriteString(local[:w])
		for i := 0; i < stars; i++ {
			b.WriteByte('*')
		}
		b.WriteString(s[at:])
		return b.String()
	}
	local := []rune(s[:at]) // invalid UTF-8: a kept bad byte becomes U+FFFD, as before
	for i := 1; i < len(local); i++ {
		local[i] = '*'
	}
	return string(local) + s[at:]
}

func constMask(arg string, c *schema.Column, where string) (func(any) any, error) {
	switch {
	case textual(c):
		if c.CharMaxLength > 0 && int64(utf8.RuneCountInString(arg)) > c.CharMaxLength {
			return nil, fmt.Errorf("%s: %q is longer than the column's %d characters", where, arg, c.CharMaxLength)
		}
		return func(v any) any {
			if v == nil {
				return nil
			}
			return arg
		}, nil
	case strings.EqualFold(c.DataType, "bigint") || strings.EqualFold(c.DataType, "int") || strings.EqualFold(c.DataType, "smallint") ||
		strings.EqualFold(c.DataType, "mediumint") || strings.EqualFold(c.DataType, "tinyint"):
		bits := int(intBits[strings.ToLower(c.DataType)])
		n, err := strconv.ParseInt(arg, 10, bits)
		if err != nil || (c.Unsigned && n < 0) {
			return nil, fmt.Errorf("%s: %q is not a value of the column's type", where, arg)
		}
		return func(v any) any {
			if v == nil {
				return nil
			}
			return n
		}, nil
	}
	return nil, fmt.Errorf("%s: const fits text and integer columns; not this type", where)
}
