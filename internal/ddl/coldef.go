package ddl

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sluice-db/sluice/internal/schema"
)

// intWidths are the display widths MariaDB (and MySQL before 8.0.19) show
// for integer types: signed, unsigned.
var intWidths = map[string][2]int{
	"tinyint": {4, 3}, "smallint": {6, 5}, "mediumint": {9, 8}, "int": {11, 10}, "bigint": {20, 20},
}

// textMax are the CHARACTER_MAXIMUM_LENGTH values of the TEXT and BLOB types.
var textMax = map[string]int64{
	"tinytext": 255, "text": 65535, "mediumtext": 16777215, "longtext": 4294967295,
	"tinyblob": 255, "blob": 65535, "mediumblob": 16777215, "longblob": 4294967295,
}

// binaryOf is the type a text type becomes with CHARACTER SET binary.
var binaryOf = map[string]string{
	"char": "binary", "varchar": "varbinary", "tinytext": "tinyblob", "text": "blob",
	"mediumtext": "mediumblob", "longtext": "longblob",
}

// mbMaxLen is the longest character of a charset in bytes, for TEXT(n).
var mbMaxLen = map[string]int64{
	"utf8mb4": 4, "utf8mb3": 3, "utf16": 4, "utf16le": 4, "utf32": 4, "ucs2": 2, "gb18030": 4,
	"ujis": 3, "eucjpms": 3, "big5": 2, "sjis": 2, "cp932": 2, "gbk": 2, "gb2312": 2, "euckr": 2,
}

// column converts one parsed column definition into the Column the
// information_schema loader would produce for it. tableCS/tableColl are the
// table's (already resolved) defaults.
func (s *Translator) column(def *sqlparser.ColumnDefinition, ordinal int, tableCS, tableColl string) (schema.Column, error) {
	ct := def.Type
	c := schema.Column{Name: def.Name.String(), Ordinal: ordinal, Nullable: true}
	typ := strings.ToLower(ct.Type)
	if strings.HasPrefix(strings.ToLower(ct.Charset.Name), markerPrefix) {
		typ = strings.TrimPrefix(strings.ToLower(ct.Charset.Name), markerPrefix)
		ct = &sqlparser.ColumnType{Type: typ, Options: ct.Options}
	}
	typ = canonicalTypeName(typ, ct)
	c.DataType = typ
	c.IsJSON = typ == "json" // MySQL 8's JSON (MariaDB's alias arrives as longtext + check)
	c.Unsigned = ct.Unsigned || ct.Zerofill
	c.Zerofill = ct.Zerofill
	if schema.IsTextType(typ) {
		if err := s.columnCharset(&c, ct, tableCS, tableColl); err != nil {
			return c, fmt.Errorf("column %s: %w", c.Name, err)
		}
	}
	if err := s.columnTypeText(&c, ct); err != nil {
		return c, fmt.Errorf("column %s: %w", c.Name, err)
	}
	if err := s.columnOptions(&c, ct.Options); err != nil {
		return c, fmt.Errorf("column %s: %w", c.Name, err)
	}
	return c, nil
}

// canonicalTypeName maps the type names vitess keeps as written to the
// information_schema DATA_TYPE.
func canonicalTypeName(typ string, ct *sqlparser.ColumnType) string {
	switch typ {
	case "integer":
		return "int"
	case "bool", "boolean":
		return "tinyint"
	case "numeric":
		return "decimal"
	case "real", "float8":
		return "double"
	case "float4":
		return "float"
	case "float":
		// FLOAT(p) with one argument is FLOAT up to 24 bits of precision, else DOUBLE.
		if ct.Length != nil && ct.Scale == nil && *ct.Length > 24 {
			return "double"
		}
	case "geomcollection":
		return "geometrycollection"
	}
	return typ
}

// columnCharset sets Charset and Collation of a text column: its own, or
// the table's; CHARACTER SET binary turns CHAR/VARCHAR/TEXT into binary types.
func (s *Translator) columnCharset(c *schema.Column, ct *sqlparser.ColumnType, tableCS, tableColl string) error {
	coll := ""
	if ct.Options != nil {
		coll = ct.Options.Collate
	}
	cs, coll, err := s.resolveCharset(ct.Charset.Name, coll)
	if err != nil {
		return err
	}
	if cs == "" {
		cs, coll = tableCS, tableColl
	}
	if ct.Charset.Binary && !strings.HasSuffix(coll, "_bin") && cs != "binary" {
		coll = cs + "_bin" // the BINARY attribute: the charset's binary collation
	}
	if cs == "binary" {
		if b, ok := binaryOf[c.DataType]; ok {
			c.DataType = b
			return nil
		}
	}
	c.Charset, c.Collation = cs, coll
	return nil
}

