package ddl

import (
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sluice-db/sluice/internal/schema"
)

// canonicalDefault spells a parsed DEFAULT the way the information_schema
// loader stores it (schema.Column.Default): literals converted to the
// column's type and quoted as MariaDB shows them, expressions by
// schema.FormatExpr, NULL as nil.
func canonicalDefault(c *schema.Column, e sqlparser.Expr) (*string, error) {
	var out string
	switch v := e.(type) {
	case *sqlparser.NullVal:
		return nil, nil
	case sqlparser.BoolVal:
		lit := "0"
		if v {
			lit = "1"
		}
		return literalDefault(c, &sqlparser.Literal{Type: sqlparser.IntVal, Val: lit})
	case *sqlparser.Literal:
		return literalDefault(c, v)
	case *sqlparser.UnaryExpr:
		if lit, ok := v.Expr.(*sqlparser.Literal); ok && v.Operator == sqlparser.UMinusOp &&
			(lit.Type == sqlparser.IntVal || lit.Type == sqlparser.DecimalVal || lit.Type == sqlparser.FloatVal) {
			return literalDefault(c, &sqlparser.Literal{Type: lit.Type, Val: "-" + lit.Val})
		}
		out = schema.FormatExpr(e)
	case *sqlparser.IntroducerExpr:
		return canonicalDefault(c, v.Expr)
	default:
		out = schema.FormatExpr(e)
	}
	return &out, nil
}

// literalDefault converts a literal default to the column's type.
func literalDefault(c *schema.Column, lit *sqlparser.Literal) (*string, error) {
	val, isNum, err := literalValue(lit)
	if err != nil {
		return nil, err
	}
	var out string
	switch {
	case schema.IsNumericType(c.DataType):
		out, err = numericDefault(c, val)
	case c.DataType == "bit":
		out, err = bitDefaultText(lit, val)
	case c.DataType == "date" || c.DataType == "datetime" || c.DataType == "timestamp":
		out, err = temporalDefault(c, val, isNum)
	case c.DataType == "time":
		out, err = timeDefault(c, val, isNum)
	case c.DataType == "enum":
		out, err = enumDefault(c, val, isNum)
	case c.DataType == "set":
		out, err = setDefault(c, val)
	case c.DataType == "char":
		out = schema.QuoteLiteral(strings.TrimRight(val, " "))
	case c.DataType == "binary" && int64(len(val)) < c.CharMaxLength:
		out = schema.QuoteLiteral(val + strings.Repeat("\x00", int(c.CharMaxLength)-len(val)))
	default:
		out = schema.QuoteLiteral(val)
	}
	if err != nil {
		return nil, fmt.Errorf("default %s: %w", sqlparser.String(lit), err)
	}
	return &out, nil
}

// literalValue returns a literal's value as text (hex and bit literals as
// their bytes) and whether it was written as a number.
func literalValue(lit *sqlparser.Literal) (string, bool, error) {
	switch lit.Type {
	case sqlparser.StrVal:
		return lit.Val, false, nil
	case sqlparser.IntVal, sqlparser.DecimalVal, sqlparser.FloatVal:
		return lit.Val, true, nil
	case sqlparser.HexVal, sqlparser.HexNum:
		h := strings.TrimPrefix(strings.TrimPrefix(lit.Val, "0x"), "0X")
		if len(h)%2 == 1 {
			h = "0" + h
		}
		b, err := hex.DecodeString(h)
		return string(b), false, err
	case sqlparser.BitNum:
		n, ok := new(big.Int).SetString(strings.TrimPrefix(lit.Val, "0b"), 2)
		if !ok {
			return "", false, fmt.Errorf("bad bit literal %s", lit.Val)
		}
		return string(n.Bytes()), false, nil
	case sqlparser.DateVal, sqlparser.TimeVal, sqlparser.TimestampVal:
		return lit.Val, false, nil
	}
	return "", false, fmt.Errorf("literal %s", sqlparser.String(lit))
}

