package typemap

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/sluice-db/sluice/internal/schema"
)

// Compile builds the converters of every column of a table (one schema
// version). It fails on the first column sluice cannot map.
func (m *Mapper) Compile(t *schema.Table) (*TableConv, error) {
	tc := &TableConv{Table: t, Columns: make([]*ColumnConv, len(t.Columns))}
	for i, c := range t.Columns {
		cc, err := m.CompileColumn(t.TableID, c)
		if err != nil {
			return nil, err
		}
		tc.Columns[i] = cc
	}
	return tc, nil
}

// CompileColumn builds the converter of one column of table t. Policy
// counters are looked up here, once, so converting a value only adds to them.
func (m *Mapper) CompileColumn(t schema.TableID, c schema.Column) (*ColumnConv, error) {
	tg, err := m.target(c)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", t, err)
	}
	col := &column{table: t, col: c, m: m}
	cc := &ColumnConv{Column: c, PGType: tg.pgType, Kind: tg.kind}
	var build func(*column, target) (convs, error)
	switch tg.kind {
	case KindInt, KindYear:
		build = buildInt
	case KindUint64:
		build = buildUint64
	case KindDecimal:
		build = buildDecimal
	case KindFloat32:
		build = buildFloat32
	case KindFloat64:
		build = buildFloat64
	case KindBit:
		build = buildBit
	case KindDate, KindDateTime, KindTimestamp:
		build = buildDateLike
	case KindTime:
		build = buildTime
	case KindText:
		build = buildText
	case KindBinary:
		build = buildBinary
	case KindEnum:
		build = buildEnum
	case KindSet:
		build = buildSet
	case KindJSON:
		build = buildJSON
	case KindGeometry:
		build = buildGeometry
	case KindUUID:
		build = buildUUID
	case KindInet:
		build = buildInet
	default:
		return nil, col.errorf("no converter for kind %s", tg.kind)
	}
	cv, err := build(col, tg)
	if err != nil {
		return nil, err
	}
	cc.fromText, cc.fromBinlog, cc.textBytes, cc.textInt = cv.text, cv.binlog, cv.textBytes, cv.textInt
	return cc, nil
}

// convs is the pair of converters a builder returns.
type convs struct {
	text   func(b []byte) (any, error)
	binlog func(v any) (any, error)
	// textBytes is text without the final string copy (text columns only).
	textBytes func(b []byte) ([]byte, error)
	// textInt is text without boxing the integer (integer columns only).
	textInt func(b []byte) (int64, error)
}

// column is what a converter knows about its column: names for errors and
// the mapper for policies and counters.
type column struct {
	table schema.TableID
	col   schema.Column
	m     *Mapper
}

// errorf returns an error naming the table, column and MySQL type.
func (c *column) errorf(format string, a ...any) error {
	return fmt.Errorf("table %s column %s (%s): %s", c.table, c.col.Name, c.typeText(), fmt.Sprintf(format, a...))
}

func (c *column) typeText() string {
	if c.col.ColumnType != "" {
		return c.col.ColumnType
	}
	return c.col.DataType
}

// counter returns the policy counter of this column for one label.
func (c *column) counter(label string) *atomic.Int64 {
	return c.m.changes.counter(c.table.String(), c.col.Name, label)
}

// unexpected is the error for a binlog value of a Go type the column cannot hold.
func (c *column) unexpected(v any) error {
	return c.errorf("unexpected binlog value %T (%v)", v, v)
}

// bytesOf returns the bytes of a binlog string or []byte value without copying.
func bytesOf(v any) ([]byte, bool) {
	switch x := v.(type) {
	case []byte:
		return x, true
	case string:
		// Read-only view: converters never modify their input.
		return unsafe.Slice(unsafe.StringData(x), len(x)), true
	}
	return nil, false
}

// binlogAsText is the binlog conversion of a column whose binlog value is
// the same bytes the text protocol gives: conv serves both paths.
func (c *column) binlogAsText(conv func([]byte) (any, error)) func(any) (any, error) {
	return func(v any) (any, error) {
		if b, ok := bytesOf(v); ok {
			return conv(b)
		}
		return nil, c.unexpected(v)
	}
}
