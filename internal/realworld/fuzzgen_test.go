package realworld

import (
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The generator of the differential fuzz test (fuzz_test.go): random tables,
// values, DML and DDL, every choice drawn from one seeded source so a seed
// names one run. It models the schema it created (fzTable) to write values
// that fit and DDL that applies; statements the source refuses anyway
// (duplicate keys, a MODIFY that would truncate) are skipped by the runner.

// fzKind is a column's type family.
type fzKind int

const (
	kInt fzKind = iota
	kDecimal
	kFloat
	kDouble
	kBit
	kYear
	kDate
	kDatetime
	kTimestamp
	kTime
	kChar
	kVarchar
	kText
	kBinary
	kVarbinary
	kBlob
	kEnum
	kSet
	kJSON
	kGeometry
	kVector // MariaDB 11.7+ into a MariaDB target that has it too (fzGen.vector)
	kindCount
)

type fzCol struct {
	name     string
	kind     fzKind
	typ      string // the type as written in the DDL (with its modifiers)
	intBits  int    // kInt: 8, 16, 24, 32, 64; kBit: n
	unsigned bool
	prec     int // kDecimal precision; char lengths; fsp of temporal types
	scale    int
	charset  string // text kinds
	members  []string
	notNull  bool
	autoInc  bool
	hidden   bool // INVISIBLE
	// key: part of the primary or a unique key. Its values avoid zero dates
	// and NUL characters: sluice's default policies (-infinity, NUL
	// stripped) make such keys collide on PostgreSQL, which the snapshot
	// refuses (finish.go, uniqueCollision) rather than lose a row.
	key bool
	gen string // generation expression, "" for a stored column
	def string // DEFAULT clause text, "" for none
}

type fzTable struct {
	name   string
	cols   []*fzCol
	pk     []string // column names; empty: no primary key
	unique []string // one unique key's columns, may be empty
	index  []string // one secondary index's columns
	// prefixIndex: a TEXT/BLOB column with an index of its first 10 characters or bytes.
	prefixIndex string
	keys        []string // WHERE clauses of rows written, to update and delete
}

// fzGen generates one seed's schema and statements.
type fzGen struct {
	rng     *rand.Rand
	mysql   bool // the source is MySQL (not MariaDB)
	maxName int  // bytes a name may have (63 for a PostgreSQL target)
	// computedGenerated: every generated column must have an expression the target
	// computes. MariaDB 11.8 leaves generated columns out of UPDATE and DELETE row
	// images, so into PostgreSQL sluice refuses (rightly: TestGeneratedLeftOutRefused)
	// one it would copy as a plain column; LENGTH() and HEX() have no exact PostgreSQL
	// expression.
	computedGenerated bool
	// lateTimestamp is a TIMESTAMP after 2038, with a fraction: out of range on MariaDB 10.11
	// (stored as 0 s + the fraction), in range on 11.5+, whose TIMESTAMP reaches 2106; from
	// there into a target ending at 2038 sluice refuses it (TestTimestampAfter2038Refused), so
	// that path writes one after 2106, out of range on the source again.
	lateTimestamp string
	// vector: columns of MariaDB's VECTOR too (the source and the MariaDB target are 11.7+;
	// PostgreSQL has no mapping for it).
	vector bool
	tables []*fzTable
	names  map[string]bool // every table and column name used (lower-cased)
}

func newFzGen(seed uint64, mysql bool, maxName int) *fzGen {
	return &fzGen{rng: rand.New(rand.NewPCG(seed, seed^0x5eed)), mysql: mysql, maxName: maxName, names: map[string]bool{},
		lateTimestamp: "'2040-01-01 00:00:00.5'"}
}

func (g *fzGen) n(k int) int           { return g.rng.IntN(k) }
func (g *fzGen) chance(p float64) bool { return g.rng.Float64() < p }
func pick[T any](g *fzGen, xs []T) T   { return xs[g.rng.IntN(len(xs))] }

var fzReserved = []string{"select", "order", "Group", "KEY", "table", "from", "where", "user", "desc", "limit", "check", "column", "index", "default", "values", "interval", "range", "Read", "offset", "window", "rank"}
var fzWords = []string{"id", "Name", "value", "créé", "数据", "naïve", "x y", "col", "Data_Ü", "ключ", "smile☺", "sum", "a-b", "CamelCase", "über", "e"}

// name returns a new unique identifier: plain, mixed case, reserved, with
// spaces or unicode, sometimes long (up to maxName bytes; MySQL's limit is
// 64 characters, PostgreSQL's 63 bytes).
func (g *fzGen) name(prefix string) string {
	for {
		var s string
		switch g.n(6) {
		case 0:
			s = pick(g, fzReserved)
		case 1:
			s = pick(g, fzWords) + " " + pick(g, fzWords)
		case 2: // long
			s = pick(g, fzWords) + "_"
			for len(s) < g.maxName {
				s += pick(g, fzWords)
			}
		default:
			s = prefix + "_" + pick(g, fzWords) + strconv.Itoa(g.n(100))
		}
		s = truncBytes(strings.TrimSpace(s), g.maxName)
		s = strings.TrimRight(s, " ") // MySQL refuses names ending in a space
		if s == "" || g.names[strings.ToLower(s)] {
			continue
		}
		g.names[strings.ToLower(s)] = true
		return s
	}
}

// truncBytes cuts s to at most n bytes (and 64 characters) on a rune boundary.
func truncBytes(s string, n int) string {
	out := ""
	for _, r := range s {
		if len(out)+utf8.RuneLen(r) > n || utf8.RuneCountInString(out) >= 64 {
			break
		}
		out += string(r)
	}
	return out
}

func qi(name string) string { return "`" + strings.ReplaceAll(name, "`", "``") + "`" }

// sqlString is a quoted MySQL string literal (for DDL: members, defaults).
func sqlString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `'`, `''`, "\x00", `\0`)
	return "'" + r.Replace(s) + "'"
}