// numericDefault formats a number for an integer, DECIMAL, FLOAT, DOUBLE or YEAR column.
func numericDefault(c *schema.Column, val string) (string, error) {
	r, ok := new(big.Rat).SetString(strings.TrimSpace(val))
	if !ok {
		if val == "" {
			r = new(big.Rat)
		} else {
			return "", fmt.Errorf("not a number: %q", val)
		}
	}
	switch c.DataType {
	case "decimal":
		return r.FloatString(c.Scale), nil
	case "float", "double":
		f, _ := r.Float64()
		if c.Scale > 0 || (c.Precision > 0 && c.DataType == "float") {
			return r.FloatString(c.Scale), nil
		}
		bits := 64
		if c.DataType == "float" {
			bits = 32
		}
		return formatFloat(f, bits), nil
	case "year":
		n, _ := strconv.Atoi(r.FloatString(0))
		switch {
		case n == 0:
			return "0000", nil
		case n < 70:
			n += 2000
		case n < 100:
			n += 1900
		}
		return strconv.Itoa(n), nil
	}
	return r.FloatString(0), nil // integers round half away from zero, like MySQL
}

// formatFloat writes a FLOAT/DOUBLE default as MariaDB does: the shortest
// representation, in plain notation unless the exponent is large.
func formatFloat(f float64, bits int) string {
	if f != 0 && (math.Abs(f) >= 1e15 || math.Abs(f) < 1e-15) {
		return strconv.FormatFloat(f, 'g', -1, bits)
	}
	return strconv.FormatFloat(f, 'f', -1, bits)
}

func bitDefaultText(lit *sqlparser.Literal, val string) (string, error) {
	n := new(big.Int)
	switch lit.Type {
	case sqlparser.IntVal:
		if _, ok := n.SetString(val, 10); !ok {
			return "", fmt.Errorf("bad bit default %s", val)
		}
	default:
		n.SetBytes([]byte(val))
	}
	return "b'" + n.Text(2) + "'", nil
}

// temporalDefault normalises a DATE/DATETIME/TIMESTAMP literal to
// 'YYYY-MM-DD[ HH:MM:SS[.ffffff]]' with the column's fractional digits.
func temporalDefault(c *schema.Column, val string, isNum bool) (string, error) {
	if isNum && strings.Trim(val, "0") == "" {
		val = "0000-00-00 00:00:00"
	}
	datePart, timePart, _ := strings.Cut(strings.TrimSpace(val), " ")
	if strings.Contains(datePart, "T") {
		datePart, timePart, _ = strings.Cut(datePart, "T")
	}
	ymd := strings.Split(datePart, "-")
	if len(ymd) != 3 {
		return "", fmt.Errorf("date %q not in Y-M-D form", val)
	}
	nums := make([]int, 3)
	for i, p := range ymd {
		n, err := strconv.Atoi(p)
		if err != nil {
			return "", fmt.Errorf("date %q: %w", val, err)
		}
		nums[i] = n
	}
	date := fmt.Sprintf("%04d-%02d-%02d", nums[0], nums[1], nums[2])
	if c.DataType == "date" {
		return schema.QuoteLiteral(date), nil
	}
	clock, err := clockText(timePart, c.FracDigits, false)
	if err != nil {
		return "", fmt.Errorf("datetime %q: %w", val, err)
	}
	return schema.QuoteLiteral(date + " " + clock), nil
}

