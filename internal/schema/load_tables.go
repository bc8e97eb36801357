package schema

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// loadTables reads information_schema.TABLES: base tables in scope become
// Tables, views and sequences in scope are listed as not migrated.
func (l *loader) loadTables(ctx context.Context) (map[TableID]*Table, []Object, error) {
	rows, err := l.query(ctx, "tables", `SELECT TABLE_SCHEMA, TABLE_NAME, TABLE_TYPE, ENGINE,
		TABLE_COLLATION, AUTO_INCREMENT, TABLE_COMMENT
		FROM information_schema.TABLES WHERE TABLE_SCHEMA IN %s`)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	byID := map[TableID]*Table{}
	var objs []Object
	for rows.Next() {
		var (
			id                         TableID
			typ                        string
			engine, collation, comment sql.NullString
			autoInc                    sql.Null[uint64] // BIGINT UNSIGNED: up to 18446744073709551615
		)
		if err := rows.Scan(&id.Database, &id.Name, &typ, &engine, &collation, &autoInc, &comment); err != nil {
			return nil, nil, fmt.Errorf("read tables: %w", err)
		}
		if !l.filter.Match(id.Database, id.Name) {
			continue
		}
		switch strings.ToUpper(typ) {
		case "BASE TABLE", "SYSTEM VERSIONED":
		case "VIEW", "SYSTEM VIEW":
			objs = append(objs, Object{Kind: "view", Database: id.Database, Name: id.Name})
			continue
		case "SEQUENCE":
			objs = append(objs, Object{Kind: "sequence", Database: id.Database, Name: id.Name})
			continue
		default:
			continue // TEMPORARY and other server-internal kinds
		}
		t := &Table{TableID: id, Engine: engine.String, Collation: collation.String, Comment: comment.String}
		if autoInc.Valid && autoInc.V > 0 {
			t.AutoIncrement = autoInc.V
		}
		byID[id] = t
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("read tables: %w", err)
	}
	return byID, objs, nil
}

// rawColumn is one row of information_schema.COLUMNS.
type rawColumn struct {
	id                             TableID
	name                           string
	ordinal                        int
	def                            sql.NullString
	nullable, dataType, columnType string
	extra, comment                 string
	charMax                        sql.NullInt64
	charset, collation, generation sql.NullString
}

func (l *loader) loadColumns(ctx context.Context, byID map[TableID]*Table) error {
	gen := "GENERATION_EXPRESSION"
	if !l.isCols["COLUMNS.GENERATION_EXPRESSION"] {
		gen = "NULL" // MySQL 5.6 and MariaDB 10.1 have no generated-column metadata
	}
	rows, err := l.query(ctx, "columns", `SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME, ORDINAL_POSITION,
		COLUMN_DEFAULT, IS_NULLABLE, DATA_TYPE, COLUMN_TYPE, EXTRA, COLUMN_COMMENT,
		CHARACTER_MAXIMUM_LENGTH, CHARACTER_SET_NAME, COLLATION_NAME, `+gen+`
		FROM information_schema.COLUMNS WHERE TABLE_SCHEMA IN %s
		ORDER BY TABLE_SCHEMA, TABLE_NAME, ORDINAL_POSITION`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var r rawColumn
		if err := rows.Scan(&r.id.Database, &r.id.Name, &r.name, &r.ordinal, &r.def, &r.nullable,
			&r.dataType, &r.columnType, &r.extra, &r.comment, &r.charMax, &r.charset, &r.collation,
			&r.generation); err != nil {
			return fmt.Errorf("read columns: %w", err)
		}
		t := byID[r.id]
		if t == nil {
			continue
		}
		c, err := l.column(r)
		if err != nil {
			return fmt.Errorf("read columns: table %s: %w", r.id, err)
		}
		t.Columns = append(t.Columns, c)
	}
	return rows.Err()
}