var fzCharsets = []string{"latin1", "utf8mb3", "utf8mb4", "utf8mb4", "binary", "utf16", "ascii"}

func collationFor(g *fzGen, cs string) string {
	switch cs {
	case "latin1":
		return pick(g, []string{"", "latin1_bin", "latin1_general_ci", "latin1_swedish_ci"})
	case "utf8mb3":
		return pick(g, []string{"", "utf8mb3_bin", "utf8mb3_general_ci", "utf8mb3_unicode_ci"})
	case "utf8mb4":
		if g.mysql {
			return pick(g, []string{"", "utf8mb4_bin", "utf8mb4_general_ci", "utf8mb4_0900_ai_ci", "utf8mb4_0900_as_cs", "utf8mb4_unicode_ci"})
		}
		return pick(g, []string{"", "utf8mb4_bin", "utf8mb4_general_ci", "utf8mb4_unicode_ci", "utf8mb4_unicode_520_ci"})
	}
	return ""
}

// column draws a column of any kind; keyable restricts it to kinds a key may hold.
func (g *fzGen) column(keyable bool) *fzCol {
	c := &fzCol{name: g.name("c")}
	kinds := []fzKind{kInt, kInt, kDecimal, kDate, kDatetime, kChar, kVarchar, kVarchar, kBinary, kVarbinary}
	if !keyable {
		kinds = nil
		for k := fzKind(0); k < kindCount; k++ {
			if k != kVector || g.vector {
				kinds = append(kinds, k)
			}
		}
	}
	c.kind = pick(g, kinds)
	switch c.kind {
	case kInt:
		c.intBits = pick(g, []int{8, 16, 24, 32, 64})
		c.typ = map[int]string{8: "TINYINT", 16: "SMALLINT", 24: "MEDIUMINT", 32: "INT", 64: "BIGINT"}[c.intBits]
		if c.intBits == 8 && g.chance(0.2) {
			c.typ += "(1)"
		}
		if g.chance(0.4) {
			c.unsigned = true
			c.typ += " UNSIGNED"
		}
		if g.chance(0.1) {
			c.unsigned = true
			c.typ += " ZEROFILL"
		}
	case kDecimal:
		c.prec = 1 + g.n(65)
		c.scale = g.n(min(c.prec, 30) + 1)
		if g.chance(0.15) {
			c.prec, c.scale = 65, 30
		}
		c.typ = fmt.Sprintf("DECIMAL(%d,%d)", c.prec, c.scale)
		if g.chance(0.2) {
			c.unsigned = true
			c.typ += " UNSIGNED"
		}
	case kFloat:
		c.typ = pick(g, []string{"FLOAT", "FLOAT", "FLOAT(7,3)"})
	case kDouble:
		c.typ = pick(g, []string{"DOUBLE", "DOUBLE", "DOUBLE(16,4)", "REAL"})
	case kBit:
		c.intBits = 1 + g.n(64)
		c.typ = fmt.Sprintf("BIT(%d)", c.intBits)
	case kYear:
		c.typ = "YEAR"
	case kDate:
		c.typ = "DATE"
	case kDatetime, kTimestamp, kTime:
		c.prec = g.n(7)
		c.typ = map[fzKind]string{kDatetime: "DATETIME", kTimestamp: "TIMESTAMP", kTime: "TIME"}[c.kind]
		if c.prec > 0 || g.chance(0.3) {
			c.typ += fmt.Sprintf("(%d)", c.prec)
		}
	case kChar, kVarchar, kText:
		c.charset = pick(g, fzCharsets)
		if keyable && c.charset == "binary" {
			c.charset = "latin1"
		}
		switch c.kind {
		case kChar:
			c.prec = g.n(40)
			if keyable {
				c.prec++
			}
			c.typ = fmt.Sprintf("CHAR(%d)", c.prec)
		case kVarchar:
			c.prec = pick(g, []int{1, 5, 20, 100, 255})
			c.typ = fmt.Sprintf("VARCHAR(%d)", c.prec)
		default:
			c.typ = pick(g, []string{"TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT"})
			c.prec = map[string]int{"TINYTEXT": 255, "TEXT": 65535}[c.typ]
		}
		c.typ += " CHARACTER SET " + c.charset
		if coll := collationFor(g, c.charset); coll != "" {
			c.typ += " COLLATE " + coll
		}
	case kBinary:
		c.prec = 1 + g.n(20)
		c.typ = fmt.Sprintf("BINARY(%d)", c.prec)
	case kVarbinary:
		c.prec = pick(g, []int{1, 4, 16, 255})
		c.typ = fmt.Sprintf("VARBINARY(%d)", c.prec)
	case kBlob:
		c.typ = pick(g, []string{"TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB"})
		c.prec = map[string]int{"TINYBLOB": 255, "BLOB": 65535}[c.typ]
	case kEnum, kSet:
		pool := []string{"a", "b", "", " ", "it's", `back\slash`, "x y", "ü", "€", "A ", "dup", "Zz", "0", "1", "null"}
		if c.kind == kSet {
			pool = slices.DeleteFunc(slices.Clone(pool), func(s string) bool { return s == "" || strings.HasSuffix(s, " ") })
		}
		n := 1 + g.n(min(len(pool), 8))
		perm := g.rng.Perm(len(pool))
		seen := map[string]bool{}
		var lits []string
		for _, i := range perm[:n] {
			m := pool[i]
			if seen[strings.ToLower(strings.TrimRight(m, " "))] { // members compare by the column's collation
				continue
			}
			seen[strings.ToLower(strings.TrimRight(m, " "))] = true
			c.members = append(c.members, m)
			lits = append(lits, sqlString(m))
		}
		c.typ = map[fzKind]string{kEnum: "ENUM", kSet: "SET"}[c.kind] + "(" + strings.Join(lits, ",") + ")"
		if g.chance(0.5) {
			c.charset = "utf8mb4"
			c.typ += " CHARACTER SET utf8mb4"
		}
	case kJSON:
		c.typ = "JSON"
	case kGeometry:
		c.typ = pick(g, []string{"GEOMETRY", "POINT", "LINESTRING"})
	case kVector:
		c.prec = 1 + g.n(8)
		c.typ = fmt.Sprintf("VECTOR(%d)", c.prec)
	}
	c.notNull = keyable || g.chance(0.3)
	if !keyable && g.chance(0.3) {
		c.def = g.defaultFor(c)
	}
	// INVISIBLE needs a default or NULL (MariaDB); inserts name it.
	c.hidden = !keyable && g.chance(0.05) && (!c.notNull || c.def != "")
	return c
}

