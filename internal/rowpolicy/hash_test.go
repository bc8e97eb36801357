package rowpolicy

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
)

var testKey = []byte("0123456789abcdef")

// maskTable has a column for each hash form and the two text masks.
func maskTable() *schema.Table {
	text := func(name string, n int64) schema.Column {
		return schema.Column{Name: name, DataType: "varchar", ColumnType: fmt.Sprintf("varchar(%d)", n), CharMaxLength: n,
			Charset: "utf8mb4", Collation: "utf8mb4_general_ci", Nullable: true}
	}
	return &schema.Table{TableID: schema.TableID{Database: "shop", Name: "people"}, PrimaryKey: []string{"id"},
		Columns: []schema.Column{
			{Name: "id", DataType: "bigint", ColumnType: "bigint"},
			text("name", 64),
			{Name: "token", DataType: "varbinary", ColumnType: "varbinary(32)", CharMaxLength: 32, Charset: "binary", Nullable: true},
			{Name: "ssn", DataType: "bigint", ColumnType: "bigint", Nullable: true},
			text("phone", 20), text("mail", 100),
			{Name: "tenant", DataType: "int", ColumnType: "int"},
		}}
}

func maskPolicy(t testing.TB, where ...string) (*Policy, *schema.Table) {
	t.Helper()
	p, err := New(where, []string{"shop.people.name=hash", "shop.people.token=hash", "shop.people.ssn=hash",
		"shop.*.phone=keep-last:2", "shop.people.mail=email"}, testKey)
	if err != nil {
		t.Fatal(err)
	}
	tb := maskTable()
	if err := p.Check([]*schema.Table{tb}); err != nil {
		t.Fatal(err)
	}
	return p, tb
}

// refDigest is the hash mask as it was computed before the pool: a fresh
// HMAC per value.
func refDigest(s string) []byte {
	h := hmac.New(sha256.New, testKey)
	h.Write([]byte(s))
	return h.Sum(nil)
}

func hashValues() []string {
	return []string{"", "a@b.c", "68487932199-96439406143", "ünïcödé", strings.Repeat("x", 511), strings.Repeat("yz", 300),
		strings.Repeat("0123456789", 1000), "-9007199254740993"}
}

// TestHashDigestsUnchanged: the pooled HMAC gives the digests a fresh
// hmac.New gave, for every hash form, in any order and repeated (a pooled
// state is Reset to the keyed state), and pinned values (computed with
// `openssl dgst -sha256 -hmac`) stay the same across releases: a hash mask
// must map a value the same way in every run, or joins break.
func TestHashDigestsUnchanged(t *testing.T) {
	pinned := map[string]string{
		"":                        "496dc93fa2d26eae500ec0bc37a122706b88f8963cebf0899d0245fae313e241",
		"a@b.c":                   "c8b9adc27ca0fc812e2cca09aab792e34c9d8d2fce3408abb47cb633bbb5e77f",
		"68487932199-96439406143": "e242c696156f3825822b128f71dc4c34f7df1a94c804ee33d9b69812ad4110e8",
		"ünïcödé":                 "a2bb9ff58cd1595430708d34be60fac6582acb6f7a2f7b2446005ee5cb01e003",
	}
	p, tb := maskPolicy(t)
	for round := 0; round < 3; round++ {
		for _, s := range hashValues() {
			ref := refDigest(s)
			row := []any{int64(1), s, []byte(s), nil, nil, nil, int32(1)}
			if _, err := p.Changes([]model.RowChange{{Op: model.Insert, Table: tb, After: row}}); err != nil {
				t.Fatal(err)
			}
			if got, want := row[1], hex.EncodeToString(ref); got != want {
				t.Fatalf("text hash of %.20q: %v, want %s", s, got, want)
			}
			if pin, ok := pinned[s]; ok && row[1] != pin {
				t.Fatalf("text hash of %q: %v, pinned %s", s, row[1], pin)
			}
			if got := row[2].([]byte); !bytes.Equal(got, ref) {
				t.Fatalf("binary hash of %.20q: %x, want %x", s, got, ref)
			}
			// A text column given as bytes (TEXT from the binlog) hashes as its string.
			row = []any{int64(1), []byte(s), nil, s, nil, nil, int32(1)}
			if _, err := p.Changes([]model.RowChange{{Op: model.Insert, Table: tb, After: row}}); err != nil {
				t.Fatal(err)
			}
			if row[1] != hex.EncodeToString(ref) {
				t.Fatalf("text hash of bytes %.20q: %v", s, row[1])
			}
			if want := int64(binary.BigEndian.Uint64(ref) >> 1); row[3] != want {
				t.Fatalf("BIGINT hash of the text %.20q: %v, want %d", s, row[3], want)
			}
		}
	}
	// The binlog's int64 hashes as its decimal text (the snapshot's form).
	for _, n := range []int64{0, 1, -1, 42, -9007199254740993, 1<<63 - 1, -1 << 63} {
		row := []any{int64(1), nil, nil, n, nil, nil, int32(1)}
		if _, err := p.Changes([]model.RowChange{{Op: model.Insert, Table: tb, After: row}}); err != nil {
			t.Fatal(err)
		}
		ref := refDigest(fmt.Sprint(n))
		if want := int64(binary.BigEndian.Uint64(ref) >> 1); row[3] != want || want < 0 {
			t.Fatalf("BIGINT hash of %d: %v, want %d", n, row[3], want)
		}
	}
	if got := p.hash.hexMask(nil); got != nil {
		t.Errorf("NULL hashed to %v", got)
	}
}

