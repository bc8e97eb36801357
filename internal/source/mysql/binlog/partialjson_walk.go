package binlog

import (
	"encoding/binary"
	"fmt"

	gomysql "github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/replication"
)

// Hand-written: go-mysql v1.16 (the newest available here) decodes only the
// first diff of a partial JSON column (replication/row_event.go decodeValue
// → decodeJSONPartialBinary) and does not say where in the event a value
// lies. So for a PARTIAL_UPDATE_ROWS_EVENT the row images are walked here a
// second time, only to find the bytes of each partial JSON column of each
// after image; the diff values themselves are decoded by go-mysql
// (partialjson_decode.go). References: MySQL's libbinlogevents
// rows_event.h, sql/log_event.cc (calc_field_size, print_verbose_one_row),
// and go-mysql's decodeImage/decodeValue.

// partialJSON replaces, in an after image, go-mysql's value for a JSON
// column logged as a diff vector. convertRows applies it to the before image.
type partialJSON struct {
	diffs     []jsonDiff
	err       error                        // the diffs could not be read: reported with the row
	renderKey func(string) (string, error) // renders a key a diff inserts
}

// jsonDiff is one entry of a MySQL Json_diff_vector: value is the new value
// rendered as go-mysql renders a JSON document (empty for remove).
type jsonDiff struct {
	op    replication.JsonDiffOperation
	path  string
	value string
}

// rawDiff is one undecoded diff: the value is MySQL binary JSON.
type rawDiff struct {
	op    replication.JsonDiffOperation
	path  string
	value []byte
}

// isPartialUpdate says whether go-mysql decoded e as a
// PARTIAL_UPDATE_ROWS_EVENT. The event type is not exported; Type() reports
// every other update event as an update, so unknown with two bitmaps is the
// partial one.
func isPartialUpdate(e *replication.RowsEvent) bool {
	return e.Type() == replication.EnumRowsEventTypeUnknown && e.ColumnBitmap2 != nil
}

// resolvePartialJSON replaces the partial JSON values of e's after images
// (decoded by go-mysql from data, whose rows start at pos) by *partialJSON
// values holding every diff. Errors are kept in the values, so that the
// stream reports them with the table, column and position.
func resolvePartialJSON(e *replication.RowsEvent, data []byte, pos int) {
	cols, err := walkPartialRows(e.Table, int(e.ColumnCount), e.ColumnBitmap1, e.ColumnBitmap2, data[pos:])
	if err == nil && len(cols) != len(e.Rows)/2 {
		err = fmt.Errorf("found %d row pairs, go-mysql decoded %d images", len(cols), len(e.Rows))
	}
	if err != nil {
		// Every JSON value of the after images is suspect (an empty diff
		// vector looks like an empty document): the stream stops at the
		// first row instead of guessing.
		err = fmt.Errorf("reading the partial JSON update: %w", err)
		for r := 1; r < len(e.Rows); r += 2 {
			for i := range e.Rows[r] {
				if i < len(e.Table.ColumnType) && e.Table.ColumnType[i] == gomysql.MYSQL_TYPE_JSON {
					e.Rows[r][i] = &partialJSON{err: err}
				}
			}
		}
		return
	}
	for r, pcols := range cols {
		after := e.Rows[2*r+1]
		for col, raw := range pcols {
			p := &partialJSON{renderKey: func(k string) (string, error) { return renderKey(e, k) }}
			p.diffs, p.err = decodeDiffs(e, raw)
			after[col] = p
		}
	}
}

// walkPartialRows walks the row images of a PARTIAL_UPDATE_ROWS_EVENT and
// returns, for each row, the diff vector bytes of each partial JSON column of
// its after image, by column index.
func walkPartialRows(t *replication.TableMapEvent, ncols int, bm1, bm2, data []byte) ([]map[int][]byte, error) {
	if len(t.ColumnType) < ncols || len(t.ColumnMeta) < ncols {
		return nil, fmt.Errorf("table map has %d column types for %d columns", len(t.ColumnType), ncols)
	}
	var out []map[int][]byte
	pos := 0
	for pos < len(data) {
		n, _, err := walkImage(t, ncols, bm1, data[pos:], false)
		if err != nil {
			return nil, fmt.Errorf("row %d before image: %w", len(out)+1, err)
		}
		pos += n
		n, partial, err := walkImage(t, ncols, bm2, data[pos:], true)
		if err != nil {
			return nil, fmt.Errorf("row %d after image: %w", len(out)+1, err)
		}
		pos += n
		out = append(out, partial)
	}
	return out, nil
}

// binlogRowValueOptionPartialJSON is PARTIAL_JSON_UPDATES in MySQL's
// enum_binlog_row_value_options.
const binlogRowValueOptionPartialJSON = 1

