package verifydb

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/typemap"
)

// Normalisation: for every Kind, one MySQL/MariaDB expression and one
// PostgreSQL expression that print the same logical value as byte-identical
// text. Row hashes, chunk checksums and the row diff all compare these texts,
// so equal data can never look different and any change of a value (one
// digit, one bit, one microsecond, one ulp) changes its text. docs/verify.md
// lists the rules; the tests in normalize_integration_test.go run every pair
// against the real servers.
//
// Conventions of the texts:
//   - NULL is the marker nullText, which no normalised value can equal.
//   - Variable-length strings (text, ENUM, SET) are "<byte length>:<UTF-8
//     bytes>", binary values lower-case hex, so the '|' between columns of a
//     row text can never be ambiguous.
//   - JSON is not normalised in SQL: MariaDB has no function that prints a
//     document like jsonb does (JSON_NORMALIZE keeps string escapes as
//     written), so JSON values are fetched and canonicalised in Go
//     (canonicalJSON), on both sides alike.

// NullText stands for SQL NULL in row texts.
const NullText = "~"

// colSep separates the columns of a row text.
const colSep = "|"

// NormColumn is one compared column with its normalisation on both sides.
type NormColumn struct {
	Name   string // MySQL column name
	PGName string // PostgreSQL column name
	Kind   typemap.Kind
	// MySQL and PG are expressions yielding the normalised text or NULL;
	// empty for JSON, which is canonicalised in Go from Raw*.
	MySQL, PG string
	// MySQLFast is the MySQL text used inside chunk checksums: the same as
	// MySQL except that text is taken as it is, without the --nul-char
	// policy, which costs a REPLACE per value. A row whose text holds NUL
	// therefore makes its chunk differ, and the row diff, which uses MySQL,
	// then finds it equal: exact, and cheaper for the common case.
	MySQLFast string
	// NotNull columns need no COALESCE on the source.
	NotNull bool
	// MySQLRaw and PGRaw select the stored value (JSON text) for Go-side work.
	MySQLRaw, PGRaw string
	// Large values (text, binary, geometry) are fetched for the row diff as a
	// hash plus a short prefix, not whole.
	Large bool
}

// IsJSON reports whether the column is compared in Go.
func (c *NormColumn) IsJSON() bool { return c.Kind == typemap.KindJSON }