// defaultFor returns a DEFAULT clause for c, literal or an expression, or "".
func (g *fzGen) defaultFor(c *fzCol) string {
	switch c.kind {
	case kInt:
		if g.chance(0.3) {
			return "DEFAULT (1 + 1)"
		}
		return pick(g, []string{"DEFAULT 0", "DEFAULT 1", "DEFAULT '7'"})
	case kDecimal:
		return "DEFAULT 0." + strings.Repeat("5", min(c.scale, 1))
	case kFloat, kDouble:
		return pick(g, []string{"DEFAULT 0", "DEFAULT 1.5", "DEFAULT -0.25"})
	case kBit:
		return "DEFAULT b'1'"
	case kYear:
		return "DEFAULT 2000"
	case kDate:
		return pick(g, []string{"DEFAULT '2000-01-01'", "DEFAULT (CURRENT_DATE)"})
	case kDatetime, kTimestamp:
		if g.chance(0.5) {
			fsp := ""
			if c.prec > 0 {
				fsp = strconv.Itoa(c.prec)
			}
			d := "DEFAULT CURRENT_TIMESTAMP(" + fsp + ")"
			if g.chance(0.5) {
				d += " ON UPDATE CURRENT_TIMESTAMP(" + fsp + ")"
			}
			return d
		}
		return "DEFAULT '2001-02-03 04:05:06'"
	case kTime:
		return "DEFAULT '-01:02:03'"
	case kChar, kVarchar:
		if c.charset == "binary" {
			return ""
		}
		if c.prec < 10 {
			return "DEFAULT ''"
		}
		return "DEFAULT " + pick(g, []string{"''", "'d''ef'", "'back\\\\slash'", "'x  '"})
	case kBinary, kVarbinary:
		return "DEFAULT 'b'"
	case kEnum:
		return "DEFAULT " + sqlString(c.members[0])
	case kSet:
		return "DEFAULT ''"
	}
	return ""
}

