package schema

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// ParseElements returns the members of an ENUM or SET column type such as
// "enum('a','it”s',”)" in definition order.
func ParseElements(columnType string) ([]string, error) {
	open := strings.IndexByte(columnType, '(')
	end := strings.LastIndexByte(columnType, ')')
	if open < 0 || end < open {
		return nil, fmt.Errorf("column type %q: no member list", columnType)
	}
	body := columnType[open+1 : end]
	var elems []string
	for i := 0; i < len(body); {
		if body[i] != '\'' {
			return nil, fmt.Errorf("column type %q: member list not of quoted strings at %d", columnType, i)
		}
		j := i + 1
		for ; j < len(body); j++ {
			if body[j] == '\\' {
				j++
				continue
			}
			if body[j] == '\'' {
				if j+1 < len(body) && body[j+1] == '\'' {
					j++
					continue
				}
				break
			}
		}
		if j >= len(body) {
			return nil, fmt.Errorf("column type %q: unterminated member", columnType)
		}
		s, err := UnquoteLiteral(body[i : j+1])
		if err != nil {
			return nil, fmt.Errorf("column type %q: %w", columnType, err)
		}
		elems = append(elems, s)
		i = j + 1
		if i < len(body) {
			if body[i] != ',' {
				return nil, fmt.Errorf("column type %q: want ',' at %d", columnType, i)
			}
			i++
		}
	}
	return elems, nil
}

// typeArgs returns the numbers in the first parentheses of a column type:
// "decimal(10,2) unsigned" → [10 2]; "float" → nil.
func typeArgs(columnType string) []int {
	open := strings.IndexByte(columnType, '(')
	end := strings.IndexByte(columnType, ')')
	if open < 0 || end < open {
		return nil
	}
	var out []int
	for _, p := range strings.Split(columnType[open+1:end], ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return nil
		}
		out = append(out, n)
	}
	return out
}

// fillTypeNumbers sets Precision, Scale and FracDigits from the column type
// text, which both loaders have: the information_schema NUMERIC_PRECISION
// of FLOAT/DOUBLE and of integers is not what the definition said.
func fillTypeNumbers(c *Column) {
	args := typeArgs(c.ColumnType)
	switch c.DataType {
	case "decimal", "float", "double":
		if len(args) >= 1 {
			c.Precision = args[0]
		}
		if len(args) >= 2 {
			c.Scale = args[1]
		}
		if c.DataType == "decimal" && len(args) == 0 {
			c.Precision = 10
		}
	case "bit":
		c.Precision = 1
		if len(args) == 1 {
			c.Precision = args[0]
		}
	case "datetime", "timestamp", "time":
		if len(args) == 1 {
			c.FracDigits = args[0]
		}
	}
}

// IsTextType reports whether a DATA_TYPE holds characters (has a charset).
func IsTextType(dataType string) bool {
	switch dataType {
	case "char", "varchar", "tinytext", "text", "mediumtext", "longtext", "enum", "set":
		return true
	}
	return false
}

// IsNumericType reports whether a DATA_TYPE's defaults are unquoted numbers.
func IsNumericType(dataType string) bool {
	switch dataType {
	case "tinyint", "smallint", "mediumint", "int", "bigint", "decimal", "float", "double", "year":
		return true
	}
	return false
}

// SortKeys puts a table's indexes, foreign keys and checks in name order
// (byte order), so that both loaders produce identical tables whatever order
// the server or the statement lists them in.
func SortKeys(t *Table) {
	sort.SliceStable(t.Indexes, func(i, j int) bool { return t.Indexes[i].Name < t.Indexes[j].Name })
	sort.SliceStable(t.ForeignKeys, func(i, j int) bool { return t.ForeignKeys[i].Name < t.ForeignKeys[j].Name })
	sort.SliceStable(t.Checks, func(i, j int) bool { return t.Checks[i].Name < t.Checks[j].Name })
}
