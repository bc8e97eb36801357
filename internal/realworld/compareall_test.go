package realworld

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/testenv"
)

// compareAllPG compares every base table of the source database with its
// PostgreSQL copy, every column, each rendered by its MySQL type (compare_test.go):
// integers, decimals, ENUM, SET, YEAR, DATE and TIME as text; character
// strings without NUL (sluice's default --nul-char strip); bytes as hex;
// FLOAT/DOUBLE by value; DATETIME and TIMESTAMP to the microsecond; BIT as a
// number. minRows requires at least that many source rows in the tables it
// names. It returns the number of tables compared.
func compareAllPG(t *testing.T, m migrated, minRows map[string]int) int {
	t.Helper()
	tables := testenv.MySQLRows(t, m.my, `SELECT TABLE_NAME FROM information_schema.TABLES
		WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME`, m.db)
	for _, table := range tables {
		// MariaDB's JSON is a LONGTEXT with a check: jsonb on PostgreSQL.
		jsonb := map[string]bool{}
		for _, r := range testenv.PGTexts(t, m.pg, `SELECT column_name FROM information_schema.columns
			WHERE table_schema = $1 AND table_name = $2 AND data_type = 'jsonb'`, m.db, m.pgTable(table)) {
			jsonb[*r[0]] = true
		}
		var cols []col
		for _, r := range testenv.MySQLRows(t, m.my, `SELECT CONCAT(DATA_TYPE, ' ', COLUMN_NAME) FROM information_schema.COLUMNS
			WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`, m.db, table) {
			typ, name, _ := strings.Cut(r, " ")
			if m.excluded(table, name) {
				continue
			}
			if jsonb[m.pgColumn(table, name)] {
				typ = "json"
			}
			cols = append(cols, colFor(typ, name))
		}
		compareTable(t, m, table, minRows[table], cols...)
	}
	for table := range minRows {
		found := false
		for _, have := range tables {
			found = found || have == table
		}
		if !found {
			t.Errorf("table %s is not in the source database", table)
		}
	}
	return len(tables)
}

// colFor is how compareAllPG renders a column of MySQL DATA_TYPE typ.
func colFor(typ, name string) col {
	switch strings.ToLower(typ) {
	case "char", "varchar", "tinytext", "text", "mediumtext", "longtext":
		return nulStripped(name)
	case "binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob",
		"geometry", "point", "linestring", "polygon", "multipoint", "multilinestring", "multipolygon", "geometrycollection":
		return hexed(name)
	case "float", "double":
		return float(name)
	case "datetime":
		return datetime(name)
	case "timestamp":
		return ts(name)
	case "bit":
		return bit(name)
	case "time":
		return timeCol(name)
	case "json":
		return jsonCol(name)
	default:
		return plain(name)
	}
}

// requireNoWarningsAbout logs migrate's snapshot warnings and fails on any
// that mentions one of words (a dropped default, an untranslated
// expression...): what a scenario expects to arrive whole.
func requireNoWarningsAbout(t *testing.T, m migrated, words ...string) {
	t.Helper()
	var rep struct {
		Snapshot struct {
			Warnings    []string `json:"warnings"`
			NotMigrated []string `json:"not_migrated"`
		} `json:"snapshot"`
	}
	if err := json.Unmarshal([]byte(m.report), &rep); err != nil {
		t.Fatalf("migrate's report: %v\n%s", err, m.report)
	}
	for _, w := range append(rep.Snapshot.Warnings, rep.Snapshot.NotMigrated...) {
		t.Logf("snapshot report: %s", w)
		for _, word := range words {
			if strings.Contains(strings.ToLower(w), word) {
				t.Errorf("snapshot warning about %q: %s", word, w)
			}
		}
	}
}