// table draws a table: 1–20 columns, a primary key (single, composite, of
// several key types) or none, sometimes a unique key, an index, generated columns.
func (g *fzGen) table() *fzTable {
	t := &fzTable{name: g.name("t")}
	switch r := g.n(10); {
	case r < 5: // integer id
		id := &fzCol{name: g.name("id"), kind: kInt, intBits: 64, typ: "BIGINT", notNull: true}
		if g.chance(0.5) {
			id.intBits, id.typ = 32, "INT UNSIGNED"
			id.unsigned = true
		}
		if g.chance(0.6) {
			id.autoInc = true
		}
		t.cols = append(t.cols, id)
		t.pk = []string{id.name}
	case r < 8: // a key of another type, or composite
		n := 1 + g.n(2)
		for range n {
			c := g.column(true)
			c.key = true
			t.cols = append(t.cols, c)
			t.pk = append(t.pk, c.name)
		}
	default: // no primary key
	}
	for range g.n(20 - len(t.cols)) {
		t.cols = append(t.cols, g.column(false))
	}
	if len(t.cols) == 0 {
		t.cols = append(t.cols, g.column(false))
	}
	if g.chance(0.3) {
		c := g.column(true)
		c.notNull = g.chance(0.5)
		c.key = true
		t.cols = append(t.cols, c)
		t.unique = []string{c.name}
	}
	// Generated columns from a stored column.
	if g.chance(0.4) {
		var src *fzCol
		for _, c := range t.cols {
			// Not CHAR: MariaDB refuses expressions over CHAR columns
			// (their trailing spaces depend on PAD_CHAR_TO_FULL_LENGTH).
			if !c.autoInc && c.gen == "" && c.kind != kJSON && c.kind != kGeometry && c.kind != kChar && c.kind != kVector {
				src = c
				break
			}
		}
		if src != nil {
			kind := pick(g, []string{"VIRTUAL", "STORED"})
			gc := &fzCol{name: g.name("g"), kind: kInt, intBits: 64, typ: "BIGINT", gen: "(LENGTH(" + qi(src.name) + ")) " + kind}
			if g.chance(0.5) {
				gc = &fzCol{name: g.name("g"), kind: kVarchar, charset: "utf8mb4", prec: 64, typ: "VARCHAR(64) CHARACTER SET utf8mb4",
					gen: "(LEFT(HEX(" + qi(src.name) + "), 64)) " + kind}
			}
			if g.computedGenerated {
				gc = computedGenerated(gc, t.cols)
			}
			if gc != nil {
				t.cols = append(t.cols, gc)
			}
		}
	}
	for _, c := range t.cols {
		if c.kind != kJSON && c.kind != kGeometry && c.kind != kText && c.kind != kBlob && c.kind != kVector && c.gen == "" && g.chance(0.1) {
			t.index = []string{c.name}
			break
		}
	}
	for _, c := range t.cols {
		if (c.kind == kText || c.kind == kBlob) && g.chance(0.2) {
			t.prefixIndex = c.name
			break
		}
	}
	return t
}

// computedGenerated replaces gc (drawn as before, so a seed's later choices stay
// what they were) by a generated column PostgreSQL computes: whether a column
// is NULL, of the first stored column whose NULL means the same on both sides
// (not a date: a zero date is NULL in PostgreSQL); nil when there is none.
func computedGenerated(gc *fzCol, cols []*fzCol) *fzCol {
	for _, c := range cols {
		switch c.kind {
		case kDate, kDatetime, kTimestamp, kEnum, kJSON, kGeometry:
			continue
		}
		if c.gen != "" {
			continue
		}
		kind := "VIRTUAL"
		if strings.HasSuffix(gc.gen, "STORED") {
			kind = "STORED"
		}
		return &fzCol{name: gc.name, kind: kInt, intBits: 64, typ: "BIGINT", gen: "(" + qi(c.name) + " IS NULL) " + kind}
	}
	return nil
}

// create is the table's CREATE TABLE.
func (t *fzTable) create() string {
	var parts []string
	for _, c := range t.cols {
		parts = append(parts, c.definition())
	}
	if len(t.pk) > 0 {
		parts = append(parts, "PRIMARY KEY ("+quoteList(t.pk)+")")
	}
	if len(t.unique) > 0 {
		parts = append(parts, "UNIQUE KEY ("+quoteList(t.unique)+")")
	}
	if len(t.index) > 0 {
		parts = append(parts, "KEY ("+quoteList(t.index)+")")
	}
	if t.prefixIndex != "" {
		parts = append(parts, "KEY ("+qi(t.prefixIndex)+"(10))")
	}
	return "CREATE TABLE " + qi(t.name) + " (\n  " + strings.Join(parts, ",\n  ") + "\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4"
}

func (c *fzCol) definition() string {
	d := qi(c.name) + " " + c.typ
	if c.gen != "" {
		return d + " AS " + c.gen
	}
	if c.notNull {
		d += " NOT NULL"
	} else if c.kind == kTimestamp {
		d += " NULL"
	}
	if c.autoInc {
		d += " AUTO_INCREMENT"
	}
	if c.hidden {
		d += " INVISIBLE"
	}
	if c.def != "" {
		d += " " + c.def
	}
	return d
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = qi(n)
	}
	return strings.Join(q, ", ")
}

func (t *fzTable) col(name string) *fzCol {
	for _, c := range t.cols {
		if c.name == name {
			return c
		}
	}
	return nil
}

// writable are the columns an INSERT names.
func (t *fzTable) writable() []*fzCol {
	var out []*fzCol
	for _, c := range t.cols {
		if c.gen == "" {
			out = append(out, c)
		}
	}
	return out
}

