package ddl

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/sqlexpr"
	"github.com/sluice-db/sluice/internal/typemap"
)

// typeChange is how an existing column's values move to a new type.
type typeChange struct {
	pgOld, pgNew string
	kOld, kNew   typemap.Kind
	old, nw      *schema.Column
	flavor       string
}

// using returns the USING expression of ALTER COLUMN ... TYPE for the
// change, "" when no statement is needed, or an error when PostgreSQL
// cannot produce the values MySQL produced.
func (tc typeChange) using(col string) (string, error) {
	if tc.kOld == tc.kNew {
		return tc.sameKind(col)
	}
	numeric := func(k typemap.Kind) bool {
		switch k {
		case typemap.KindInt, typemap.KindUint64, typemap.KindDecimal, typemap.KindFloat32, typemap.KindFloat64:
			return true
		}
		return false
	}
	textual := func(k typemap.Kind) bool {
		return k == typemap.KindText || k == typemap.KindEnum || k == typemap.KindSet
	}
	o, n := tc.kOld, tc.kNew
	switch {
	case numeric(o) && numeric(n):
		if (o == typemap.KindFloat32 || o == typemap.KindFloat64) && !(n == typemap.KindFloat32 || n == typemap.KindFloat64) {
			return "round(" + col + "::numeric)::" + tc.pgNew, nil // MySQL rounds half away from zero
		}
		return col + "::" + tc.pgNew, nil
	case o == typemap.KindYear && numeric(n):
		return col + "::" + tc.pgNew, nil
	case numeric(o) && textual(n) && n != typemap.KindSet:
		if o == typemap.KindFloat32 || o == typemap.KindFloat64 {
			return "", tc.refuse("floating-point values print differently in the two databases")
		}
		return col + "::" + tc.pgNew, nil
	case o == typemap.KindEnum && numeric(n):
		return tc.enumIndex(col), nil
	case textual(o) && (numeric(n) || n == typemap.KindDate || n == typemap.KindDateTime ||
		n == typemap.KindJSON || n == typemap.KindUUID || n == typemap.KindInet):
		return col + "::" + tc.pgNew, nil
	case textual(o) && textual(n):
		return col + "::" + tc.pgNew, nil
	case textual(o) && n == typemap.KindBinary && tc.nw.DataType != "binary":
		enc, err := pgEncoding(tc.old.Charset)
		if err != nil {
			return "", tc.refuse("%v", err)
		}
		return "convert_to(" + col + ", " + sqlexpr.QuotePG(enc) + ")", nil
	case o == typemap.KindBinary && textual(n):
		enc, err := pgEncoding(tc.nw.Charset)
		if err != nil {
			return "", tc.refuse("%v", err)
		}
		return "convert_from(" + col + ", " + sqlexpr.QuotePG(enc) + ")", nil
	case o == typemap.KindDate && n == typemap.KindDateTime:
		return col + "::" + tc.pgNew, nil
	case o == typemap.KindDateTime && n == typemap.KindDate:
		return col + "::date", nil
	case (o == typemap.KindDateTime && n == typemap.KindTimestamp) || (o == typemap.KindTimestamp && n == typemap.KindDateTime):
		// MySQL reads the wall clock in the ALTER's session time zone, which
		// the statement does not carry: sluice takes UTC, the zone it reads
		// TIMESTAMPs in (docs/schema.md).
		v := "(" + col + " AT TIME ZONE '" + changeTimeZone + "')"
		if tc.nw.FracDigits < tc.old.FracDigits {
			v = "(" + tc.reducePrecision(v) + ")"
		}
		return v + "::" + tc.pgNew, nil
	case (o == typemap.KindInt || o == typemap.KindDecimal) && n == typemap.KindBit:
		return col + "::bigint::" + tc.pgNew, nil
	case o == typemap.KindBit && (n == typemap.KindInt || n == typemap.KindDecimal) && tc.old.Precision < 64:
		return col + "::bigint::" + tc.pgNew, nil
	}
	return "", tc.refuse("no faithful conversion from %s to %s in PostgreSQL", o, n)
}

