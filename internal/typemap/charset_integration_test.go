package typemap

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestBuiltinCharsetsMatchServer checks the built-in tables against
// MariaDB's own conversion to utf8mb4: every byte of the 8-bit charsets
// must decode to the server's character (or be rejected where the server
// prints '?'); every 1- and 2-byte sequence the server converts must
// decode to the same character with the CJK decoders.
func TestBuiltinCharsetsMatchServer(t *testing.T) {
	env := sandboxOrSkip(t)
	my, _ := env.mysqlDB(t, "typemap_cs")
	var names []string
	for cs := range builtinSingleByte {
		names = append(names, cs)
	}
	for cs := range builtinMultiByte {
		names = append(names, cs)
	}
	sort.Strings(names)
	for _, cs := range names {
		t.Run(cs, func(t *testing.T) {
			maxLen := serverCharsetMaxLen(t, my, cs)
			decode, err := charsetDecoder(cs, nil)
			if err != nil {
				t.Fatal(err)
			}
			wrong, lenient := compareWithServer(t, my, cs, maxLen, decode)
			if len(wrong) > 0 {
				t.Errorf("%d sequences MariaDB converts decode differently, e.g.:\n%s", len(wrong), strings.Join(wrong[:min(len(wrong), 20)], "\n"))
			}
			// 8-bit tables are exact; the CJK decoders of x/text are supersets
			// of MariaDB's tables and accept a few sequences MariaDB rejects.
			if _, sb := builtinSingleByte[cs]; sb && len(lenient) > 0 {
				t.Errorf("%d bytes MariaDB rejects are accepted: %s", len(lenient), strings.Join(lenient[:min(len(lenient), 20)], "\n"))
			}
		})
	}
}

// TestLoadedCharsetsMatchServer loads the conversion table of every
// non-Unicode charset the server has and checks it decodes every 1- and
// 2-byte sequence (and EUC-JP's 3-byte ones) exactly as the server
// converts it, rejecting exactly what the server rejects.
func TestLoadedCharsetsMatchServer(t *testing.T) {
	env := sandboxOrSkip(t)
	my, _ := env.mysqlDB(t, "typemap_csl")
	rows, err := my.Query("SELECT CHARACTER_SET_NAME FROM information_schema.CHARACTER_SETS WHERE MAXLEN <= 3 ORDER BY 1")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		if !unicodeOrBuiltin(n) {
			names = append(names, n)
		}
	}
	rows.Close()
	if len(names) < 20 {
		t.Fatalf("only %d charsets: %v", len(names), names)
	}
	loaded, err := LoadCharsets(context.Background(), my, names...)
	if err != nil {
		t.Fatal(err)
	}
	if got := loaded.Names(); len(got) != len(names) {
		t.Fatalf("loaded %v, want %v", got, names)
	}
	for _, cs := range names {
		t.Run(cs, func(t *testing.T) {
			decode, err := charsetDecoder(cs, loaded)
			if err != nil {
				t.Fatal(err)
			}
			wrong, lenient := compareWithServer(t, my, cs, serverCharsetMaxLen(t, my, cs), decode)
			if len(wrong)+len(lenient) > 0 {
				all := append(wrong, lenient...)
				t.Errorf("%d sequences decode differently from MariaDB, e.g.:\n%s", len(all), strings.Join(all[:min(len(all), 20)], "\n"))
			}
		})
	}
}

func serverCharsetMaxLen(t *testing.T, my *sql.DB, cs string) int {
	t.Helper()
	var maxLen int
	err := my.QueryRow("SELECT MAXLEN FROM information_schema.CHARACTER_SETS WHERE CHARACTER_SET_NAME = ?", cs).Scan(&maxLen)
	if err == sql.ErrNoRows {
		t.Skipf("this server has no charset %s", cs)
	}
	if err != nil {
		t.Fatal(err)
	}
	return maxLen
}

// compareWithServer converts sequences with the server and the decoder:
// every byte, every byte pair for multi-byte charsets, and 0x8F+pair for
// 3-byte ones. wrong lists sequences the server converts that the decoder
// gets wrong or rejects; lenient those the server rejects ('?') and the
// decoder accepts.
func compareWithServer(t *testing.T, my *sql.DB, cs string, maxLen int, decode decodeFunc) (wrong, lenient []string) {
	t.Helper()
	queries := []string{byteSeq + "SELECT UNHEX(" + hexByte("n") + ") AS raw FROM s"}
	if maxLen > 1 {
		queries = append(queries, byteSeq+"SELECT UNHEX(CONCAT("+hexByte("a.n")+", "+hexByte("b.n")+")) AS raw FROM s a JOIN s b")
	}
	if maxLen > 2 {
		queries = append(queries, byteSeq+"SELECT UNHEX(CONCAT('8F', "+hexByte("a.n")+", "+hexByte("b.n")+")) AS raw FROM s a JOIN s b WHERE a.n >= 128")
	}
	for _, q := range queries {
		rows, err := my.Query("SELECT raw, CONVERT(raw USING " + cs + ") FROM (" + q + ") AS seqs")
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var raw, server []byte
			if err := rows.Scan(&raw, &server); err != nil {
				t.Fatal(err)
			}
			ours, err := decode(nil, raw)
			// The server prints '?' (or U+FFFD, for tis620) for what it cannot convert.
			serverRejects := strings.Count(string(server), "?") > strings.Count(string(raw), "?") ||
				strings.ContainsRune(string(server), '\uFFFD')
			switch {
			case !serverRejects && (err != nil || string(ours) != string(server)):
				wrong = append(wrong, fmt.Sprintf("%x: server %q, sluice %q (err %v)", raw, server, ours, err))
			case serverRejects && err == nil:
				lenient = append(lenient, fmt.Sprintf("%x: server %q, sluice %q", raw, server, ours))
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	return wrong, lenient
}

// TestLoadCharsetsScansNothing: loading the charsets of the tables in scope
// never lists the server's columns (an information_schema scan over every
// schema, which a busy MariaDB once crashed on): without names it sends no
// query at all, and a charset asked for later is loaded on first use.
func TestLoadCharsetsScansNothing(t *testing.T) {
	dead, err := sql.Open("mysql", "nobody:x@tcp(127.0.0.1:1)/")
	if err != nil {
		t.Fatal(err)
	}
	defer dead.Close()
	cs, err := LoadCharsets(context.Background(), dead)
	if err != nil {
		t.Fatalf("LoadCharsets without names queried the server: %v", err)
	}
	if _, err := charsetDecoder("latin1", cs); err == nil {
		t.Fatal("a charset asked for later must be loaded from the server (here unreachable: an error)")
	}

	env := testenv.Get(t)
	my := env.MySQL(t, "")
	lazy, err := LoadCharsets(context.Background(), my)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := charsetDecoder("cp1251", lazy)
	if err != nil {
		t.Fatalf("cp1251 loaded on first use: %v", err)
	}
	out, err := dec(nil, []byte{0xcf, 0xf0, 0xe8})
	if err != nil || string(out) != "При" {
		t.Fatalf("cp1251 decoded %q, %v; want При", out, err)
	}
	if got := lazy.Names(); len(got) != 1 || got[0] != "cp1251" {
		t.Fatalf("loaded %v, want [cp1251]", got)
	}
}