// column normalises one information_schema.COLUMNS row so that its fields
// mean what the Column type documents, whatever the server flavor.
func (l *loader) column(r rawColumn) (Column, error) {
	extra := strings.ToLower(r.extra)
	c := Column{
		Name:          r.name,
		Ordinal:       r.ordinal,
		DataType:      strings.ToLower(r.dataType),
		ColumnType:    r.columnType,
		Nullable:      strings.EqualFold(r.nullable, "YES"),
		AutoIncrement: strings.Contains(extra, "auto_increment"),
		Charset:       r.charset.String,
		Collation:     r.collation.String,
		Comment:       r.comment,
		Invisible:     strings.Contains(extra, "invisible"),
		IsJSON:        strings.EqualFold(r.dataType, "json"),
	}
	lowType := strings.ToLower(r.columnType)
	c.Unsigned = strings.Contains(lowType, " unsigned")
	c.Zerofill = strings.Contains(lowType, " zerofill")
	c.OnUpdateCurrentTS = strings.Contains(extra, "on update")
	if r.charMax.Valid {
		c.CharMaxLength = r.charMax.Int64
	}
	fillTypeNumbers(&c)
	if c.DataType == "enum" || c.DataType == "set" {
		elems, err := ParseElements(r.columnType)
		if err != nil {
			return Column{}, fmt.Errorf("column %s: %w", r.name, err)
		}
		c.Elements = elems
		if err := l.checkElements(c); err != nil {
			return Column{}, err
		}
	}
	if g := strings.TrimSpace(r.generation.String); g != "" && strings.Contains(extra, "generated") &&
		!strings.Contains(extra, "default_generated") {
		if l.flavor == "mysql" {
			g = unescapeISExpr(g)
		}
		c.GenerationExpr = CanonicalExpr(g)
		c.GeneratedStored = strings.Contains(extra, "stored")
	}
	if c.GenerationExpr == "" {
		c.Default = l.columnDefault(r, c.DataType, extra)
	}
	return c, nil
}

// columnDefault returns the default in the canonical form Column.Default
// documents (MariaDB's information_schema spelling, expressions formatted
// by CanonicalExpr), or nil when the column has none or defaults to NULL.
func (l *loader) columnDefault(r rawColumn, dataType, extra string) *string {
	if !r.def.Valid {
		return nil
	}
	v := r.def.String
	var out string
	if l.flavor == "mariadb" {
		// MariaDB 10.2.7+ quotes literals; an unquoted NULL is the NULL default.
		switch {
		case v == "NULL":
			return nil
		case IsQuotedLiteral(v) || isNumberLiteral(v) || isBitLiteral(v):
			out = v
		default:
			out = CanonicalExpr(v)
		}
		return &out
	}
	// MySQL shows literals unquoted; expressions are marked DEFAULT_GENERATED
	// (8.0.13+), and 5.7 shows CURRENT_TIMESTAMP bare.
	upper := strings.ToUpper(v)
	switch {
	case strings.Contains(extra, "default_generated"),
		strings.HasPrefix(upper, "CURRENT_TIMESTAMP") && (dataType == "timestamp" || dataType == "datetime"):
		out = CanonicalExpr(unescapeISExpr(v))
	case IsNumericType(dataType), dataType == "bit" && isBitLiteral(v):
		out = v
	default:
		out = QuoteLiteral(v)
	}
	return &out
}

func isNumberLiteral(s string) bool {
	if s == "" {
		return false
	}
	digits := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E':
		default:
			return false
		}
	}
	return digits > 0
}

func isBitLiteral(s string) bool {
	if len(s) < 3 || (s[0] != 'b' && s[0] != 'B') || s[1] != '\'' || s[len(s)-1] != '\'' {
		return false
	}
	return strings.Trim(s[2:len(s)-1], "01") == ""
}

// checkElements refuses the ENUM and SET columns whose members the server
// cannot report: MariaDB's and MySQL's column metadata (information_schema
// and SHOW CREATE TABLE alike) is utf8mb3 and shows a member's characters beyond the Basic
// Multilingual Plane (emoji, 4-byte UTF-8) as '?', while the column holds
// them. Members read that way would map the binlog's member numbers to
// other text and create a check constraint (or a replica's column) the rows
// do not pass. A member that really is '?' cannot be told apart and is
// refused too.
func (l *loader) checkElements(c Column) error {
	switch strings.ToLower(c.Charset) {
	case "utf8mb4", "utf16", "utf16le", "utf32":
	default:
		return nil
	}
	for _, e := range c.Elements {
		if strings.Contains(e, "?") {
			return fmt.Errorf("column %s: %s member %q: MySQL and MariaDB show members with characters beyond the Basic "+
				"Multilingual Plane (4-byte UTF-8, such as emoji) as '?' in information_schema and SHOW CREATE TABLE, "+
				"so sluice cannot read the column's members; rename the member on the source (ALTER TABLE ... MODIFY) "+
				"or leave the table out (--exclude)", c.Name, strings.ToUpper(c.DataType), e)
		}
	}
	return nil
}
