package typemap

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/sluice-db/sluice/internal/schema"
)

// Charsets holds decoding tables read from the source server. The binlog
// carries text in the column's charset; decoding it with the server's own
// table gives exactly the text the server returns through the text
// protocol, which no library table does for every charset (MariaDB's
// greek, hebrew, tis620, sjis, big5, cp932... differ from the standards).
//
// Tables are loaded for the charsets named at LoadCharsets and, later, for
// any other charset a converter asks for (a schema change may bring a new
// one into scope): never by scanning the server's columns, which on a busy
// server means information_schema temporary tables over every schema.
type Charsets struct {
	db     *sql.DB // for charsets asked for later; nil: only what was loaded
	mu     sync.Mutex
	tables map[string]*charsetTable
	failed map[string]error
}

// table returns the decoding table of a charset that needs one (nil for
// those decoded without: Unicode, ascii, 4-byte charsets), loading it from
// the server on first use.
func (c *Charsets) table(name string) (*charsetTable, error) {
	if c == nil {
		return nil, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if t, ok := c.tables[name]; ok {
		return t, nil
	}
	if err, ok := c.failed[name]; ok {
		return nil, err
	}
	if c.db == nil || unicodeOrBuiltin(name) {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	t, err := loadCharset(ctx, c.db, name)
	if err != nil {
		c.failed[name] = err
		return nil, err
	}
	c.tables[name] = t
	return t, nil
}

// Names returns the charsets whose tables are loaded, sorted.
func (c *Charsets) Names() []string {
	var out []string
	if c != nil {
		c.mu.Lock()
		for n, t := range c.tables {
			if t != nil {
				out = append(out, n)
			}
		}
		c.mu.Unlock()
	}
	sort.Strings(out)
	return out
}

// CharsetsOf lists the charsets of the text columns of the tables, for
// LoadCharsets: the tables in scope, not the whole server.
func CharsetsOf(tables []*schema.Table) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range tables {
		for _, c := range t.Columns {
			if cs := strings.ToLower(c.Charset); cs != "" && cs != "binary" && !seen[cs] {
				seen[cs] = true
				out = append(out, cs)
			}
		}
	}
	sort.Strings(out)
	return out
}

// Table entries: a rune, or one of these markers.
const (
	runeInvalid = -1 // the server has no character for these bytes
	runeLead    = -2 // first byte of a 2-byte character
	runeLead3   = -3 // first two bytes of a 3-byte character
)

// charsetTable decodes one charset of up to 3 bytes per character.
type charsetTable struct {
	name   string
	single [256]rune
	pair   [256]*[256]rune
	ss3    *[256][256]rune // EUC-JP's 3-byte characters after 0x8F
}

// unicodeOrBuiltin are charsets that need no table from the server.
func unicodeOrBuiltin(cs string) bool {
	switch cs {
	case "utf8mb4", "utf8mb3", "utf8", "ascii", "binary", "ucs2", "utf16", "utf16le", "utf32", "filename", "":
		return true
	}
	return false
}

// LoadCharsets reads from the server (a connection whose character set is
// utf8mb4, as sluice's are) how it converts every character of the named
// charsets to Unicode, typically CharsetsOf the tables in scope; a charset
// asked for later is loaded then, through db. It runs two or three queries
// per charset (a few hundred milliseconds for the multi-byte ones);
// Unicode charsets and ascii need no table, and 4-byte charsets (gb18030)
// use the standard decoder.
func LoadCharsets(ctx context.Context, db *sql.DB, names ...string) (*Charsets, error) {
	cs := &Charsets{db: db, tables: map[string]*charsetTable{}, failed: map[string]error{}}
	for _, n := range names {
		n = strings.ToLower(n)
		if unicodeOrBuiltin(n) {
			continue
		}
		if _, done := cs.tables[n]; done {
			continue
		}
		t, err := loadCharset(ctx, db, n)
		if err != nil {
			return nil, err
		}
		cs.tables[n] = t
	}
	return cs, nil
}

// loadCharset reads one charset's table (nil for charsets of more than 3
// bytes per character, decoded without one).
func loadCharset(ctx context.Context, db *sql.DB, n string) (*charsetTable, error) {
	var maxLen int
	err := db.QueryRowContext(ctx, "SELECT MAXLEN FROM information_schema.CHARACTER_SETS WHERE CHARACTER_SET_NAME = ?", n).Scan(&maxLen)
	if err == sql.ErrNoRows {
		return nil, fmt.Errorf("load charset %s: the server does not know this charset", n)
	}
	if err != nil {
		return nil, fmt.Errorf("load charset %s: %w", n, err)
	}
	if maxLen > 3 {
		return nil, nil
	}
	t, err := loadCharsetTable(ctx, db, n, maxLen)
	if err != nil {
		return nil, fmt.Errorf("load charset %s: %w", n, err)
	}
	return t, nil
}

// byteSeq is a recursive CTE of 0..255 (MySQL 8 and MariaDB both have
// WITH RECURSIVE; MySQL's default recursion limit is 1000).
const byteSeq = "WITH RECURSIVE s(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM s WHERE n < 255) "

func hexByte(col string) string { return "LPAD(HEX(" + col + "), 2, '0')" }

func loadCharsetTable(ctx context.Context, db *sql.DB, cs string, maxLen int) (*charsetTable, error) {
	for _, ch := range cs {
		if (ch < 'a' || ch > 'z') && (ch < '0' || ch > '9') && ch != '_' {
			return nil, fmt.Errorf("bad charset name %q", cs)
		}
	}
	t := &charsetTable{name: cs}
	var leads []string
	err := queryConversions(ctx, db, byteSeq+"SELECT n, 0, 0, CONVERT(UNHEX("+hexByte("n")+") USING "+cs+") FROM s",
		func(a, _, _ int, r rune) {
			t.single[a] = r
			if r == runeInvalid && maxLen > 1 {
				t.single[a] = runeLead
				leads = append(leads, fmt.Sprint(a))
			}
		})
	if err != nil || len(leads) == 0 {
		return t, err
	}
	err = queryConversions(ctx, db, byteSeq+"SELECT a.n, b.n, 0, CONVERT(UNHEX(CONCAT("+hexByte("a.n")+", "+hexByte("b.n")+")) USING "+cs+
		") FROM s a JOIN s b WHERE a.n IN ("+strings.Join(leads, ",")+")",
		func(a, b, _ int, r rune) {
			if t.pair[a] == nil {
				t.pair[a] = new([256]rune)
			}
			t.pair[a][b] = r
		})
	if err != nil {
		return nil, err
	}
	if maxLen == 3 && t.single[0x8F] == runeLead {
		// EUC-JP (ujis, eucjpms): 0x8F starts a 3-byte character of two bytes 0xA1..0xFE.
		t.ss3 = new([256][256]rune)
		for b := range t.ss3 {
			for c := range t.ss3[b] {
				t.ss3[b][c] = runeInvalid
			}
		}
		err = queryConversions(ctx, db, byteSeq+"SELECT 143, a.n, b.n, CONVERT(UNHEX(CONCAT('8F', "+hexByte("a.n")+", "+hexByte("b.n")+")) USING "+cs+
			") FROM s a JOIN s b WHERE a.n BETWEEN 161 AND 254 AND b.n BETWEEN 161 AND 254",
			func(_, b, c int, r rune) {
				t.ss3[b][c] = r
				if r != runeInvalid {
					t.pair[0x8F][b] = runeLead3
				}
			})
		if err != nil {
			return nil, err
		}
	}
	// A lead byte no pair starts is simply invalid.
	for a, p := range t.pair {
		if t.single[a] != runeLead {
			continue
		}
		valid := false
		for _, r := range p {
			valid = valid || r != runeInvalid
		}
		if !valid {
			t.single[a], t.pair[a] = runeInvalid, nil
		}
	}
	return t, nil
}

// queryConversions runs a query returning (byte, byte, byte, converted
// text) and reports each sequence's single rune, or runeInvalid when the
// server substituted '?' (or produced anything but one character).
func queryConversions(ctx context.Context, db *sql.DB, q string, f func(a, b, c int, r rune)) error {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var a, b, c int
		var text []byte
		if err := rows.Scan(&a, &b, &c, &text); err != nil {
			return err
		}
		r, size := utf8.DecodeRune(text)
		if size != len(text) || len(text) == 0 || r == utf8.RuneError || (r == '?' && !(a == '?' && b == 0 && c == 0)) {
			r = runeInvalid
		}
		f(a, b, c, r)
	}
	return rows.Err()
}

// decode appends the UTF-8 form of src.
func (t *charsetTable) decode(dst, src []byte) ([]byte, error) {
	for i := 0; i < len(src); {
		r := t.single[src[i]]
		n := 1
		if r == runeLead && i+1 < len(src) {
			r, n = t.pair[src[i]][src[i+1]], 2
			if r == runeLead3 && i+2 < len(src) {
				r, n = t.ss3[src[i+1]][src[i+2]], 3
			}
		}
		if r < 0 {
			return nil, &invalidBytesError{t.name, i}
		}
		if r < utf8.RuneSelf {
			dst = append(dst, byte(r))
		} else {
			dst = utf8.AppendRune(dst, r)
		}
		i += n
	}
	return dst, nil
}