// TestHashPoolConcurrent: goroutines sharing one policy (the pool) each get
// the right digest for their own values (run with -race).
func TestHashPoolConcurrent(t *testing.T) {
	p, tb := maskPolicy(t)
	vals := hashValues()
	want := make([]string, len(vals))
	for i, s := range vals {
		want[i] = hex.EncodeToString(refDigest(s))
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; n < 200; n++ {
				i := (g + n) % len(vals)
				row := []any{int64(n), vals[i], []byte(vals[i]), int64(n), "5550123", "ab@x.io", int32(1)}
				if _, err := p.Changes([]model.RowChange{{Op: model.Insert, Table: tb, After: row}}); err != nil {
					errs <- err
					return
				}
				if row[1] != want[i] || hex.EncodeToString(row[2].([]byte)) != want[i] {
					errs <- fmt.Errorf("goroutine %d: hash of value %d is %v / %x, want %s", g, i, row[1], row[2], want[i])
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// The text masks as they were before their one-allocation paths: the new
// ones must give the same text for every input, invalid UTF-8 included.
func refKeepLast(s string, n int) string {
	k := utf8.RuneCountInString(s)
	if k <= n {
		return s
	}
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

func refEmail(s string) string {
	at := strings.LastIndexByte(s, '@')
	if at < 0 {
		return strings.Repeat("*", utf8.RuneCountInString(s))
	}
	local := []rune(s[:at])
	for i := 1; i < len(local); i++ {
		local[i] = '*'
	}
	return string(local) + s[at:]
}

func TestTextMasksUnchanged(t *testing.T) {
	for _, s := range []string{"", "a", "ab", "5550123", "ünïcödé", "日本語のテキスト", "a\xffb\xfe", "\xff", "x\xc3",
		"a@b.c", "@b.c", "ab@x.io", "ü@x", "日本@例え.jp", "a\xff@x", "\xffb@y", "no-at-sign", "a@b@c", "é@"} {
		for n := 0; n <= 4; n++ {
			if got, want := keepLast(s, n), refKeepLast(s, n); got != want {
				t.Errorf("keepLast(%q, %d) = %q, want %q", s, n, got, want)
			}
		}
		if got, want := emailMask(s), refEmail(s); got != want {
			t.Errorf("emailMask(%q) = %q, want %q", s, got, want)
		}
	}
	if keepLast("5550123", 2) != "*****23" || emailMask("ab@x.io") != "a*@x.io" {
		t.Errorf("keepLast/email: %q %q", keepLast("5550123", 2), emailMask("ab@x.io"))
	}
}

// TestUpdateUnchangedColumns: an UPDATE's unchanged masked column takes the
// before image's result (the same value, its own copy for bytes), a changed
// one its own; a filter on columns the UPDATE left alone keeps the row
// where it was, one on a changed column still moves it.
func TestUpdateUnchangedColumns(t *testing.T) {
	p, tb := maskPolicy(t, "shop.people=tenant = 1")
	row := func(name, phone string, tenant int32) []any {
		return []any{int64(1), name, []byte("tok"), int64(7), phone, "ab@x.io", tenant}
	}
	cs, err := p.Changes([]model.RowChange{
		{Op: model.Update, Table: tb, Before: row("ann", "5550123", 1), After: row("ann", "5550199", 1)},
		{Op: model.Update, Table: tb, Before: row("ann", "5550123", 2), After: row("bob", "5550199", 2)},
		{Op: model.Update, Table: tb, Before: row("ann", "5550123", 1), After: row("ann", "5550123", 2)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[0].Op != model.Update || cs[1].Op != model.Delete {
		t.Fatalf("want the update kept, the one outside dropped, the one leaving a delete: %+v", cs)
	}
	b, a := cs[0].Before, cs[0].After
	if b[1] != hex.EncodeToString(refDigest("ann")) || a[1] != b[1] || a[3] != b[3] || a[5] != "a*@x.io" {
		t.Errorf("unchanged columns: before %v after %v", b, a)
	}
	if b[4] != "*****23" || a[4] != "*****99" {
		t.Errorf("changed column: before %v, after %v", b[4], a[4])
	}
	bb, ab := b[2].([]byte), a[2].([]byte)
	if !bytes.Equal(bb, refDigest("tok")) || !bytes.Equal(ab, bb) || &ab[0] == &bb[0] {
		t.Errorf("binary hash: before %x after %x (want equal, not shared)", bb, ab)
	}
}

// TestChangesAcrossTables: a transaction touching a masked table, one the
// policy does not cover and the masked one again gets each table's policy
// (Changes looks a table up only when it changes).
func TestChangesAcrossTables(t *testing.T) {
	p, tb := maskPolicy(t)
	other := &schema.Table{TableID: schema.TableID{Database: "crm", Name: "people"}, Columns: tb.Columns}
	row := func() []any { return []any{int64(1), "ann", nil, nil, "5550123", "ab@x.io", int32(1)} }
	cs, err := p.Changes([]model.RowChange{
		{Op: model.Insert, Table: tb, After: row()},
		{Op: model.Insert, Table: other, After: row()},
		{Op: model.Insert, Table: tb, After: row()},
	})
	if err != nil || len(cs) != 3 {
		t.Fatal(cs, err)
	}
	for i, want := range []string{"*****23", "5550123", "*****23"} {
		if cs[i].After[4] != want {
			t.Errorf("change %d (%s): phone %v, want %s", i, cs[i].Table.TableID, cs[i].After[4], want)
		}
	}
}
