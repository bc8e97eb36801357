package ddl

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/sqlexpr"
	"github.com/sluice-db/sluice/internal/typemap"
)

// pgDefault translates a column's MySQL default (schema.Column.Default, in
// its canonical spelling) into a PostgreSQL DEFAULT expression. It returns ""
// when there is no default, and a reason when a default exists but has no
// faithful PostgreSQL equivalent (the caller drops it with a warning).
func pgDefault(t *schema.Table, c *schema.Column, m *typemap.Mapper) (expr, dropped string) {
	if c.Default == nil {
		return "", ""
	}
	d := *c.Default
	_, kind, err := m.PGType(*c)
	if err != nil {
		return "", err.Error()
	}
	if _, ok := schema.IsCurrentTimestamp(d); ok {
		switch kind {
		case typemap.KindTimestamp:
			return "CURRENT_TIMESTAMP", ""
		case typemap.KindDateTime:
			return "LOCALTIMESTAMP", ""
		case typemap.KindDate:
			return "CURRENT_DATE", ""
		}
		return "", "current_timestamp() on a " + c.DataType + " column"
	}
	switch {
	case schema.IsQuotedLiteral(d):
		v, _ := schema.UnquoteLiteral(d)
		return stringDefault(v, c, kind)
	case isNumber(d):
		return numberDefault(d, c, kind)
	case isBitLiteral(d):
		return bitDefault(d, c, kind)
	}
	return exprDefault(t, d, c, kind, m)
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil && !strings.ContainsAny(s, "xXnN") // not hex, Inf or NaN
}

func isBitLiteral(s string) bool {
	return len(s) >= 3 && (s[0] == 'b' || s[0] == 'B') && s[1] == '\'' && s[len(s)-1] == '\'' &&
		strings.Trim(s[2:len(s)-1], "01") == ""
}

func numberDefault(d string, c *schema.Column, kind typemap.Kind) (string, string) {
	switch kind {
	case typemap.KindInt, typemap.KindUint64, typemap.KindDecimal, typemap.KindFloat32,
		typemap.KindFloat64, typemap.KindYear:
		return d, ""
	case typemap.KindText, typemap.KindEnum, typemap.KindSet:
		return sqlexpr.QuotePG(d), ""
	case typemap.KindBit:
		n, err := strconv.ParseUint(d, 10, 64)
		if err != nil {
			return "", "bit default " + d
		}
		return bitString(strconv.FormatUint(n, 2), c), ""
	}
	return "", fmt.Sprintf("number default %s on a %s column", d, c.DataType)
}

func bitDefault(d string, c *schema.Column, kind typemap.Kind) (string, string) {
	bits := d[2 : len(d)-1]
	switch kind {
	case typemap.KindBit:
		return bitString(bits, c), ""
	case typemap.KindInt, typemap.KindUint64, typemap.KindDecimal:
		n, err := strconv.ParseUint(bits, 2, 64)
		if err != nil {
			return "", "bit default " + d
		}
		return strconv.FormatUint(n, 10), ""
	}
	return "", fmt.Sprintf("bit default %s on a %s column", d, c.DataType)
}

// bitString writes a PostgreSQL bit(n) literal, which must have exactly n digits.
func bitString(bits string, c *schema.Column) string {
	width := c.Precision
	if width <= 0 {
		width = 1
	}
	bits = strings.TrimLeft(bits, "0")
	if len(bits) < width {
		bits = strings.Repeat("0", width-len(bits)) + bits
	}
	return "B'" + bits + "'"
}