// value is a SQL expression of a random value for c, edges often.
func (g *fzGen) value(c *fzCol) string {
	if !c.notNull && g.chance(0.1) {
		return "NULL"
	}
	if c.def != "" && g.chance(0.05) {
		return "DEFAULT"
	}
	switch c.kind {
	case kInt:
		if c.autoInc && g.chance(0.5) {
			return "NULL"
		}
		bits := c.intBits
		if strings.HasSuffix(c.typ, "(1)") && g.chance(0.5) {
			return pick(g, []string{"0", "1"})
		}
		if c.unsigned {
			max := strconv.FormatUint(1<<bits-1, 10)
			if bits == 64 {
				max = "18446744073709551615"
			}
			return pick(g, []string{"0", "1", max, strconv.FormatUint(g.rng.Uint64()>>(64-bits), 10), strconv.Itoa(g.n(1000))})
		}
		lo := strconv.FormatInt(-1<<(bits-1), 10)
		hi := strconv.FormatInt(1<<(bits-1)-1, 10)
		return pick(g, []string{"0", "-1", lo, hi, strconv.FormatInt(int64(g.rng.Uint64())>>(64-bits), 10), strconv.Itoa(g.n(1000))})
	case kDecimal:
		ints, frac := c.prec-c.scale, c.scale
		digits := func(n int, nine bool) string {
			var b strings.Builder
			for range n {
				if nine {
					b.WriteByte('9')
				} else {
					b.WriteByte(byte('0' + g.n(10)))
				}
			}
			return b.String()
		}
		nine := g.chance(0.3)
		s := digits(g.n(ints+1), nine)
		if nine {
			s = digits(ints, true)
		}
		if s == "" {
			s = "0"
		}
		if frac > 0 {
			s += "." + digits(1+g.n(frac), nine)
			if nine {
				s = strings.SplitN(s, ".", 2)[0] + "." + digits(frac, true)
			}
		}
		if !c.unsigned && g.chance(0.4) {
			s = "-" + s
		}
		return s
	case kFloat:
		return pick(g, []string{"0", "-0.0", "0.1", "3.4028234e38", "-3.4028234e38", "1.17549435e-38", "-1.17549435e-38", "123456789",
			strconv.FormatFloat(float64(float32(g.rng.NormFloat64()*1e6)), 'g', -1, 32)})
	case kDouble:
		return pick(g, []string{"0", "-0e0", "0.1e0+0.2e0", "1.7976931348623157e308", "-1.7976931348623157e308", "5e-324", "2.2250738585072014e-308",
			"1e0/3", strconv.FormatFloat(g.rng.NormFloat64()*1e12, 'g', -1, 64)})
	case kBit:
		var b strings.Builder
		for range c.intBits {
			b.WriteByte(byte('0' + g.n(2)))
		}
		return pick(g, []string{"b'" + b.String() + "'", "b'" + strings.Repeat("1", c.intBits) + "'", "0", "1"})
	case kYear:
		return pick(g, []string{"0", "1901", "2155", "2000", "69", strconv.Itoa(1901 + g.n(255))})
	case kDate:
		if c.key {
			return g.date()
		}
		return pick(g, []string{"'0000-00-00'", "'2020-00-15'", "'2020-05-00'", "'1000-01-01'", "'9999-12-31'", "'2024-02-29'", g.date()})
	case kDatetime:
		if c.key {
			return "'" + g.date()[1:11] + " " + g.clock(24) + "'"
		}
		return pick(g, []string{"'0000-00-00 00:00:00'", "'2020-00-15 01:02:03'", "'1000-01-01 00:00:00'", "'9999-12-31 23:59:59.999999'",
			"'" + g.date()[1:11] + " " + g.clock(24) + "'", "'" + g.date()[1:11] + " " + g.clock(24) + "'"})
	case kTimestamp:
		return pick(g, []string{"'0000-00-00 00:00:00'", "'1970-01-01 00:00:01'", "'2038-01-19 03:14:07.999999'",
			g.lateTimestamp, // out of range, with a fraction: MariaDB keeps 0 s + the fraction
			fmt.Sprintf("'%04d-%02d-%02d %s'", 1971+g.n(66), 1+g.n(12), 1+g.n(28), g.clock(24))})
	case kTime:
		sign := pick(g, []string{"", "-"})
		return pick(g, []string{"'-838:59:59'", "'838:59:59'", "'-838:59:59.000000'", "'838:59:59.999999'", "'-00:00:00.5'", "'00:00:00'",
			"'" + sign + g.clock(839) + "'"})
	case kChar, kVarchar, kText, kJSON:
		if c.kind == kJSON {
			return g.json()
		}
		s := g.text(c)
		if c.charset == "binary" {
			return "x'" + hex.EncodeToString([]byte(s)) + "'"
		}
		return "_utf8mb4 x'" + hex.EncodeToString([]byte(s)) + "'"
	case kBinary, kVarbinary, kBlob:
		n := g.n(c.maxLen(40) + 1)
		if g.chance(0.03) && c.prec == 0 {
			n = 100000 + g.n(200000)
		}
		b := make([]byte, n)
		for i := range b {
			b[i] = pick(g, []byte{0, 0xff, 0x80, 0xc3, 'a', ' ', '\\', '\'', byte(g.n(256))})
		}
		return "x'" + hex.EncodeToString(b) + "'"
	case kEnum:
		if g.chance(0.1) {
			return pick(g, []string{"'not a member'", "0", "1"})
		}
		return sqlString(pick(g, c.members))
	case kSet:
		var ms []string
		for _, m := range c.members {
			if g.chance(0.4) {
				ms = append(ms, m)
			}
		}
		return sqlString(strings.Join(ms, ","))
	case kVector:
		return g.vectorValue(c.prec)
	case kGeometry:
		switch {
		case c.typ == "POINT" || c.typ == "GEOMETRY" && g.chance(0.5):
			return fmt.Sprintf("ST_GeomFromText('POINT(%d %d.5)')", g.n(200)-100, g.n(100))
		default:
			return fmt.Sprintf("ST_GeomFromText('LINESTRING(0 0, %d %d, -1.25 3e5)')", g.n(100), g.n(100))
		}
	}
	return "NULL"
}

