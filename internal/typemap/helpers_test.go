package typemap

import (
	"encoding/hex"
	"fmt"
	"math"
	"net/netip"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/sluice-db/sluice/internal/schema"
)

// show renders a converted value with its Go type so tests compare exactly.
func show(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case int16, int32, int64:
		return fmt.Sprintf("%T:%d", x, x)
	case float32:
		return fmt.Sprintf("float32:%s/%08x", strconv.FormatFloat(float64(x), 'g', -1, 32), math.Float32bits(x))
	case float64:
		return fmt.Sprintf("float64:%s/%016x", strconv.FormatFloat(x, 'g', -1, 64), math.Float64bits(x))
	case pgtype.Numeric:
		return fmt.Sprintf("numeric:%se%d", x.Int.String(), x.Exp)
	case pgtype.Bits:
		return fmt.Sprintf("bits:%d:%x", x.Len, x.Bytes)
	case pgtype.Date:
		return "date:" + showTime(x.Time, x.InfinityModifier, "2006-01-02")
	case pgtype.Timestamp:
		return "timestamp:" + showTime(x.Time, x.InfinityModifier, "2006-01-02 15:04:05.999999 MST")
	case pgtype.Timestamptz:
		return "timestamptz:" + showTime(x.Time, x.InfinityModifier, "2006-01-02 15:04:05.999999 MST")
	case pgtype.Interval:
		return fmt.Sprintf("interval:%dm%dd%dus", x.Months, x.Days, x.Microseconds)
	case string:
		return "text:" + strconv.Quote(x)
	case []byte:
		return "bytes:" + hex.EncodeToString(x)
	case EWKB:
		return "ewkb:" + hex.EncodeToString(x)
	case pgtype.UUID:
		return "uuid:" + hex.EncodeToString(x.Bytes[:])
	case netip.Prefix:
		return "inet:" + x.String()
	}
	return fmt.Sprintf("unexpected %T:%v", v, v)
}

func showTime(t time.Time, inf pgtype.InfinityModifier, layout string) string {
	switch inf {
	case pgtype.NegativeInfinity:
		return "-infinity"
	case pgtype.Infinity:
		return "infinity"
	}
	return t.Format(layout)
}

// col builds a column the way the information_schema loader fills it.
func col(dataType, columnType string, opts ...func(*schema.Column)) schema.Column {
	c := schema.Column{Name: "c", DataType: dataType, ColumnType: columnType, Nullable: true}
	for _, o := range opts {
		o(&c)
	}
	return c
}

func unsigned(c *schema.Column) { c.Unsigned = true }
func notNull(c *schema.Column)  { c.Nullable = false }
func isJSON(c *schema.Column)   { c.IsJSON = true }
func precision(p, s int) func(*schema.Column) {
	return func(c *schema.Column) { c.Precision, c.Scale = p, s }
}
func frac(n int) func(*schema.Column)        { return func(c *schema.Column) { c.FracDigits = n } }
func length(n int64) func(*schema.Column)    { return func(c *schema.Column) { c.CharMaxLength = n } }
func charset(cs string) func(*schema.Column) { return func(c *schema.Column) { c.Charset = cs } }
func elements(e ...string) func(*schema.Column) {
	return func(c *schema.Column) { c.Elements = e }
}