// walkImage measures one row image and returns its length and, for an after
// image, the bytes of its partial JSON columns.
func walkImage(t *replication.TableMapEvent, ncols int, bitmap, data []byte, after bool) (int, map[int][]byte, error) {
	r := reader{data: data}
	var partialBits []byte
	if after {
		opts, err := r.packedInt()
		if err != nil {
			return 0, nil, fmt.Errorf("value options: %w", err)
		}
		if opts&binlogRowValueOptionPartialJSON != 0 {
			// One bit per JSON column of the table, present or not.
			if partialBits, err = r.take(bitmapBytes(int(t.JsonColumnCount()))); err != nil {
				return 0, nil, fmt.Errorf("partial JSON bitmap: %w", err)
			}
		}
	}
	if len(bitmap) < bitmapBytes(ncols) {
		return 0, nil, fmt.Errorf("column bitmap of %d bytes for %d columns", len(bitmap), ncols)
	}
	present := 0
	for i := range ncols {
		if bitSet(bitmap, i) {
			present++
		}
	}
	nulls, err := r.take(bitmapBytes(present))
	if err != nil {
		return 0, nil, fmt.Errorf("null bitmap: %w", err)
	}
	var partial map[int][]byte
	jsonIndex, nullIndex := 0, 0
	for i := range ncols {
		isPartial := false
		if t.ColumnType[i] == gomysql.MYSQL_TYPE_JSON {
			isPartial = partialBits != nil && bitSet(partialBits, jsonIndex)
			jsonIndex++
		}
		if !bitSet(bitmap, i) {
			continue
		}
		isNull := bitSet(nulls, nullIndex)
		nullIndex++
		if isNull {
			continue
		}
		n, err := valueLength(t.ColumnType[i], t.ColumnMeta[i], r.rest())
		if err != nil {
			return 0, nil, fmt.Errorf("column %d (type %d, meta %d): %w", i+1, t.ColumnType[i], t.ColumnMeta[i], err)
		}
		v, err := r.take(n)
		if err != nil {
			return 0, nil, fmt.Errorf("column %d (type %d, meta %d): %w", i+1, t.ColumnType[i], t.ColumnMeta[i], err)
		}
		if isPartial {
			if partial == nil {
				partial = map[int][]byte{}
			}
			partial[i] = v[t.ColumnMeta[i]:] // after the length prefix
		}
	}
	return r.pos, partial, nil
}

// valueLength is the length in a row image of a non-NULL value of a column
// of binlog type tp with table-map metadata meta (calc_field_size).
func valueLength(tp byte, meta uint16, data []byte) (int, error) {
	if tp == gomysql.MYSQL_TYPE_STRING && meta >= 256 {
		// CHAR, ENUM and SET share the type STRING: the real type is in
		// the high byte of meta, and the high bits of CHAR's length too.
		b0, b1 := byte(meta>>8), byte(meta)
		if b0&0x30 != 0x30 {
			return prefixed(data, int(uint16(b1)|uint16((b0&0x30)^0x30)<<4))
		}
		switch b0 {
		case gomysql.MYSQL_TYPE_ENUM, gomysql.MYSQL_TYPE_SET:
			return int(b1), nil
		}
		return prefixed(data, int(b1))
	}
	switch tp {
	case gomysql.MYSQL_TYPE_NULL:
		return 0, nil
	case gomysql.MYSQL_TYPE_TINY, gomysql.MYSQL_TYPE_YEAR:
		return 1, nil
	case gomysql.MYSQL_TYPE_SHORT:
		return 2, nil
	case gomysql.MYSQL_TYPE_INT24, gomysql.MYSQL_TYPE_DATE, gomysql.MYSQL_TYPE_TIME, gomysql.MYSQL_TYPE_NEWDATE:
		return 3, nil
	case gomysql.MYSQL_TYPE_LONG, gomysql.MYSQL_TYPE_FLOAT, gomysql.MYSQL_TYPE_TIMESTAMP:
		return 4, nil
	case gomysql.MYSQL_TYPE_LONGLONG, gomysql.MYSQL_TYPE_DOUBLE, gomysql.MYSQL_TYPE_DATETIME:
		return 8, nil
	case gomysql.MYSQL_TYPE_TIMESTAMP2:
		return 4 + (int(meta)+1)/2, nil
	case gomysql.MYSQL_TYPE_DATETIME2:
		return 5 + (int(meta)+1)/2, nil
	case gomysql.MYSQL_TYPE_TIME2:
		return 3 + (int(meta)+1)/2, nil
	case gomysql.MYSQL_TYPE_NEWDECIMAL:
		return decimalBinSize(int(meta>>8), int(meta&0xff)), nil
	case gomysql.MYSQL_TYPE_BIT:
		return int(meta>>8) + (int(meta&0xff)+7)/8, nil
	case gomysql.MYSQL_TYPE_ENUM, gomysql.MYSQL_TYPE_SET:
		return int(meta & 0xff), nil
	case gomysql.MYSQL_TYPE_VARCHAR, gomysql.MYSQL_TYPE_VAR_STRING, gomysql.MYSQL_TYPE_STRING:
		return prefixed(data, int(meta))
	case gomysql.MYSQL_TYPE_BLOB, gomysql.MYSQL_TYPE_TINY_BLOB, gomysql.MYSQL_TYPE_MEDIUM_BLOB,
		gomysql.MYSQL_TYPE_LONG_BLOB, gomysql.MYSQL_TYPE_GEOMETRY, gomysql.MYSQL_TYPE_JSON, gomysql.MYSQL_TYPE_VECTOR:
		// meta is the width of the little-endian length prefix.
		w := int(meta)
		if w < 1 || w > 4 {
			return 0, fmt.Errorf("length prefix of %d bytes", w)
		}
		if len(data) < w {
			return 0, fmt.Errorf("truncated length prefix")
		}
		var l uint32
		for i := w - 1; i >= 0; i-- {
			l = l<<8 | uint32(data[i])
		}
		return w + int(l), nil
	}
	return 0, fmt.Errorf("binlog type %d is not measured", tp)
}