// vectorValue is a VECTOR(n) value: floats of every size, negative zero, edges of float32
// (VEC_FromText takes no exponent notation).
func (g *fzGen) vectorValue(n int) string {
	vs := make([]string, n)
	for i := range vs {
		f := float32(g.rng.NormFloat64() * math.Pow(10, float64(g.n(12)-4)))
		vs[i] = pick(g, []string{"0", "-0", "1", "-1.5", "0.1", "65504.5", "16777217", "0.000001",
			strconv.FormatFloat(float64(f), 'f', -1, 32)})
	}
	return "VEC_FromText('[" + strings.Join(vs, ",") + "]')"
}

// maxLen is the characters or bytes a string of c holds, at most cap
// (cap for the large types).
func (c *fzCol) maxLen(cap int) int {
	if c.prec == 0 && (c.kind == kText || c.kind == kBlob) {
		return cap
	}
	if c.kind == kText || c.kind == kBlob {
		return min(cap, c.prec/4)
	}
	return min(cap, c.prec)
}

func (g *fzGen) date() string {
	return fmt.Sprintf("'%04d-%02d-%02d'", 1000+g.n(9000), 1+g.n(12), 1+g.n(28))
}

func (g *fzGen) clock(maxHours int) string {
	s := fmt.Sprintf("%02d:%02d:%02d", g.n(maxHours), g.n(60), g.n(60))
	if g.chance(0.5) {
		s += "." + strconv.Itoa(100000 + g.n(900000))[:1+g.n(6)]
	}
	return s
}

// text is a random string for a text column: empty, edge characters (NUL,
// quotes, backslashes, trailing spaces, 4-byte emoji when the charset has
// them, Latin-1 letters), sometimes long.
func (g *fzGen) text(c *fzCol) string {
	pieces := []string{"a", "B", " ", "\x00", "\\", "'", "\"", "é", "ÿ", "%", "_", "\t", "\n", "x"}
	if c.charset == "utf8mb4" || c.charset == "utf8mb3" {
		pieces = append(pieces, "数", "ж", "€")
	}
	if c.charset == "utf8mb4" || c.charset == "utf16" {
		pieces = append(pieces, "😀", "𝄞")
	}
	if c.charset == "binary" {
		pieces = append(pieces, "\xff", "\x80\x81")
	}
	if c.key {
		pieces = slices.DeleteFunc(pieces, func(p string) bool { return p == "\x00" })
	}
	if g.chance(0.1) {
		return ""
	}
	n := 1 + g.n(max(1, c.maxLen(30)))
	if c.prec == 0 && g.chance(0.03) {
		n = 20000 + g.n(40000)
	}
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(pick(g, pieces))
	}
	s := b.String()
	if g.chance(0.2) {
		s = truncRunes(s, max(0, c.maxLen(30)-2)) + "  "
	}
	return truncRunes(s, c.maxLen(1<<20))
}

func truncRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

// json is a random document: nested, unicode escapes, big and small
// numbers, quotes; sometimes large.
func (g *fzGen) json() string {
	doc := g.jsonValue(3)
	if g.chance(0.05) {
		parts := make([]string, 500+g.n(2000))
		for i := range parts {
			parts[i] = g.jsonValue(1)
		}
		doc = "[" + strings.Join(parts, ",") + "]"
	}
	return "_utf8mb4 x'" + hex.EncodeToString([]byte(doc)) + "'"
}

func (g *fzGen) jsonValue(depth int) string {
	switch r := g.n(10); {
	case depth > 0 && r < 2:
		n := g.n(4)
		var kv []string
		for i := range n {
			kv = append(kv, fmt.Sprintf("%s: %s", pick(g, []string{`"k"`, `"ü"`, `"a b"`, `"\u00e9t\u00e9"`, `""`, `"key` + strconv.Itoa(i) + `"`}), g.jsonValue(depth-1)))
		}
		return "{" + strings.Join(kv, ", ") + "}"
	case depth > 0 && r < 4:
		n := g.n(4)
		var vs []string
		for range n {
			vs = append(vs, g.jsonValue(depth-1))
		}
		return "[" + strings.Join(vs, ",") + "]"
	case r < 6:
		return pick(g, []string{"0", "-1", "1.5", "1e300", "-1.5e-300", "12345678901234567890123", "18446744073709551615",
			"9223372036854775807", "-9223372036854775808", "0.1", "100", "3.0", "-0"})
	case r < 8:
		return pick(g, []string{`"plain"`, `"\u00e9\u4e2d"`, `"\ud83d\ude00"`, `"quote \" back \\ slash"`, `""`, `"tab\tnl\n"`, `"😀 raw"`, `"\u0001"`})
	default:
		return pick(g, []string{"true", "false", "null"})
	}
}

// seedRows is the statements that fill a new table before the migration.
func (g *fzGen) seedRows(t *fzTable) []string {
	var out []string
	for range 1 + g.n(4) {
		out = append(out, g.insert(t, 1+g.n(20)))
	}
	return out
}