// columnTypeText sets ColumnType, lengths, precision and members, spelled
// as information_schema.COLUMNS shows them.
func (s *Translator) columnTypeText(c *schema.Column, ct *sqlparser.ColumnType) error {
	typ := c.DataType
	length := -1
	if ct.Length != nil {
		length = *ct.Length
	}
	attrs := ""
	if c.Unsigned {
		attrs += " unsigned"
	}
	if c.Zerofill {
		attrs += " zerofill"
	}
	switch typ {
	case "tinyint", "smallint", "mediumint", "int", "bigint":
		c.ColumnType = s.intColumnType(c, ct, length, attrs)
	case "decimal":
		p, sc := 10, 0
		if length >= 0 {
			p = length
		}
		if ct.Scale != nil {
			sc = *ct.Scale
		}
		c.Precision, c.Scale = p, sc
		c.ColumnType = fmt.Sprintf("decimal(%d,%d)%s", p, sc, attrs)
	case "float", "double":
		c.ColumnType = typ + attrs
		if length >= 0 && ct.Scale != nil {
			c.Precision, c.Scale = length, *ct.Scale
			c.ColumnType = fmt.Sprintf("%s(%d,%d)%s", typ, length, *ct.Scale, attrs)
		}
	case "bit":
		c.Precision = 1
		if length >= 0 {
			c.Precision = length
		}
		c.ColumnType = "bit(" + strconv.Itoa(c.Precision) + ")"
	case "year":
		c.ColumnType = "year(4)"
		if s.Flavor == "mysql" {
			c.ColumnType = "year"
		}
	case "datetime", "timestamp", "time":
		c.ColumnType = typ
		if length > 0 {
			c.FracDigits = length
			c.ColumnType = typ + "(" + strconv.Itoa(length) + ")"
		}
	case "char", "varchar", "binary", "varbinary":
		if length < 0 {
			if typ == "varchar" || typ == "varbinary" {
				return fmt.Errorf("%s needs a length", typ)
			}
			length = 1
		}
		c.CharMaxLength = int64(length)
		c.ColumnType = typ + "(" + strconv.Itoa(length) + ")"
	case "tinytext", "text", "mediumtext", "longtext", "tinyblob", "blob", "mediumblob", "longblob":
		if length >= 0 {
			c.DataType = sizedTextType(typ, int64(length), c.Charset)
		}
		c.CharMaxLength = textMax[c.DataType]
		c.ColumnType = c.DataType
	case "enum", "set":
		return setEnumMembers(c, ct)
	default:
		c.ColumnType = typ
	}
	return nil
}

// intColumnType spells an integer type with its display width: given, or
// the default for the type (MySQL 8.0.19+ shows none but for TINYINT(1)
// and ZEROFILL).
func (s *Translator) intColumnType(c *schema.Column, ct *sqlparser.ColumnType, length int, attrs string) string {
	typ := c.DataType
	w := intWidths[typ]
	width := w[0]
	if c.Unsigned {
		width = w[1]
	}
	if length >= 0 {
		width = length
	}
	if strings.EqualFold(ct.Type, "bool") || strings.EqualFold(ct.Type, "boolean") {
		width = 1
	}
	if s.Flavor == "mysql" && !c.Zerofill && !(typ == "tinyint" && width == 1) {
		return typ + attrs
	}
	return typ + "(" + strconv.Itoa(width) + ")" + attrs
}

// sizedTextType picks the smallest TEXT/BLOB type that holds n characters,
// as MySQL does for TEXT(n) and BLOB(n).
func sizedTextType(typ string, n int64, cs string) string {
	bytes := n
	if m, ok := mbMaxLen[cs]; ok {
		bytes = n * m
	}
	suffix := "text"
	if strings.HasSuffix(typ, "blob") {
		suffix = "blob"
	}
	switch {
	case bytes < 256:
		return "tiny" + suffix
	case bytes < 65536:
		return suffix
	case bytes < 16777216:
		return "medium" + suffix
	}
	return "long" + suffix
}

// setEnumMembers decodes the member list and writes the column type with
// members quoted as information_schema shows them.
func setEnumMembers(c *schema.Column, ct *sqlparser.ColumnType) error {
	quoted := make([]string, len(ct.EnumValues))
	var maxLen, sumLen int64
	for i, v := range ct.EnumValues {
		s, err := schema.UnquoteLiteral(v)
		if err != nil {
			return fmt.Errorf("%s member %s: %w", c.DataType, v, err)
		}
		if c.DataType == "enum" || c.DataType == "set" {
			s = strings.TrimRight(s, " ") // MySQL strips trailing spaces from members
		}
		c.Elements = append(c.Elements, s)
		quoted[i] = schema.QuoteLiteral(s)
		n := int64(utf8.RuneCountInString(s))
		maxLen = max(maxLen, n)
		sumLen += n
	}
	c.ColumnType = c.DataType + "(" + strings.Join(quoted, ",") + ")"
	c.CharMaxLength = maxLen
	if c.DataType == "set" {
		c.CharMaxLength = sumLen + int64(len(ct.EnumValues)) - 1
	}
	return nil
}

// columnOptions sets nullability, default, generation, comment and the
// other attributes.
func (s *Translator) columnOptions(c *schema.Column, o *sqlparser.ColumnTypeOptions) error {
	if o == nil {
		o = &sqlparser.ColumnTypeOptions{}
	}
	if o.Null != nil {
		c.Nullable = *o.Null
	} else if c.DataType == "timestamp" && !s.ExplicitDefaultsForTimestamp {
		c.Nullable = false
	}
	c.AutoIncrement = o.Autoincrement
	c.Invisible = o.Invisible != nil && *o.Invisible
	if o.Comment != nil {
		c.Comment = o.Comment.Val
	}
	c.OnUpdateCurrentTS = o.OnUpdate != nil
	if o.As != nil {
		c.GenerationExpr = schema.FormatExpr(o.As)
		c.GeneratedStored = o.Storage == sqlparser.StoredStorage
		return nil
	}
	if o.Default == nil {
		return nil
	}
	def, err := canonicalDefault(c, o.Default)
	if err != nil {
		return err
	}
	c.Default = def
	return nil
}
