package rowpolicy

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sluice-db/sluice/internal/schema"
)

// refCompare is the comparison as it was: both weight keys built, then
// compared as strings.
func refCompare(c *collation, a, b string) (int, error) {
	key := func(s string) (string, error) {
		if c.pad {
			s = strings.TrimRight(s, " ")
		}
		if !c.fold {
			return s, nil
		}
		var k strings.Builder
		for _, r := range s {
			w, ok := c.weight(r)
			if !ok || r == utf8.RuneError {
				return "", errUnsupported
			}
			k.WriteRune(w)
		}
		return k.String(), nil
	}
	ka, err := key(a)
	if err != nil {
		return 0, err
	}
	kb, err := key(b)
	if err != nil {
		return 0, err
	}
	return strings.Compare(ka, kb), nil
}

// TestCollationCompareUnchanged: the in-place comparison orders and refuses
// exactly as the key-building one did, for random strings of letters,
// spaces, Latin-1, characters without a weight and invalid bytes.
func TestCollationCompareUnchanged(t *testing.T) {
	alphabet := []string{"a", "A", "b", "Z", " ", "  ", "0", "_", "~", "\x7f", "\t", "é", "É", "ß", "ÿ", "×", "÷", "æ", "Æ", "ā", "€", "\xff", "\uFFFD"}
	rng := rand.New(rand.NewPCG(25, 1))
	word := func() string {
		var b strings.Builder
		for n := rng.IntN(5); n > 0; n-- {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	for _, name := range []string{"utf8mb4_bin", "utf8mb4_0900_bin", "utf8mb4_general_ci", "utf8mb4_unicode_ci", "utf8mb4_0900_ai_ci"} {
		c, err := collationOf(name)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 20000; i++ {
			a, b := word(), word()
			if i%7 == 0 {
				b = a + " "
			}
			got, gerr := c.compare(a, b)
			want, werr := refCompare(c, a, b)
			if (gerr != nil) != (werr != nil) || got != want {
				t.Fatalf("%s: compare(%q, %q) = %d, %v; want %d, %v", name, a, b, got, gerr, want, werr)
			}
		}
	}
}

// TestFilterAllocatesNothing: evaluating a compiled condition on a row
// image allocates nothing for integers, text under a folding collation,
// LIKE and their logic (decimals, floats read from text, dates and a BLOB's
// []byte, which is copied into a string, do).
func TestFilterAllocatesNothing(t *testing.T) {
	tb := testTable()
	tb.Columns = append(tb.Columns, schema.Column{Name: "blob", DataType: "varbinary", ColumnType: "varbinary(40)", Charset: "binary"})
	row := []any{int64(1), int32(1), "Ann@Example.com", "5550123", "ab@x.io", "bytes value"} // VARBINARY: a string from the binlog
	for _, cond := range []string{
		"tenant = 1 AND id > 0",
		"tenant IN (1, 2, 3) OR id BETWEEN 1 AND 10",
		"NOT (tenant <> 1) XOR id IS NULL",
		"email = 'ann@example.com' AND phone <> '555'",
		"email LIKE '%@example.com' AND code NOT LIKE 'x%'",
		"blob LIKE 'byt%' AND (tenant + 1) * 2 = 4",
		"coalesce(phone, code) IS NOT NULL AND char_length(email) > 3",
	} {
		f, err := CompileFilter(tb, cond)
		if err != nil {
			t.Fatal(cond, err)
		}
		if ok, err := f.Match(row); err != nil || !ok {
			t.Fatalf("%s: %v %v (want a match)", cond, ok, err)
		}
		if n := testing.AllocsPerRun(100, func() { _, _ = f.Match(row) }); n != 0 {
			t.Errorf("%s: %.0f allocations per row", cond, n)
		}
	}
}