// QuotePG quotes a PostgreSQL identifier.
func QuotePG(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// NewNormColumn builds the expressions of one column from its converter.
func NewNormColumn(cc *typemap.ColumnConv, pgName string, opts typemap.Options) (*NormColumn, error) {
	c := cc.Column
	n := &NormColumn{Name: c.Name, PGName: pgName, Kind: cc.Kind}
	my, pg := schema.QuoteMySQL(c.Name), QuotePG(pgName)
	var err error
	n.MySQL, err = mysqlNorm(cc, my, opts)
	if err != nil {
		return nil, err
	}
	n.MySQLFast = n.MySQL
	n.NotNull = !c.Nullable
	switch cc.Kind {
	case typemap.KindText, typemap.KindEnum, typemap.KindSet:
		x := my
		if !isUTF8mb4(c.Charset) {
			x = "CONVERT(" + my + " USING utf8mb4)"
		}
		// CONCAT converts to utf8mb4 and does not mind differing collations.
		n.MySQLFast = "CONCAT(LENGTH(" + x + "), ':', " + x + ")"
	}
	n.PG, err = pgNorm(cc, pg, opts)
	if err != nil {
		return nil, err
	}
	switch cc.Kind {
	case typemap.KindText, typemap.KindBinary, typemap.KindGeometry:
		n.Large = true
	case typemap.KindJSON:
		n.MySQLRaw = typemap.SelectExpr(c, my)
		n.PGRaw = pg + "::text"
	}
	return n, nil
}

// mysqlNorm returns the MySQL/MariaDB expression for one column (q quoted).
// The session runs with time_zone '+00:00' (typemap.SourceSessionTimeZone).
func mysqlNorm(cc *typemap.ColumnConv, q string, opts typemap.Options) (string, error) {
	c := cc.Column
	switch cc.Kind {
	case typemap.KindInt, typemap.KindUint64, typemap.KindDecimal:
		if c.Zerofill {
			return "(" + q + "+0)", nil // drop the zero padding, keep a DECIMAL's scale
		}
		return q, nil
	case typemap.KindYear:
		return "(" + q + "+0)", nil // YEAR prints 0 as '0000'
	case typemap.KindFloat32, typemap.KindFloat64:
		if cc.Kind == typemap.KindFloat64 && c.Precision == 0 {
			// The column itself: MySQL 9 prints a double expression (ABS,
			// CAST) in at most 22 characters, so 1.9581298886825216e-177
			// lost its last digit; a DOUBLE column's own text is exact.
			return floatCanonText(mysqlDialect, q, "TRIM(LEADING '-' FROM CAST("+q+" AS CHAR))"), nil
		}
		// CAST AS DOUBLE prints the stored value exactly (FLOAT and DOUBLE(M,D)
		// otherwise print rounded), as the shortest round-trip decimal. Without
		// its sign it fits MySQL's 22 characters: only 17 digits with a
		// negative 3-digit exponent need 23, below FLOAT's range and below
		// DOUBLE(M,D)'s at most 30 decimals.
		return floatCanon(mysqlDialect, "CAST("+q+" AS DOUBLE)"), nil
	case typemap.KindBit:
		return "LPAD(BIN(" + q + "+0), " + strconv.Itoa(bitWidth(c.Precision)) + ", '0')", nil
	case typemap.KindDate:
		return mysqlZeroDate(cc, q, opts, "CAST("+q+" AS CHAR)")
	case typemap.KindDateTime, typemap.KindTimestamp:
		return mysqlZeroDate(cc, q, opts, "DATE_FORMAT("+q+", '%Y-%m-%d %H:%i:%s.%f')")
	case typemap.KindTime:
		// Signed microseconds; HOUR() etc. of a negative TIME are absolute.
		return "CONCAT(IF(" + q + " < 0, '-', ''), (HOUR(" + q + ")*3600 + MINUTE(" + q + ")*60 + SECOND(" + q +
			"))*1000000 + MICROSECOND(" + q + "))", nil
	case typemap.KindText, typemap.KindEnum, typemap.KindSet:
		return lengthPrefixed(mysqlDialect, mysqlUTF8Bytes(c.Charset, q, opts)), nil
	case typemap.KindBinary:
		return "LOWER(HEX(" + q + "))", nil
	case typemap.KindGeometry:
		if opts.PostGIS {
			return "CONCAT(ST_SRID(" + q + "), ':', LOWER(HEX(ST_AsBinary(" + q + "))))", nil
		}
		return "LOWER(HEX(" + q + "))", nil
	case typemap.KindUUID, typemap.KindInet:
		return "CAST(" + q + " AS CHAR)", nil
	case typemap.KindJSON:
		return "", nil
	}
	return "", fmt.Errorf("column %s: verify has no normalisation for kind %s", c.Name, cc.Kind)
}

// pgNorm returns the PostgreSQL expression for one column (q quoted). The
// session runs with DateStyle ISO, IntervalStyle postgres, TimeZone UTC and
// extra_float_digits 1 (see targetSessionParams).
func pgNorm(cc *typemap.ColumnConv, q string, opts typemap.Options) (string, error) {
	switch cc.Kind {
	case typemap.KindInt, typemap.KindUint64, typemap.KindDecimal, typemap.KindYear, typemap.KindBit, typemap.KindUUID:
		return q + "::text", nil
	case typemap.KindFloat32:
		return floatCanon(pgDialect, q+"::float8"), nil
	case typemap.KindFloat64:
		return floatCanon(pgDialect, q), nil
	case typemap.KindDate:
		// PostgreSQL has no year 0: MySQL's 0000-01-01 arrives as 0001-01-01 BC.
		return "CASE WHEN " + q + " >= DATE '0001-01-01' OR NOT isfinite(" + q + ") THEN " + q + "::text" +
			" ELSE to_char(extract(year FROM " + q + ")::int + 1, 'FM0000') || to_char(" + q + ", '-MM-DD') END", nil
	case typemap.KindDateTime:
		return pgTimestampText(q), nil
	case typemap.KindTimestamp:
		return pgTimestampText("(" + q + " AT TIME ZONE 'UTC')"), nil
	case typemap.KindTime:
		return "(extract(epoch FROM " + q + ")*1000000)::bigint::text", nil
	case typemap.KindText, typemap.KindEnum, typemap.KindSet:
		return lengthPrefixed(pgDialect, q), nil
	case typemap.KindBinary:
		return "encode(" + q + ", 'hex')", nil
	case typemap.KindGeometry:
		if opts.PostGIS {
			return "ST_SRID(" + q + ")::text || ':' || encode(ST_AsBinary(" + q + ", 'NDR'), 'hex')", nil
		}
		return "encode(" + q + ", 'hex')", nil
	case typemap.KindInet:
		return "host(" + q + ")", nil
	case typemap.KindJSON:
		return "", nil
	}
	return "", fmt.Errorf("column %s: verify has no normalisation for kind %s", cc.Column.Name, cc.Kind)
}

// pgTimestampText prints a timestamp without time zone like MySQL's
// DATE_FORMAT(..., '%Y-%m-%d %H:%i:%s.%f'), -infinity as itself.
func pgTimestampText(x string) string {
	return "CASE WHEN NOT isfinite(" + x + ") THEN " + x + "::text" +
		" WHEN " + x + " >= TIMESTAMP '0001-01-01' THEN to_char(" + x + ", 'YYYY-MM-DD HH24:MI:SS.US')" +
		" ELSE to_char(extract(year FROM " + x + ")::int + 1, 'FM0000') || to_char(" + x + ", '-MM-DD HH24:MI:SS.US') END"
}

// mysqlZeroDate wraps the text of a DATE/DATETIME/TIMESTAMP so that the
// zero, partial-zero and invalid dates the snapshot's --zero-date policy
// rewrote print as what the policy wrote: NULL, or -infinity.
func mysqlZeroDate(cc *typemap.ColumnConv, q string, opts typemap.Options, text string) (string, error) {
	var replaced string
	switch opts.ZeroDate {
	case typemap.ZeroDateNull, "":
		replaced = "NULL"
		if !cc.Column.Nullable {
			replaced = "'-infinity'"
		}
	case typemap.ZeroDateInfinity:
		replaced = "'-infinity'"
	case typemap.ZeroDateError:
		// Such a value cannot have been copied: print it as it is, so a row
		// that holds one differs from anything the target can hold.
		return text, nil
	default:
		return "", fmt.Errorf("unknown zero-date policy %q", opts.ZeroDate)
	}
	return "CASE WHEN " + q + " IS NULL THEN NULL WHEN " + MySQLZeroInDate(q) + " OR " + MySQLPastMonthEnd(q) +
		" THEN " + replaced + " ELSE " + text + " END", nil
}

// MySQLZeroInDate is typemap's zero date: a month or a day of 0.
func MySQLZeroInDate(q string) string {
	return "(MONTH(" + q + ") = 0 OR DAYOFMONTH(" + q + ") = 0)"
}

// MySQLPastMonthEnd is typemap's invalid date: a day past the end of its
// month (ALLOW_INVALID_DATES). Leap years are proleptic Gregorian.
func MySQLPastMonthEnd(q string) string {
	y, m, d := "YEAR("+q+")", "MONTH("+q+")", "DAYOFMONTH("+q+")"
	leap := "(" + y + " % 4 = 0 AND (" + y + " % 100 <> 0 OR " + y + " % 400 = 0))"
	days := "CASE " + m + " WHEN 2 THEN IF(" + leap + ", 29, 28) WHEN 4 THEN 30 WHEN 6 THEN 30 WHEN 9 THEN 30 WHEN 11 THEN 30 ELSE 31 END"
	return "(" + d + " > " + days + ")"
}

// mysqlUTF8Bytes returns the column as a binary string of its UTF-8 bytes,
// with the --nul-char policy applied as the snapshot applied it. Binary
// strings also keep CONCAT free of collation conflicts between columns.
func mysqlUTF8Bytes(charset, q string, opts typemap.Options) string {
	x := "CAST(" + q + " AS BINARY)"
	if !isUTF8mb4(charset) {
		x = "CAST(CONVERT(" + q + " USING utf8mb4) AS BINARY)"
	}
	switch opts.Nul {
	case typemap.NulStrip, "":
		x = "REPLACE(" + x + ", X'00', '')"
	case typemap.NulReplace:
		x = "REPLACE(" + x + ", X'00', X'EFBFBD')"
	}
	return x
}

// isUTF8mb4 reports whether a column's bytes are already UTF-8 as MySQL
// returns them on a utf8mb4 connection.
func isUTF8mb4(charset string) bool {
	switch strings.ToLower(charset) {
	case "utf8mb4", "binary", "":
		return true
	}
	return false
}

// dialect is what differs between the two SQL flavours in shared builders.
type dialect struct {
	text          func(x string) string // any value as text
	octetLength   func(x string) string // byte length, as text
	concat        func(parts ...string) string
	replace       func(s, from, to string) string
	splitBefore   func(s, sep string) string // part before the first sep (all of s if none)
	splitAfter    func(s, sep string) string // part after the first sep
	contains      func(s, sep string) string // boolean: sep occurs in s
	position      func(s, sep string) string // 1-based position of sep, 0 if none
	toInt         func(x string) string
	trimLeading0  func(x string) string
	trimTrailing0 func(x string) string
	length        func(x string) string // characters (the texts here are ASCII)
	ifThen        func(cond, a, b string) string
	bytes         func(x string) string // a string as bytes (MySQL: binary, so no collation applies)
	absFloatText  func(x string) string // |x| of a double as its shortest round-trip decimal
}

var mysqlDialect = dialect{
	text:          func(x string) string { return "CAST(" + x + " AS CHAR)" },
	octetLength:   func(x string) string { return "LENGTH(" + x + ")" },
	concat:        func(p ...string) string { return "CONCAT(" + strings.Join(p, ", ") + ")" },
	replace:       func(s, from, to string) string { return "REPLACE(" + s + ", " + from + ", " + to + ")" },
	splitBefore:   func(s, sep string) string { return "SUBSTRING_INDEX(" + s + ", '" + sep + "', 1)" },
	splitAfter:    func(s, sep string) string { return "SUBSTRING_INDEX(" + s + ", '" + sep + "', -1)" },
	contains:      func(s, sep string) string { return "LOCATE('" + sep + "', " + s + ") > 0" },
	position:      func(s, sep string) string { return "LOCATE('" + sep + "', " + s + ")" },
	toInt:         func(x string) string { return "CAST(" + x + " AS SIGNED)" },
	trimLeading0:  func(x string) string { return "TRIM(LEADING '0' FROM " + x + ")" },
	trimTrailing0: func(x string) string { return "TRIM(TRAILING '0' FROM " + x + ")" },
	length:        func(x string) string { return "LENGTH(" + x + ")" },
	ifThen:        func(c, a, b string) string { return "IF(" + c + ", " + a + ", " + b + ")" },
	bytes:         func(x string) string { return "CAST(" + x + " AS BINARY)" },
	absFloatText:  func(x string) string { return "CAST(ABS(" + x + ") AS CHAR)" },
}

var pgDialect = dialect{
	text:          func(x string) string { return "(" + x + ")::text" },
	octetLength:   func(x string) string { return "octet_length(" + x + ")::text" },
	concat:        func(p ...string) string { return "(" + strings.Join(p, " || ") + ")" },
	replace:       func(s, from, to string) string { return "replace(" + s + ", " + from + ", " + to + ")" },
	splitBefore:   func(s, sep string) string { return "split_part(" + s + ", '" + sep + "', 1)" },
	splitAfter:    func(s, sep string) string { return "split_part(" + s + ", '" + sep + "', 2)" },
	contains:      func(s, sep string) string { return "strpos(" + s + ", '" + sep + "') > 0" },
	position:      func(s, sep string) string { return "strpos(" + s + ", '" + sep + "')" },
	toInt:         func(x string) string { return "(" + x + ")::int" },
	trimLeading0:  func(x string) string { return "ltrim(" + x + ", '0')" },
	trimTrailing0: func(x string) string { return "rtrim(" + x + ", '0')" },
	length:        func(x string) string { return "length(" + x + ")" },
	ifThen:        func(c, a, b string) string { return "(CASE WHEN " + c + " THEN " + a + " ELSE " + b + " END)" },
	bytes:         func(x string) string { return x },
	absFloatText:  pgAbsFloatText,
}

// lengthPrefixed is "<octet length>:<value>".
func lengthPrefixed(d dialect, x string) string {
	return d.concat(d.octetLength(x), "':'", x)
}

// pgAbsFloatText is |x| as PostgreSQL's shortest round-trip decimal, or,
// where a decimal one digit shorter also reads back as the same double, that
// one. MariaDB and MySQL (like Go) accept a decimal exactly half-way to the
// next double when round-half-even reads it back as this one; PostgreSQL's
// Ryu output does not: 503389274179757568 prints as 5.0338927417975757e+17
// there and as 5.033892741797576e17 in MySQL, the same double. When such a
// boundary decimal of k digits exists, no decimal of fewer than n digits (n:
// PostgreSQL's) lies strictly between the boundaries, so the correctly
// rounded (n-1)-digit decimal (to_char's %.*e) is that boundary decimal
// padded with zeros, which floatCanon trims. Values from 1e308 up are left
// alone (rounding up could leave the double range).
func pgAbsFloatText(x string) string {
	a := "abs(" + x + ")"
	t := "(" + a + ")::text"
	n := "length(rtrim(ltrim(replace(split_part(" + t + ", 'e', 1), '.', ''), '0'), '0'))"
	c := "ltrim(to_char(" + a + ", rpad('9.', " + n + ", '9') || 'EEEE'))"
	return "(CASE WHEN " + n + " >= 2 AND " + a + " < 1e308::float8 THEN (CASE WHEN " + c + "::float8 = " + a +
		" THEN " + c + " ELSE " + t + " END) ELSE " + t + " END)"
}

// floatCanon prints a double as "[-]0.<digits>e<exponent>": the digits of
// the shortest decimal that reads back as the same double (what both
// servers print), without leading or trailing zeros, and the decimal
// exponent that puts the point before the first digit; 0 (and -0) as "0".
// The servers agree on the digits but not on the layout (PostgreSQL prints
// 1e+20 and 1e-05, MariaDB 1e20 and 0.00001), so the layout is rebuilt
// from either: mantissa m and exponent e split at 'e', then
//
//	digits   = m without '.', leading and trailing zeros
//	exponent = (digits before '.' in m) - (leading zeros) + e
func floatCanon(d dialect, x string) string {
	return floatCanonText(d, x, d.absFloatText(x))
}

// floatCanonText is floatCanon with s, the text of |x|, given.
func floatCanonText(d dialect, x, s string) string {
	m := d.splitBefore(s, "e")
	e := d.ifThen(d.contains(s, "e"), d.toInt(d.splitAfter(s, "e")), "0")
	raw := d.replace(m, "'.'", "''")
	intLen := d.ifThen(d.contains(m, "."), d.position(m, ".")+" - 1", d.length(m))
	lz := "(" + d.length(raw) + " - " + d.length(d.trimLeading0(raw)) + ")"
	digits := d.trimTrailing0(d.trimLeading0(raw))
	exp := d.text(intLen + " - " + lz + " + " + e)
	sign := d.ifThen(x+" < 0", "'-'", "''")
	return "CASE WHEN " + x + " IS NULL THEN NULL WHEN " + x + " = 0 THEN '0' ELSE " +
		d.concat(sign, "'0.'", digits, "'e'", exp) + " END"
}

func bitWidth(p int) int {
	if p <= 0 {
		return 1
	}
	return p
}