// insert is a (multi-row) INSERT, INSERT IGNORE or REPLACE of rows rows.
func (g *fzGen) insert(t *fzTable, rows int) string {
	cols := t.writable()
	var tuples []string
	for range rows {
		vals := make([]string, len(cols))
		for i, c := range cols {
			vals[i] = g.value(c)
		}
		tuples = append(tuples, "("+strings.Join(vals, ", ")+")")
		if len(t.pk) > 0 {
			var conds []string
			for _, k := range t.pk {
				for i, c := range cols {
					if c.name == k && vals[i] != "NULL" && vals[i] != "DEFAULT" {
						conds = append(conds, qi(k)+" = "+vals[i])
					}
				}
			}
			if len(conds) == len(t.pk) {
				t.keys = append(t.keys, strings.Join(conds, " AND "))
			}
		}
	}
	verb := pick(g, []string{"INSERT", "INSERT", "INSERT IGNORE", "REPLACE"})
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.name
	}
	return verb + " INTO " + qi(t.name) + " (" + quoteList(names) + ") VALUES " + strings.Join(tuples, ", ")
}

// where picks rows of t: a key written earlier, a range of an integer id,
// or (no key) LIMIT n.
func (g *fzGen) where(t *fzTable) string {
	if len(t.pk) == 1 {
		if c := t.col(t.pk[0]); c.autoInc && (len(t.keys) == 0 || g.chance(0.5)) {
			lo := 1 + g.n(60)
			return fmt.Sprintf(" WHERE %s BETWEEN %d AND %d", qi(c.name), lo, lo+g.n(3))
		}
	}
	if len(t.pk) > 0 && len(t.keys) > 0 {
		return " WHERE " + pick(g, t.keys)
	}
	return fmt.Sprintf(" LIMIT %d", 1+g.n(3))
}

func (g *fzGen) update(t *fzTable) string {
	cols := t.writable()
	var sets []string
	for range 1 + g.n(3) {
		c := pick(g, cols)
		if c.autoInc && g.chance(0.7) {
			continue
		}
		v := g.value(c)
		if c.autoInc && v == "NULL" {
			v = strconv.Itoa(1000 + g.n(100000))
		}
		sets = append(sets, qi(c.name)+" = "+v)
	}
	if len(sets) == 0 {
		c := cols[len(cols)-1]
		sets = append(sets, qi(c.name)+" = "+qi(c.name))
	}
	return "UPDATE " + qi(t.name) + " SET " + strings.Join(sets, ", ") + g.where(t)
}

func (g *fzGen) delete(t *fzTable) string {
	return "DELETE FROM " + qi(t.name) + g.where(t)
}

// txn is one source transaction: one to four statements on any tables.
func (g *fzGen) txn() []string {
	var out []string
	for range 1 + g.n(4) {
		t := pick(g, g.tables)
		switch r := g.n(12); {
		case r == 10: // an UPDATE that changes nothing (identical row images)
			c := pick(g, t.writable())
			out = append(out, "UPDATE "+qi(t.name)+" SET "+qi(c.name)+" = "+qi(c.name)+g.where(t))
		case r == 11: // rows copied within the table, or upserted
			if len(t.pk) > 0 && g.chance(0.5) {
				ins := g.insert(t, 1+g.n(3))
				ins = strings.Replace(strings.Replace(ins, "REPLACE INTO", "INSERT INTO", 1), "INSERT IGNORE", "INSERT", 1)
				c := pick(g, t.writable())
				out = append(out, ins+" ON DUPLICATE KEY UPDATE "+qi(c.name)+" = VALUES("+qi(c.name)+")")
				continue
			}
			out = append(out, g.update(t))
		case r < 5:
			out = append(out, g.insert(t, 1+g.n(5)))
		case r < 8:
			out = append(out, g.update(t))
		default:
			out = append(out, g.delete(t))
		}
	}
	return out
}

// noNowDefault keeps an added column's existing rows comparable: MySQL gives
// them the ALTER's current time, PostgreSQL its own (a documented, warned
// difference of DDL replication: "rows that exist get the target's current
// time"), so an added column's time default is a literal.
func noNowDefault(c *fzCol) {
	if strings.Contains(c.def, "CURRENT_TIMESTAMP") {
		c.def = "DEFAULT '2001-02-03 04:05:06'"
	}
}

