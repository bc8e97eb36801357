package mysql8compat

import (
	"encoding/binary"
	"reflect"
	"strings"
	"testing"

	"github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/replication"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/typemap"
)

// tableMapOf parses one TABLE_MAP_EVENT body through BinlogParser.
func tableMapOf(t *testing.T, body []byte) *replication.TableMapEvent {
	t.Helper()
	s := newBinlogStream()
	s.add(replication.TABLE_MAP_EVENT, body)
	events := parseStream(t, newParser(parserOptions{}), s)
	tm, ok := events[0].Event.(*replication.TableMapEvent)
	if !ok {
		t.Fatalf("decoded as %T", events[0].Event)
	}
	return tm
}

func checkEqual(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// TestTableMapFullMetadataFromMySQL reads the TABLE_MAP_EVENT a MySQL 8.0
// server wrote with binlog_row_metadata=FULL for a 42-column table of every
// type (testdata/tablemap_types_80.hex).
func TestTableMapFullMetadataFromMySQL(t *testing.T) {
	tm := tableMapOf(t, loadHex(t, "tablemap_types_80"))
	checkEqual(t, "table", string(tm.Schema)+"."+string(tm.Table), "test._types")
	names := strings.Fields(`b_bit n_boolean n_tinyint n_smallint n_mediumint n_int n_bigint n_decimal n_float n_double
		nu_tinyint nu_smallint nu_mediumint nu_int nu_bigint nu_decimal nu_float nu_double
		t_year t_date t_time t_ftime t_datetime t_fdatetime t_timestamp t_ftimestamp
		c_char c_varchar c_binary c_varbinary c_tinyblob c_blob c_mediumblob c_longblob
		c_tinytext c_text c_mediumtext c_longtext e_enum s_set g_geometry j_json`)
	checkEqual(t, "column names", tm.ColumnNameString(), names)

	unsigned := map[int]bool{18: false} // YEAR counts as numeric
	for i := 1; i <= 17; i++ {
		unsigned[i] = i >= 10 // n_boolean..n_double signed, nu_tinyint..nu_double unsigned
	}
	checkEqual(t, "unsigned", tm.UnsignedMap(), unsigned)

	// utf8mb4_unicode_ci (224) for text, binary (63) for BINARY/VARBINARY/BLOB.
	coll := map[int]uint64{}
	for i := 26; i <= 37; i++ {
		coll[i] = 224
		if i >= 28 && i <= 33 {
			coll[i] = 63
		}
	}
	checkEqual(t, "collations", tm.CollationMap(), coll)
	checkEqual(t, "enum/set collations", tm.EnumSetCollationMap(), map[int]uint64{38: 224, 39: 224})
	checkEqual(t, "enum labels", tm.EnumStrValueMap(), map[int][]string{38: {"a", "b"}})
	checkEqual(t, "set members", tm.SetStrValueMap(), map[int][]string{39: {"1", "2"}})
	checkEqual(t, "geometry types", tm.GeometryTypeMap(), map[int]uint64{40: 0})

	// Fractional seconds precision is type metadata, not optional metadata.
	for col, fsp := range map[int]uint16{20: 0, 21: 6, 22: 0, 23: 6, 24: 0, 25: 6} {
		if tm.ColumnMeta[col] != fsp {
			t.Errorf("%s: fsp %d, want %d", names[col], tm.ColumnMeta[col], fsp)
		}
	}
	if typ := tm.ColumnType[41]; typ != mysql.MYSQL_TYPE_JSON || tm.ColumnMeta[41] != 4 {
		t.Errorf("j_json: type %d meta %d, want JSON (245) with a 4-byte length", typ, tm.ColumnMeta[41])
	}
	if tm.JsonColumnCount() != 1 {
		t.Errorf("JSON columns %d", tm.JsonColumnCount())
	}
}

// TestTableMapKeyAndVisibilityFromMySQL reads the primary key (with a prefix
// part) and the INVISIBLE-column bitmap of MySQL 8.0 table maps.
func TestTableMapKeyAndVisibilityFromMySQL(t *testing.T) {
	tm := tableMapOf(t, loadHex(t, "tablemap_prim2_80"))
	checkEqual(t, "names", tm.ColumnNameString(), []string{"col1", "id1", "col2", "id2"})
	checkEqual(t, "primary key", tm.PrimaryKey, []uint64{1, 3})
	checkEqual(t, "primary key prefixes", tm.PrimaryKeyPrefix, []uint64{0, 10})
	checkEqual(t, "collations", tm.CollationMap(), map[int]uint64{1: 224, 3: 224})

	tm = tableMapOf(t, loadHex(t, "tablemap_visibility_80"))
	visible := map[int]bool{}
	for i := 0; i <= 10; i++ {
		visible[i] = i == 1 || i == 3 || i == 4 || i == 8
	}
	checkEqual(t, "visibility", tm.VisibilityMap(), visible)
}

// tlv is one optional-metadata field: type, packed length, value.
func tlv(typ byte, value []byte) []byte {
	return append(append([]byte{typ}, lenenc(uint64(len(value)))...), value...)
}

// strList encodes ENUM/SET members: count, then each member length-prefixed.
func strList(members ...string) []byte {
	b := lenenc(uint64(len(members)))
	for _, m := range members {
		b = append(b, lenenc(uint64(len(m)))...)
		b = append(b, m...)
	}
	return b
}

// catalogTableMap is shop.catalog as MySQL 8 logs it with
// binlog_row_metadata=FULL:
//
//	id INT UNSIGNED PRIMARY KEY, name VARCHAR(50) (utf8mb4_0900_ai_ci),
//	legacy VARCHAR(50) CHARSET latin1, body TEXT INVISIBLE,
//	size ENUM('petit','moyen','très grand') COLLATE utf8mb4_unicode_ci,
//	tags SET('a','b','ç') CHARSET latin1, price DECIMAL(10,2)
//
// The default charset field lists the one text column that differs
// (character column 1 → latin1_swedish_ci, 8), as Table_map_log_event
// writes DEFAULT_CHARSET when most columns share one collation.
func catalogTableMap() []byte {
	cols := []column{
		{typ: mysql.MYSQL_TYPE_LONG},
		{typ: mysql.MYSQL_TYPE_VARCHAR, meta: []byte{200, 0}},
		{typ: mysql.MYSQL_TYPE_VARCHAR, meta: []byte{50, 0}},
		{typ: mysql.MYSQL_TYPE_BLOB, meta: []byte{2}},
		{typ: mysql.MYSQL_TYPE_STRING, meta: []byte{mysql.MYSQL_TYPE_ENUM, 1}},
		{typ: mysql.MYSQL_TYPE_STRING, meta: []byte{mysql.MYSQL_TYPE_SET, 1}},
		{typ: mysql.MYSQL_TYPE_NEWDECIMAL, meta: []byte{10, 2}},
	}
	var names []byte
	for _, n := range []string{"id", "name", "legacy", "body", "size", "tags", "price"} {
		names = append(append(names, byte(len(n))), n...)
	}
	var opt []byte
	opt = append(opt, tlv(replication.TABLE_MAP_OPT_META_SIGNEDNESS, []byte{0x80})...)
	opt = append(opt, tlv(replication.TABLE_MAP_OPT_META_DEFAULT_CHARSET, append(lenenc(255), 1, 8))...)
	opt = append(opt, tlv(replication.TABLE_MAP_OPT_META_COLUMN_NAME, names)...)
	opt = append(opt, tlv(replication.TABLE_MAP_OPT_META_SET_STR_VALUE, strList("a", "b", "\xe7"))...)
	opt = append(opt, tlv(replication.TABLE_MAP_OPT_META_ENUM_STR_VALUE, strList("petit", "moyen", "très grand"))...)
	opt = append(opt, tlv(replication.TABLE_MAP_OPT_META_SIMPLE_PRIMARY_KEY, []byte{0})...)
	opt = append(opt, tlv(replication.TABLE_MAP_OPT_META_ENUM_AND_SET_COLUMN_CHARSET, []byte{224, 8})...)
	opt = append(opt, tlv(replication.TABLE_MAP_OPT_META_COLUMN_VISIBILITY, []byte{0xee})...)
	return tableMapBody("shop", "catalog", cols, opt)
}

// collationCharset names the charset of the collation ids used here.
var collationCharset = map[uint64]string{8: "latin1", 63: "binary", 224: "utf8mb4", 255: "utf8mb4"}

// columnsFromTableMap builds schema columns from a table map's FULL
// metadata alone, to show it carries what typemap needs for these types.
func columnsFromTableMap(t *testing.T, tm *replication.TableMapEvent) []schema.Column {
	t.Helper()
	names := tm.ColumnNameString()
	unsigned, coll, enumSetColl := tm.UnsignedMap(), tm.CollationMap(), tm.EnumSetCollationMap()
	enums, sets := tm.EnumStrValueMap(), tm.SetStrValueMap()
	cols := make([]schema.Column, len(names))
	for i, n := range names {
		c := schema.Column{Name: n, Ordinal: i + 1, Nullable: true, Unsigned: unsigned[i]}
		switch {
		case tm.IsEnumColumn(i):
			c.DataType, c.Elements, c.Charset = "enum", enums[i], collationCharset[enumSetColl[i]]
		case tm.IsSetColumn(i):
			c.DataType, c.Elements, c.Charset = "set", sets[i], collationCharset[enumSetColl[i]]
		case tm.ColumnType[i] == mysql.MYSQL_TYPE_LONG:
			c.DataType = "int"
		case tm.ColumnType[i] == mysql.MYSQL_TYPE_VARCHAR:
			c.DataType, c.Charset = "varchar", collationCharset[coll[i]]
			c.CharMaxLength = 50
		case tm.ColumnType[i] == mysql.MYSQL_TYPE_BLOB:
			c.DataType, c.Charset = "text", collationCharset[coll[i]]
		case tm.ColumnType[i] == mysql.MYSQL_TYPE_NEWDECIMAL:
			c.DataType, c.Precision, c.Scale = "decimal", int(tm.ColumnMeta[i]>>8), int(tm.ColumnMeta[i]&0xff)
		default:
			t.Fatalf("column %s: type %d not handled by this test", n, tm.ColumnType[i])
		}
		if c.Charset == "latin1" {
			// Labels are logged in the column's charset; typemap wants UTF-8.
			for j, e := range c.Elements {
				c.Elements[j] = latin1ToUTF8(e)
			}
		}
		cols[i] = c
	}
	return cols
}

// latin1ToUTF8 decodes ISO 8859-1 (the same as MySQL's latin1 for the
// bytes used here).
func latin1ToUTF8(s string) string {
	r := make([]rune, len(s))
	for i := 0; i < len(s); i++ {
		r[i] = rune(s[i])
	}
	return string(r)
}

// TestTableMapCharsetsAndEnumLabels builds a table map with the optional
// fields the captured ones lack (a default charset with an exception,
// per-column ENUM/SET charsets, non-ASCII labels, a simple primary key),
// checks go-mysql's accessors, then converts a row with typemap using only
// what the table map said.
func TestTableMapCharsetsAndEnumLabels(t *testing.T) {
	tm := tableMapOf(t, catalogTableMap())
	checkEqual(t, "names", tm.ColumnNameString(), []string{"id", "name", "legacy", "body", "size", "tags", "price"})
	checkEqual(t, "unsigned", tm.UnsignedMap(), map[int]bool{0: true, 6: false})
	checkEqual(t, "collations", tm.CollationMap(), map[int]uint64{1: 255, 2: 8, 3: 255})
	checkEqual(t, "enum/set collations", tm.EnumSetCollationMap(), map[int]uint64{4: 224, 5: 8})
	checkEqual(t, "enum labels", tm.EnumStrValueMap(), map[int][]string{4: {"petit", "moyen", "très grand"}})
	checkEqual(t, "set members", tm.SetStrValueMap(), map[int][]string{5: {"a", "b", "\xe7"}})
	checkEqual(t, "primary key", tm.PrimaryKey, []uint64{0})
	checkEqual(t, "visibility", tm.VisibilityMap(), map[int]bool{0: true, 1: true, 2: true, 3: false, 4: true, 5: true, 6: true})

	s := newBinlogStream()
	s.add(replication.TABLE_MAP_EVENT, catalogTableMap())
	s.add(replication.WRITE_ROWS_EVENTv2, rowsBody(7, false, rowImage(
		int32Value(-1), // all bits set: 4294967295 as INT UNSIGNED
		append([]byte{4}, "Zoë"...),
		append([]byte{4}, "caf\xe9"...), // latin1
		append(binary.LittleEndian.AppendUint16(nil, 4), "😀"...),
		[]byte{3},     // ENUM index 3
		[]byte{0b101}, // SET members 1 and 3
		decimalBin("12.50", 10, 2))))
	re := rowsEventOf(t, parseStream(t, newParser(parserOptions{}), s))
	row := re.Rows[0]
	if row[0] != uint32(4294967295) {
		t.Errorf("INT UNSIGNED decoded as %T %v, want uint32 4294967295 (signedness metadata)", row[0], row[0])
	}

	cols := columnsFromTableMap(t, re.Table)
	m := typemap.New(typemap.DefaultOptions(), nil)
	want := []string{"int64:4294967295", "string:Zoë", "string:café", "string:😀", "string:très grand", "string:a,ç", "numeric:1250e-2"}
	for i, c := range cols {
		cc, err := m.CompileColumn(schema.TableID{Database: "shop", Name: "catalog"}, c)
		if err != nil {
			t.Fatalf("column %s: %v", c.Name, err)
		}
		v, err := cc.FromBinlog(row[i])
		if err != nil {
			t.Errorf("column %s: %v", c.Name, err)
			continue
		}
		if got := showValue(v); got != want[i] {
			t.Errorf("column %s (%s %s): %s, want %s", c.Name, c.DataType, c.Charset, got, want[i])
		}
	}
}

// TestSignednessMetadata: with binlog_row_metadata=FULL go-mysql decodes
// unsigned columns to unsigned Go integers, without it to signed ones of
// the same bits; typemap must give the same values either way.
func TestSignednessMetadata(t *testing.T) {
	cols := []column{
		{typ: mysql.MYSQL_TYPE_TINY}, {typ: mysql.MYSQL_TYPE_SHORT}, {typ: mysql.MYSQL_TYPE_INT24},
		{typ: mysql.MYSQL_TYPE_LONG}, {typ: mysql.MYSQL_TYPE_LONGLONG}, {typ: mysql.MYSQL_TYPE_TINY},
	}
	schemaCols := []schema.Column{
		{Name: "u8", DataType: "tinyint", Unsigned: true}, {Name: "u16", DataType: "smallint", Unsigned: true},
		{Name: "u24", DataType: "mediumint", Unsigned: true}, {Name: "u32", DataType: "int", Unsigned: true},
		{Name: "u64", DataType: "bigint", Unsigned: true}, {Name: "s8", DataType: "tinyint"},
	}
	allOnes := rowImage([]byte{0xff}, []byte{0xff, 0xff}, []byte{0xff, 0xff, 0xff},
		[]byte{0xff, 0xff, 0xff, 0xff}, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, []byte{0xff})
	want := []string{"int16:255", "int32:65535", "int32:16777215", "int64:4294967295",
		"numeric:18446744073709551615e0", "int16:-1"}
	m := typemap.New(typemap.DefaultOptions(), nil)
	for _, full := range []bool{true, false} {
		var opt []byte
		if full {
			opt = tlv(replication.TABLE_MAP_OPT_META_SIGNEDNESS, []byte{0b11111000})
		}
		s := newBinlogStream()
		s.add(replication.TABLE_MAP_EVENT, tableMapBody("shop", "counters", cols, opt))
		s.add(replication.WRITE_ROWS_EVENTv2, rowsBody(len(cols), false, allOnes))
		row := rowsEventOf(t, parseStream(t, newParser(parserOptions{}), s)).Rows[0]
		if full && row[4] != uint64(18446744073709551615) || !full && row[4] != int64(-1) {
			t.Errorf("full metadata %v: BIGINT UNSIGNED decoded as %T %v", full, row[4], row[4])
		}
		for i, c := range schemaCols {
			cc, err := m.CompileColumn(schema.TableID{Database: "shop", Name: "counters"}, c)
			if err != nil {
				t.Fatal(err)
			}
			v, err := cc.FromBinlog(row[i])
			if err != nil {
				t.Errorf("full metadata %v, %s (go-mysql %T %v): %v", full, c.Name, row[i], row[i], err)
				continue
			}
			if got := showValue(v); got != want[i] {
				t.Errorf("full metadata %v, %s (go-mysql %T %v): %s, want %s", full, c.Name, row[i], row[i], got, want[i])
			}
		}
	}
}