// changeTimeZone is the zone DATETIME ↔ TIMESTAMP changes assume the
// source session had.
const changeTimeZone = "UTC"

// zoneChange reports whether the change is DATETIME ↔ TIMESTAMP.
func (tc typeChange) zoneChange() bool {
	return (tc.kOld == typemap.KindDateTime && tc.kNew == typemap.KindTimestamp) ||
		(tc.kOld == typemap.KindTimestamp && tc.kNew == typemap.KindDateTime)
}

func (tc typeChange) refuse(format string, args ...any) error {
	return fmt.Errorf("column %s: type %s → %s: %s", tc.old.Name, typeLabel(tc.old), typeLabel(tc.nw),
		fmt.Sprintf(format, args...))
}

func (tc typeChange) sameKind(col string) (string, error) {
	switch tc.kOld {
	case typemap.KindDateTime, typemap.KindTimestamp, typemap.KindTime:
		if tc.nw.FracDigits < tc.old.FracDigits {
			return tc.reducePrecision(col), nil
		}
	case typemap.KindBit:
		if tc.pgOld == tc.pgNew {
			return "", nil
		}
		w := strconv.Itoa(bitWidthOf(tc.nw))
		if bitWidthOf(tc.nw) >= bitWidthOf(tc.old) {
			return "lpad(" + col + "::text, " + w + ", '0')::bit(" + w + ")", nil // BIT is a number: pad on the left
		}
		return "right(" + col + "::text, " + w + ")::bit(" + w + ")", nil
	case typemap.KindJSON:
		return "", nil
	}
	if tc.pgOld == tc.pgNew {
		return "", nil
	}
	return col + "::" + tc.pgNew, nil
}

func bitWidthOf(c *schema.Column) int {
	if c.Precision <= 0 {
		return 1
	}
	return c.Precision
}

// reducePrecision drops fractional digits of a DATETIME, TIMESTAMP or TIME
// the way the source does: MariaDB truncates, MySQL rounds.
func (tc typeChange) reducePrecision(col string) string {
	p := "1" + strings.Repeat("0", 6-tc.nw.FracDigits) // microseconds per kept unit
	fn := "trunc"
	if tc.flavor == "mysql" {
		fn = "round"
	}
	return "date_trunc('second', " + col + ") + " + fn + "((extract(microseconds FROM " + col +
		")::numeric % 1000000) / " + p + ") * " + p + " * interval '1 microsecond'"
}

// enumIndex converts ENUM labels to their 1-based index, as MySQL does when
// an ENUM becomes a number (” is 0).
func (tc typeChange) enumIndex(col string) string {
	var b strings.Builder
	b.WriteString("CASE " + col)
	for i, e := range tc.old.Elements {
		b.WriteString(" WHEN " + sqlexpr.QuotePG(e) + " THEN " + strconv.Itoa(i+1))
	}
	b.WriteString(" WHEN '' THEN 0 END")
	return b.String()
}

// pgEncoding names the PostgreSQL encoding of a MySQL charset, for
// conversions between text and bytes.
func pgEncoding(cs string) (string, error) {
	switch strings.ToLower(cs) {
	case "utf8mb4", "utf8mb3", "utf8", "":
		return "UTF8", nil
	case "latin1":
		return "WIN1252", nil // MySQL's latin1 is cp1252
	case "ascii":
		return "SQL_ASCII", nil
	}
	return "", fmt.Errorf("charset %s has no PostgreSQL encoding sluice converts with", cs)
}

// typeLabel names a column's MySQL type for messages (JSON, not LONGTEXT).
func typeLabel(c *schema.Column) string {
	if c.IsJSON {
		return "json"
	}
	return c.ColumnType
}
