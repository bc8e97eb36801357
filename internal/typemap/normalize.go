package typemap

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strconv"
)

// VerifyExprs returns, for verify's chunk hashes and row comparison, a
// MySQL and a PostgreSQL SQL expression that give the same text (NULL for
// NULL) for a source value and the value sluice wrote for it, applying the
// same policies (zero dates, NUL characters). my and pg are the column's
// quoted names on each side (MySQL expressions assume the session
// time_zone '+00:00' and connection charset utf8mb4, as sluice's sessions
// have). comparable is false for kinds no pair of SQL expressions
// normalises identically (JSON: compare CanonicalJSON of both texts in Go;
// geometry with PostGIS): the expressions then return the raw text of each
// side. docs/types.md explains each rule.
func (c *ColumnConv) VerifyExprs(my, pg string) (mysqlExpr, pgExpr string, comparable bool) {
	switch c.Kind {
	case KindInt, KindYear, KindUint64, KindDecimal:
		// + 0 drops ZEROFILL padding; DECIMAL and numeric(p,s) both print the scale.
		if c.Column.Zerofill || c.Kind == KindYear { // YEAR prints 0 as 0000
			return "CAST(" + my + " + 0 AS CHAR)", pg + "::text", true
		}
		return "CAST(" + my + " AS CHAR)", pg + "::text", true
	case KindFloat32, KindFloat64:
		// Both engines print the shortest round-trip digits, in different
		// layouts. Below 1e30 both convert those digits to DECIMAL(65,30)
		// exactly; above, both print scientific notation, PostgreSQL with "e+".
		d := "CAST(" + my + " AS DOUBLE)"
		return "IF(ABS(" + d + ") < 1e30, CAST(CAST(" + d + " AS DECIMAL(65,30)) AS CHAR), CAST(" + d + " AS CHAR))",
			"CASE WHEN abs(" + pg + "::float8) < 1e30 THEN " + pg + "::float8::text::numeric(65,30)::text ELSE replace(" + pg + "::float8::text, 'e+', 'e') END",
			true
	case KindBit:
		return "LPAD(BIN(" + my + "), " + strconv.Itoa(bitWidth(c.Column)) + ", '0')", pg + "::text", true
	case KindDate:
		return c.zeroDateExpr(my, "DATE_FORMAT("+my+", '%Y-%m-%d')"),
			"CASE WHEN isfinite(" + pg + ") THEN to_char(" + pg + ", 'YYYY-MM-DD') ELSE " + pg + "::text END", true
	case KindDateTime:
		return c.zeroDateExpr(my, "DATE_FORMAT("+my+", '%Y-%m-%d %H:%i:%s.%f')"),
			"CASE WHEN isfinite(" + pg + ") THEN to_char(" + pg + ", 'YYYY-MM-DD HH24:MI:SS.US') ELSE " + pg + "::text END", true
	case KindTimestamp:
		return c.zeroDateExpr(my, "DATE_FORMAT("+my+", '%Y-%m-%d %H:%i:%s.%f')"),
			"CASE WHEN isfinite(" + pg + ") THEN to_char(" + pg + " AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') ELSE " + pg + "::text END", true
	case KindTime:
		// Signed microseconds.
		return "CAST(ROUND(TIME_TO_SEC(" + my + ") * 1000000) AS SIGNED)",
			"(extract(epoch FROM " + pg + ") * 1000000)::bigint::text", true
	case KindText:
		return c.nulExpr("CONVERT(" + my + " USING utf8mb4)"), pg, true
	case KindEnum, KindSet:
		return "CONVERT(" + my + " USING utf8mb4)", pg, true
	case KindBinary:
		return "LOWER(HEX(" + my + "))", "encode(" + pg + ", 'hex')", true
	case KindGeometry:
		if c.PGType == "bytea" {
			return "LOWER(HEX(" + my + "))", "encode(" + pg + ", 'hex')", true
		}
		return "LOWER(HEX(" + my + "))", "encode(ST_AsEWKB(" + pg + "), 'hex')", false
	case KindUUID:
		return "CAST(" + my + " AS CHAR)", pg + "::text", true
	case KindInet:
		return "CAST(" + my + " AS CHAR)", "host(" + pg + ")", true
	}
	return "CONVERT(" + my + " USING utf8mb4)", pg + "::text", false // KindJSON
}

// zeroDateExpr maps MySQL's zero, partial-zero dates to what the policy
// wrote (NULL or '-infinity'). MONTH() and DAYOFMONTH() return 0 for them.
func (c *ColumnConv) zeroDateExpr(my, formatted string) string {
	zero := "'-infinity'"
	policy := c.zeroPolicy
	if policy == "" || policy == ZeroDateNull {
		if c.Column.Nullable {
			zero = "NULL"
		}
	}
	return "IF(MONTH(" + my + ") = 0 OR DAYOFMONTH(" + my + ") = 0, " + zero + ", " + formatted + ")"
}

// nulExpr applies the NUL policy to a MySQL text expression.
func (c *ColumnConv) nulExpr(e string) string {
	switch c.nulPolicy {
	case NulReplace:
		return "REPLACE(" + e + ", CHAR(0 USING utf8mb4), '\uFFFD')"
	case NulError:
		return e
	}
	return "REPLACE(" + e + ", CHAR(0 USING utf8mb4), '')"
}

// CanonicalJSON returns a JSON text in one canonical form (object keys
// sorted, duplicate keys reduced to the last, no insignificant whitespace,
// numbers by value: 1.0, 1 and 1e0 are equal), so the text MySQL returns
// and jsonb's text compare equal when they hold the same document.
func CanonicalJSON(text []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := writeCanonical(&b, v); err != nil {
		return "", err
	}
	return b.String(), nil
}

func writeCanonical(b *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			b.Write(kb)
			b.WriteByte(':')
			if err := writeCanonical(b, x[k]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeCanonical(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case json.Number:
		r, ok := new(big.Rat).SetString(string(x))
		if !ok {
			return fmt.Errorf("JSON number %q", x)
		}
		b.WriteString(r.RatString())
	default:
		out, err := json.Marshal(x)
		if err != nil {
			return err
		}
		b.Write(out)
	}
	return nil
}