func timeDefault(c *schema.Column, val string, isNum bool) (string, error) {
	if isNum {
		// a number HHMMSS
		neg := strings.HasPrefix(val, "-")
		digits := strings.TrimPrefix(val, "-")
		frac := ""
		digits, frac, _ = strings.Cut(digits, ".")
		digits = fmt.Sprintf("%06s", digits)
		val = digits[:len(digits)-4] + ":" + digits[len(digits)-4:len(digits)-2] + ":" + digits[len(digits)-2:]
		if frac != "" {
			val += "." + frac
		}
		if neg {
			val = "-" + val
		}
	}
	text, err := timeOfDayText(strings.TrimSpace(val))
	if err != nil {
		return "", fmt.Errorf("time %q: %w", val, err)
	}
	clock, err := clockText(text, c.FracDigits, true)
	if err != nil {
		return "", fmt.Errorf("time %q: %w", val, err)
	}
	return schema.QuoteLiteral(clock), nil
}

// timeOfDayText reduces the two spellings MySQL also takes for a TIME to
// [-]H:M:S: a datetime ('0000-00-00 00:00:00', '2020-01-02 10:11:12') keeps
// its time, and 'D H:M:S' counts D days as 24 hours each.
func timeOfDayText(s string) (string, error) {
	left, right, ok := strings.Cut(s, " ")
	if !ok {
		return s, nil
	}
	right = strings.TrimSpace(right)
	if strings.Contains(left, "-") && !strings.HasPrefix(left, "-") {
		return right, nil // a date and a time: MySQL keeps the time
	}
	sign := ""
	if strings.HasPrefix(left, "-") {
		sign, left = "-", left[1:]
	}
	days, err := strconv.Atoi(left)
	if err != nil {
		return "", fmt.Errorf("days %q: %w", left, err)
	}
	h, rest, _ := strings.Cut(right, ":")
	hours, err := strconv.Atoi(h)
	if err != nil {
		return "", fmt.Errorf("hours %q: %w", h, err)
	}
	out := sign + strconv.Itoa(days*24+hours)
	if rest != "" {
		out += ":" + rest
	}
	return out, nil
}

// clockText normalises [-]H:M:S[.f] to HH:MM:SS with fsp fractional digits.
func clockText(s string, fsp int, allowNeg bool) (string, error) {
	sign := ""
	if allowNeg && strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	if s == "" {
		s = "0:0:0"
	}
	whole, frac, _ := strings.Cut(s, ".")
	parts := strings.Split(whole, ":")
	for len(parts) < 3 {
		parts = append(parts, "0")
	}
	nums := make([]int, 3)
	for i, p := range parts[:3] {
		n, err := strconv.Atoi(p)
		if err != nil {
			return "", err
		}
		nums[i] = n
	}
	out := fmt.Sprintf("%s%02d:%02d:%02d", sign, nums[0], nums[1], nums[2])
	if fsp > 0 {
		frac = (frac + strings.Repeat("0", fsp))[:fsp]
		out += "." + frac
	}
	return out, nil
}

func enumDefault(c *schema.Column, val string, isNum bool) (string, error) {
	if isNum {
		n, err := strconv.Atoi(val)
		if err != nil || n < 0 || n > len(c.Elements) {
			return "", fmt.Errorf("enum index %s out of range", val)
		}
		if n == 0 {
			return "''", nil
		}
		return schema.QuoteLiteral(c.Elements[n-1]), nil
	}
	v := strings.TrimRight(val, " ")
	for _, e := range c.Elements {
		if strings.EqualFold(e, v) {
			return schema.QuoteLiteral(e), nil
		}
	}
	return "", fmt.Errorf("%q is not a member", val)
}

func setDefault(c *schema.Column, val string) (string, error) {
	if val == "" {
		return "''", nil
	}
	chosen := map[int]bool{}
	for _, part := range strings.Split(val, ",") {
		found := false
		for i, e := range c.Elements {
			if strings.EqualFold(e, strings.TrimRight(part, " ")) {
				chosen[i], found = true, true
				break
			}
		}
		if !found {
			return "", fmt.Errorf("%q is not a member", part)
		}
	}
	var parts []string
	for i, e := range c.Elements {
		if chosen[i] {
			parts = append(parts, e)
		}
	}
	return schema.QuoteLiteral(strings.Join(parts, ",")), nil
}