// prefixed measures a string whose maximum length is maxLen: a one-byte
// length prefix below 256, two bytes from 256.
func prefixed(data []byte, maxLen int) (int, error) {
	if maxLen < 256 {
		if len(data) < 1 {
			return 0, fmt.Errorf("truncated length prefix")
		}
		return 1 + int(data[0]), nil
	}
	if len(data) < 2 {
		return 0, fmt.Errorf("truncated length prefix")
	}
	return 2 + int(binary.LittleEndian.Uint16(data)), nil
}

// decimalBinSize is MySQL's decimal_bin_size: 4 bytes per 9 digits and the
// leftover digits of each side in 1-4 bytes.
func decimalBinSize(precision, scale int) int {
	dig2bytes := [10]int{0, 1, 1, 2, 2, 3, 3, 4, 4, 4}
	intg := precision - scale
	return intg/9*4 + dig2bytes[intg%9] + scale/9*4 + dig2bytes[scale%9]
}

func bitmapBytes(n int) int { return (n + 7) / 8 }

func bitSet(bitmap []byte, i int) bool { return bitmap[i>>3]&(1<<(uint(i)&7)) != 0 }

// splitDiffs splits a Json_diff_vector (Json_diff_vector::read_binary):
// each diff is an operation byte, a length-encoded path and, unless it
// removes, a length-encoded binary JSON value.
func splitDiffs(data []byte) ([]rawDiff, error) {
	r := reader{data: data}
	var out []rawDiff
	for r.pos < len(r.data) {
		op, err := r.take(1)
		if err != nil {
			return nil, err
		}
		d := rawDiff{op: replication.JsonDiffOperation(op[0])}
		switch d.op {
		case replication.JsonDiffOperationReplace, replication.JsonDiffOperationInsert, replication.JsonDiffOperationRemove:
		default:
			return nil, fmt.Errorf("diff %d: unknown operation %d", len(out)+1, op[0])
		}
		path, err := r.lenEncoded()
		if err != nil {
			return nil, fmt.Errorf("diff %d path: %w", len(out)+1, err)
		}
		d.path = string(path)
		if d.op != replication.JsonDiffOperationRemove {
			if d.value, err = r.lenEncoded(); err != nil {
				return nil, fmt.Errorf("diff %d value: %w", len(out)+1, err)
			}
		}
		out = append(out, d)
	}
	return out, nil
}

// reader reads a byte slice with bounds checks.
type reader struct {
	data []byte
	pos  int
}

func (r *reader) rest() []byte { return r.data[r.pos:] }

func (r *reader) take(n int) ([]byte, error) {
	if n < 0 || len(r.data)-r.pos < n {
		return nil, fmt.Errorf("%d bytes wanted at offset %d, %d left", n, r.pos, len(r.data)-r.pos)
	}
	b := r.data[r.pos : r.pos+n]
	r.pos += n
	return b, nil
}

// packedInt reads a MySQL packed integer (net_field_length): one byte
// below 251, else a marker and 2, 3 or 8 little-endian bytes.
func (r *reader) packedInt() (uint64, error) {
	b, err := r.take(1)
	if err != nil {
		return 0, err
	}
	var w int
	switch b[0] {
	case 0xfc:
		w = 2
	case 0xfd:
		w = 3
	case 0xfe:
		w = 8
	case 0xfb, 0xff:
		return 0, fmt.Errorf("bad packed integer marker %#x at offset %d", b[0], r.pos-1)
	default:
		return uint64(b[0]), nil
	}
	v, err := r.take(w)
	if err != nil {
		return 0, err
	}
	var n uint64
	for i := w - 1; i >= 0; i-- {
		n = n<<8 | uint64(v[i])
	}
	return n, nil
}

func (r *reader) lenEncoded() ([]byte, error) {
	n, err := r.packedInt()
	if err != nil {
		return nil, err
	}
	if n > uint64(len(r.data)-r.pos) {
		return nil, fmt.Errorf("%d bytes wanted at offset %d, %d left", n, r.pos, len(r.data)-r.pos)
	}
	return r.take(int(n))
}