func stringDefault(v string, c *schema.Column, kind typemap.Kind) (string, string) {
	switch kind {
	case typemap.KindText, typemap.KindEnum, typemap.KindSet, typemap.KindJSON, typemap.KindUUID, typemap.KindInet:
		if strings.ContainsRune(v, 0) {
			return "", "a text default with a NUL character, which PostgreSQL text cannot hold"
		}
		return sqlexpr.QuotePG(v), ""
	case typemap.KindBinary:
		return `'\x` + hex.EncodeToString([]byte(v)) + `'::bytea`, ""
	case typemap.KindDate, typemap.KindDateTime, typemap.KindTimestamp:
		if isZeroDate(v) {
			return "", "zero date " + sqlexpr.QuotePG(v) + " (PostgreSQL has no zero dates)"
		}
		if kind == typemap.KindTimestamp {
			// information_schema shows TIMESTAMP defaults in the reading
			// session's time zone, which sluice sets to UTC.
			return sqlexpr.QuotePG(v + "+00"), ""
		}
		return sqlexpr.QuotePG(v), ""
	case typemap.KindTime:
		return sqlexpr.QuotePG(v), ""
	case typemap.KindInt, typemap.KindUint64, typemap.KindDecimal, typemap.KindFloat32,
		typemap.KindFloat64, typemap.KindYear:
		if isNumber(v) {
			return numberDefault(v, c, kind)
		}
	}
	return "", fmt.Sprintf("default %s on a %s column", schema.QuoteLiteral(v), c.DataType)
}

// isZeroDate reports whether a date/datetime literal has a zero year, month
// or day: PostgreSQL has none of these.
func isZeroDate(v string) bool {
	parts := strings.SplitN(strings.SplitN(v, " ", 2)[0], "-", 3)
	if len(parts) != 3 {
		return false
	}
	for _, p := range parts {
		if n, err := strconv.Atoi(p); err == nil && n == 0 {
			return true
		}
	}
	return false
}

// knownDefaultFuncs are MySQL default expressions with a PostgreSQL
// equivalent, by the class of column they apply to.
func knownDefault(d string, kind typemap.Kind) (string, bool) {
	switch d {
	case "uuid()":
		switch kind {
		case typemap.KindUUID:
			return "gen_random_uuid()", true
		case typemap.KindText:
			return "gen_random_uuid()::text", true
		}
	case "curdate()", "current_date()", "utc_date()":
		if kind == typemap.KindDate {
			if d == "utc_date()" {
				return "(now() AT TIME ZONE 'UTC')::date", true
			}
			return "CURRENT_DATE", true
		}
	case "utc_timestamp()":
		if kind == typemap.KindDateTime {
			return "(now() AT TIME ZONE 'UTC')", true
		}
	case "curtime()", "current_time()":
		if kind == typemap.KindTime {
			return "(LOCALTIME - TIME '00:00')", true
		}
	case "rand()":
		// MySQL's RAND() and PostgreSQL's random() are both uniform in [0, 1).
		switch kind {
		case typemap.KindFloat64, typemap.KindFloat32, typemap.KindDecimal:
			return "random()", true
		}
	case "unix_timestamp()":
		switch kind {
		case typemap.KindInt, typemap.KindUint64, typemap.KindDecimal:
			return "floor(EXTRACT(EPOCH FROM now()))", true
		}
	}
	return "", false
}

func exprDefault(t *schema.Table, d string, c *schema.Column, kind typemap.Kind, m *typemap.Mapper) (string, string) {
	if pg, ok := knownDefault(d, kind); ok {
		return pg, ""
	}
	if pg, ok := intervalDefault(d, kind); ok {
		return pg, ""
	}
	if pg, ok := jsonDefault(d, kind); ok {
		return pg, ""
	}
	x := newExprTranslator(&schema.Table{TableID: t.TableID}, m, sqlexpr.Default, schema.Naming{})
	e, err := x.translateText(d)
	if err != nil {
		return "", fmt.Sprintf("expression default %s: %v", d, err)
	}
	e = sqlexpr.ToValue(e)
	if want := sqlexpr.KindClass(kind); want == sqlexpr.Other || !sqlexpr.Fits(e.Class, want) {
		return "", fmt.Sprintf("expression default %s gives a %s for a %s column", d, e.Class, c.DataType)
	}
	return e.SQL, ""
}