// ddl is a random schema change and the change of the model once the
// source accepted it.
func (g *fzGen) ddl() (string, func()) {
	t := pick(g, g.tables)
	referenced := func(c *fzCol) bool {
		if slices.Contains(t.pk, c.name) || slices.Contains(t.unique, c.name) || slices.Contains(t.index, c.name) || c.autoInc || c.name == t.prefixIndex {
			return true
		}
		for _, o := range t.cols {
			if strings.Contains(o.gen, qi(c.name)) {
				return true
			}
		}
		return false
	}
	for {
		switch g.n(9) {
		case 5: // RENAME COLUMN
			var cands []*fzCol
			for _, c := range t.cols {
				if !referenced(c) && c.gen == "" {
					cands = append(cands, c)
				}
			}
			if len(cands) == 0 {
				continue
			}
			c := pick(g, cands)
			name := g.name("r")
			return "ALTER TABLE " + qi(t.name) + " RENAME COLUMN " + qi(c.name) + " TO " + qi(name), func() { c.name = name }
		case 6: // MODIFY to another type: an integer to DECIMAL, DATE to DATETIME, VARCHAR to TEXT
			for _, c := range t.cols {
				if referenced(c) || c.gen != "" {
					continue
				}
				n := *c
				switch c.kind {
				case kInt:
					n.kind, n.prec, n.scale, n.typ = kDecimal, 25, 2, "DECIMAL(25,2)"
				case kDate:
					// Not DATETIME → TIMESTAMP: MySQL makes the values outside
					// TIMESTAMP's range zero, PostgreSQL's ALTER TYPE keeps them
					// (found by seeds 317 and 318, left: README "Not yet").
					n.kind, n.typ = kDatetime, "DATETIME"
					n.def = ""
				case kVarchar:
					n.kind, n.prec = kText, 65535
					n.typ = strings.Replace(c.typ, fmt.Sprintf("VARCHAR(%d)", c.prec), "TEXT", 1)
					n.def = ""
				default:
					continue
				}
				return "ALTER TABLE " + qi(t.name) + " MODIFY COLUMN " + n.definition(), func() { *c = n }
			}
		case 7: // ADD COLUMN ... AFTER, with a default
			c := g.column(false)
			c.def = g.defaultFor(c)
			noNowDefault(c)
			if (c.kind == kJSON || c.kind == kGeometry) && g.maxName < 64 {
				c.notNull = false
			}
			after := pick(g, t.cols)
			return "ALTER TABLE " + qi(t.name) + " ADD COLUMN " + c.definition() + " AFTER " + qi(after.name), func() {
				i := slices.Index(t.cols, after)
				t.cols = slices.Insert(t.cols, i+1, c)
			}
		case 8: // TRUNCATE, rarely
			if g.chance(0.7) {
				continue
			}
			return "TRUNCATE TABLE " + qi(t.name), func() { t.keys = nil }
		case 0: // ADD COLUMN
			c := g.column(false)
			if g.chance(0.5) && !c.notNull {
				c.def = g.defaultFor(c)
			}
			if (c.kind == kJSON || c.kind == kGeometry) && g.maxName < 64 {
				// PostgreSQL has no value for the rows that exist (MySQL's
				// empty JSON/geometry): replication refuses the statement.
				c.notNull = false
			}
			noNowDefault(c)
			pos := ""
			if g.chance(0.3) {
				pos = " FIRST"
			}
			return "ALTER TABLE " + qi(t.name) + " ADD COLUMN " + c.definition() + pos, func() {
				if pos != "" {
					t.cols = append([]*fzCol{c}, t.cols...)
				} else {
					t.cols = append(t.cols, c)
				}
			}
		case 1: // DROP COLUMN
			var cands []*fzCol
			for _, c := range t.cols {
				if !referenced(c) {
					cands = append(cands, c)
				}
			}
			if len(cands) == 0 || len(t.cols) < 2 {
				continue
			}
			c := pick(g, cands)
			return "ALTER TABLE " + qi(t.name) + " DROP COLUMN " + qi(c.name), func() {
				t.cols = slices.DeleteFunc(t.cols, func(o *fzCol) bool { return o == c })
			}
		case 2: // MODIFY COLUMN: a wider type
			var cands []*fzCol
			for _, c := range t.cols {
				// Not, into PostgreSQL, of a column a computed generated column reads:
				// PostgreSQL cannot change its type (docs/versions.md, "Not done yet").
				if g.computedGenerated && slices.ContainsFunc(t.cols, func(o *fzCol) bool { return strings.Contains(o.gen, qi(c.name)) }) {
					continue
				}
				if c.gen == "" && !c.autoInc && (c.kind == kInt && c.intBits < 64 || c.kind == kVarchar || c.kind == kDecimal && c.prec < 65) {
					cands = append(cands, c)
				}
			}
			if len(cands) == 0 {
				continue
			}
			c := pick(g, cands)
			n := *c
			switch c.kind {
			case kInt:
				n.intBits, n.typ = 64, "BIGINT"
				if c.unsigned {
					n.typ += " UNSIGNED"
				}
			case kVarchar:
				n.prec = c.prec + 50
				n.typ = strings.Replace(c.typ, fmt.Sprintf("VARCHAR(%d)", c.prec), fmt.Sprintf("VARCHAR(%d)", n.prec), 1)
			case kDecimal:
				n.prec = min(65, c.prec+3)
				n.typ = strings.Replace(c.typ, fmt.Sprintf("DECIMAL(%d,", c.prec), fmt.Sprintf("DECIMAL(%d,", n.prec), 1)
			}
			return "ALTER TABLE " + qi(t.name) + " MODIFY COLUMN " + n.definition(), func() { *c = n }
		case 3: // ADD INDEX
			for _, c := range t.cols {
				if (c.kind == kInt || c.kind == kVarchar || c.kind == kDate || c.kind == kDatetime || c.kind == kDecimal) && !referenced(c) {
					name := g.name("ix")
					return "ALTER TABLE " + qi(t.name) + " ADD INDEX " + qi(name) + " (" + qi(c.name) + ")", func() { t.index = []string{c.name} }
				}
			}
		default: // RENAME TABLE
			name := g.name("t")
			return "RENAME TABLE " + qi(t.name) + " TO " + qi(name), func() { t.name = name }
		}
	}
}
