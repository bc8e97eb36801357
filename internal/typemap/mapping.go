package typemap

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sluice-db/sluice/internal/schema"
)

// target is the PostgreSQL side of one column: its type text, Kind and, for
// integer kinds, the Go width pgx gets (16, 32 or 64 bits).
type target struct {
	pgType string
	kind   Kind
	bits   int
}

// synonyms maps type names the DDL parser may write to the DATA_TYPE
// information_schema reports for them, so both loaders map alike.
var synonyms = map[string]string{
	"integer":           "int",
	"int1":              "tinyint",
	"int2":              "smallint",
	"int3":              "mediumint",
	"middleint":         "mediumint",
	"int4":              "int",
	"int8":              "bigint",
	"bool":              "tinyint",
	"boolean":           "tinyint",
	"numeric":           "decimal",
	"dec":               "decimal",
	"fixed":             "decimal",
	"real":              "double",
	"double precision":  "double",
	"float4":            "float",
	"float8":            "double",
	"character":         "char",
	"nchar":             "char",
	"national char":     "char",
	"character varying": "varchar",
	"nvarchar":          "varchar",
	"national varchar":  "varchar",
	"long":              "mediumtext",
	"long varchar":      "mediumtext",
	"long varbinary":    "mediumblob",
	"geomcollection":    "geometrycollection",
	"serial":            "bigint",
}

// dataType returns the column's lower-case information_schema DATA_TYPE.
func dataType(c schema.Column) string {
	dt := strings.ToLower(strings.TrimSpace(c.DataType))
	if s, ok := synonyms[dt]; ok {
		return s
	}
	return dt
}

// PGType returns the PostgreSQL type for a column, as written in CREATE TABLE
// and ALTER TABLE, and the Kind of its values. An unknown MySQL type is an error.
func (m *Mapper) PGType(c schema.Column) (string, Kind, error) {
	t, err := m.target(c)
	if err != nil {
		return "", 0, err
	}
	return t.pgType, t.kind, nil
}

func (m *Mapper) target(c schema.Column) (target, error) {
	dt := dataType(c)
	if c.IsJSON || dt == "json" {
		return target{pgType: "jsonb", kind: KindJSON}, nil
	}
	switch dt {
	case "tinyint", "smallint":
		if dt == "smallint" && c.Unsigned {
			return target{"integer", KindInt, 32}, nil
		}
		// TINYINT(1)/BOOL stays an integer: MySQL lets it hold -128..127.
		return target{"smallint", KindInt, 16}, nil
	case "mediumint":
		return target{"integer", KindInt, 32}, nil
	case "int":
		if c.Unsigned {
			return target{"bigint", KindInt, 64}, nil
		}
		return target{"integer", KindInt, 32}, nil
	case "bigint":
		if c.Unsigned {
			return target{"numeric(20,0)", KindUint64, 0}, nil
		}
		return target{"bigint", KindInt, 64}, nil
	case "decimal":
		p, s := c.Precision, c.Scale
		if p == 0 {
			p = 10 // MySQL's default for a bare DECIMAL
		}
		return target{"numeric(" + strconv.Itoa(p) + "," + strconv.Itoa(s) + ")", KindDecimal, 0}, nil
	case "float":
		return target{"real", KindFloat32, 0}, nil
	case "double":
		return target{"double precision", KindFloat64, 0}, nil
	case "bit":
		return target{"bit(" + strconv.Itoa(bitWidth(c)) + ")", KindBit, 0}, nil
	case "year":
		if strings.Contains(strings.ToLower(c.ColumnType), "year(2)") {
			// Its text form ("05") loses the century the binlog carries (2005).
			return target{}, fmt.Errorf("column %s: YEAR(2) is ambiguous in MySQL's text output; "+
				"convert it on the source first (ALTER TABLE ... MODIFY %s YEAR)", c.Name, c.Name)
		}
		return target{"smallint", KindYear, 16}, nil
	case "date":
		return target{"date", KindDate, 0}, nil
	case "datetime":
		return target{"timestamp(" + strconv.Itoa(fsp(c)) + ") without time zone", KindDateTime, 0}, nil
	case "timestamp":
		return target{"timestamp(" + strconv.Itoa(fsp(c)) + ") with time zone", KindTimestamp, 0}, nil
	case "time":
		return target{"interval", KindTime, 0}, nil
	case "char", "varchar":
		if c.CharMaxLength <= 0 {
			// CHAR(0)/VARCHAR(0) hold only '' (or NULL); PostgreSQL has no varchar(0).
			return target{"text", KindText, 0}, nil
		}
		return target{"varchar(" + strconv.FormatInt(c.CharMaxLength, 10) + ")", KindText, 0}, nil
	case "tinytext", "text", "mediumtext", "longtext":
		return target{"text", KindText, 0}, nil
	case "binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob":
		return target{"bytea", KindBinary, 0}, nil
	case "enum":
		return target{"text", KindEnum, 0}, nil
	case "set":
		return target{"text", KindSet, 0}, nil
	case "geometry", "point", "linestring", "polygon", "multipoint",
		"multilinestring", "multipolygon", "geometrycollection":
		if m.opts.PostGIS {
			return target{"geometry", KindGeometry, 0}, nil
		}
		return target{"bytea", KindGeometry, 0}, nil
	case "vector":
		if m.opts.RawVector {
			return target{"bytea", KindBinary, 0}, nil
		}
	case "uuid":
		return target{"uuid", KindUUID, 0}, nil
	case "inet4", "inet6":
		return target{"inet", KindInet, 0}, nil
	}
	return target{}, fmt.Errorf("column %s: MySQL type %q (%s) has no PostgreSQL mapping in sluice",
		c.Name, c.DataType, c.ColumnType)
}

func bitWidth(c schema.Column) int {
	if c.Precision <= 0 {
		return 1
	}
	return c.Precision
}

func fsp(c schema.Column) int {
	if c.FracDigits < 0 || c.FracDigits > 6 {
		return 6
	}
	return c.FracDigits
}
