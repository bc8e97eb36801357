package replicate

import (
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/testenv"
)

// The DDL corpus test's row load: after each statement, rows that use the
// tables' new shape (every writable column, a row of NULLs, an update of
// every column of a row, a delete). Values that a column cannot take are
// the server's business: INSERT IGNORE and UPDATE IGNORE store what strict
// mode would refuse adjusted, or skip the row, as the application's own
// writes would; errors are not the test's subject and are passed over.

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

var quoteMy = schema.QuoteMySQL

// corpusTables lists the group database's tables but the mark.
func corpusTables(t *testing.T, my *sql.DB, db string) []string {
	t.Helper()
	var out []string
	for _, r := range testenv.MySQLTexts(t, my, `SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE' AND TABLE_NAME <> ?`, db, corpusMark) {
		out = append(out, r[0].String)
	}
	return out
}

// corpusTouched returns the tables of db whose names the statement holds.
func corpusTouched(t *testing.T, my *sql.DB, db, stmt string) []string {
	t.Helper()
	low := strings.ToLower(stmt)
	var out []string
	for _, tbl := range corpusTables(t, my, db) {
		name := strings.ToLower(tbl)
		if regexp.MustCompile(`(^|[^a-z0-9_$])` + regexp.QuoteMeta(name) + `($|[^a-z0-9_$])`).MatchString(low) {
			out = append(out, tbl)
		}
	}
	return out
}

// corpusRows writes the load; n numbers the values so that unique keys see
// new ones.
type corpusRows struct {
	db *sql.DB
	n  int
}

type corpusColumn struct {
	name, dataType, columnType, extra string
	nullable                          bool
	maxLen                            int
}

func (w *corpusRows) columns(t *testing.T, table string) []corpusColumn {
	var out []corpusColumn
	for _, r := range testenv.MySQLTexts(t, w.db, `SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, EXTRA, IS_NULLABLE, COALESCE(CHARACTER_MAXIMUM_LENGTH, 0)
		FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`, table) {
		c := corpusColumn{name: r[0].String, dataType: strings.ToLower(r[1].String), columnType: strings.ToLower(r[2].String),
			extra: strings.ToLower(r[3].String), nullable: r[4].String == "YES"}
		fmt.Sscan(r[5].String, &c.maxLen)
		if strings.Contains(c.extra, "generated") || strings.Contains(c.extra, "virtual") || strings.Contains(c.extra, "stored") {
			continue
		}
		out = append(out, c)
	}
	return out
}

// traffic inserts two rows (values, then NULLs where allowed), updates every
// column of one row and deletes one row once the table has a few.
func (w *corpusRows) traffic(t *testing.T, table string) {
	cols := w.columns(t, table)
	if len(cols) == 0 {
		return
	}
	q := quoteMy(table)
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = quoteMy(c.name)
	}
	for _, nulls := range []bool{false, true} {
		vals := make([]string, len(cols))
		for i, c := range cols {
			vals[i] = w.value(c, nulls)
		}
		w.exec("INSERT IGNORE INTO " + q + " (" + strings.Join(names, ", ") + ") VALUES (" + strings.Join(vals, ", ") + ")")
	}
	var sets []string
	for _, c := range cols {
		if !strings.Contains(c.extra, "auto_increment") {
			sets = append(sets, quoteMy(c.name)+" = "+w.value(c, false))
		}
	}
	if len(sets) > 0 {
		w.exec("UPDATE IGNORE " + q + " SET " + strings.Join(sets, ", ") + " LIMIT 1")
	}
	var rows int
	if err := w.db.QueryRow("SELECT COUNT(*) FROM " + q).Scan(&rows); err == nil && rows > 4 {
		w.exec("DELETE FROM " + q + " LIMIT 1")
	}
}

func (w *corpusRows) exec(q string) { _, _ = w.db.Exec(q) }

// value is an SQL literal for a column: NULL when nulls and the column
// allows it (an AUTO_INCREMENT column takes NULL as "the next value").
func (w *corpusRows) value(c corpusColumn, nulls bool) string {
	w.n++
	n := w.n
	if (nulls && c.nullable) || strings.Contains(c.extra, "auto_increment") {
		return "NULL"
	}
	switch c.dataType {
	case "tinyint", "bool", "boolean":
		return fmt.Sprint(n % 100)
	case "smallint", "mediumint", "int", "integer", "bigint", "year":
		if c.dataType == "year" {
			return fmt.Sprint(2000 + n%100)
		}
		return fmt.Sprint(n)
	case "decimal", "numeric", "float", "double", "real":
		return fmt.Sprintf("%d.5", n%10)
	case "bit":
		return fmt.Sprint(n % 2)
	case "date":
		return fmt.Sprintf("'2021-03-%02d'", n%28+1)
	case "datetime", "timestamp":
		return fmt.Sprintf("'2021-03-%02d 10:%02d:%02d.5'", n%28+1, n%60, n%60)
	case "time":
		return fmt.Sprintf("'%02d:%02d:07'", n%24, n%60)
	case "enum", "set":
		return "1"
	case "json":
		return fmt.Sprintf(`'{"k": %d, "s": "v%d"}'`, n, n)
	case "point":
		return fmt.Sprintf("ST_PointFromText('POINT(%d %d)')", n, n)
	case "geometry":
		return fmt.Sprintf("ST_GeomFromText('POINT(%d 1)')", n)
	case "linestring":
		return fmt.Sprintf("ST_GeomFromText('LINESTRING(0 0,%d 1)')", n)
	case "polygon":
		return "ST_GeomFromText('POLYGON((0 0,1 0,1 1,0 0))')"
	case "uuid":
		return "UUID()"
	case "inet4":
		return fmt.Sprintf("'10.0.%d.%d'", n/250%250, n%250)
	case "inet6":
		return fmt.Sprintf("'fe80::%x'", n)
	}
	if strings.Contains(c.dataType, "text") || strings.Contains(c.dataType, "char") || strings.Contains(c.dataType, "blob") ||
		strings.Contains(c.dataType, "binary") {
		s := fmt.Sprintf("v%d", n)
		if c.maxLen > 0 && len(s) > c.maxLen {
			s = s[len(s)-c.maxLen:]
		} else if !strings.Contains(c.dataType, "binary") && !strings.Contains(c.dataType, "blob") && (c.maxLen == 0 || c.maxLen >= len(s)+2) {
			s += "-é" // a character beyond ASCII where it fits
		}
		return schema.QuoteLiteral(s)
	}
	return "DEFAULT"
}
