package mysql

import (
	"context"
	"fmt"
	"strings"

	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/schema"
)

// Why collations are made explicit: SHOW CREATE TABLE leaves out a collation
// that is its charset's default on that server ("`c` text CHARACTER SET
// utf16"), and the default is not the same everywhere — MariaDB 10.11's
// utf16 is utf16_general_ci, MariaDB 11.8's is utf16_uca1400_ai_ci. Replayed
// as printed, a table would compare and sort differently on the target. So
// every charset clause gets the collation the column has (information_schema,
// exact), on the source's definition and on the target's alike, and two
// definitions compare equal when the columns mean the same.

// explicitCollations adds to a SHOW CREATE TABLE's charset clauses that name
// no collation the one the column (colls, by column name) or the table
// (tableColl) has.
func explicitCollations(create string, colls map[string]string, tableColl string) string {
	lines := strings.Split(create, "\n")
	for i, l := range lines {
		switch {
		case i == 0:
		case strings.HasPrefix(l, ")"):
			if tableColl != "" && !strings.Contains(l, " COLLATE=") {
				if at := strings.Index(l, " DEFAULT CHARSET="); at >= 0 {
					end := at + len(" DEFAULT CHARSET=")
					for end < len(l) && l[end] != ' ' {
						end++
					}
					lines[i] = l[:end] + " COLLATE=" + tableColl + l[end:]
				}
			}
		default:
			lines[i] = columnCollation(l, colls)
		}
	}
	return strings.Join(lines, "\n")
}

// columnCollation makes the collation of one column line explicit: the first
// " CHARACTER SET cs" outside quotes (after the type) not followed by COLLATE.
func columnCollation(l string, colls map[string]string) string {
	trimmed := strings.TrimLeft(l, " ")
	if !strings.HasPrefix(trimmed, "`") {
		return l // an index or a constraint
	}
	name, n := backquoted(trimmed)
	if n == 0 || colls[name] == "" {
		return l
	}
	const clause = " CHARACTER SET "
	var quote byte
	for i := len(l) - len(trimmed) + n; i < len(l); i++ {
		c := l[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"' || c == '`':
			quote = c
		case strings.HasPrefix(l[i:], clause):
			end := i + len(clause)
			for end < len(l) && l[end] != ' ' && l[end] != ',' {
				end++
			}
			if strings.HasPrefix(l[end:], " COLLATE ") {
				return l
			}
			return l[:end] + " COLLATE " + colls[name] + l[end:]
		}
	}
	return l
}

// backquoted returns the identifier s starts with (`a“b` → a`b) and its
// length in s; 0 when it is not closed.
func backquoted(s string) (string, int) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] != '`' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '`' {
			b.WriteByte('`')
			i++
			continue
		}
		return b.String(), i + 1
	}
	return "", 0
}

// sourceCollations are a source table's column collations, by name.
func sourceCollations(t *schema.Table) map[string]string {
	m := map[string]string{}
	for _, c := range t.Columns {
		if c.Collation != "" {
			m[c.Name] = c.Collation
		}
	}
	return m
}

// targetCollations reads a target table's column collations and its own.
func targetCollations(ctx context.Context, q mysqlstate.Querier, db, table string) (map[string]string, string, error) {
	rows, err := q.QueryContext(ctx, `SELECT COLUMN_NAME, COLLATION_NAME FROM information_schema.COLUMNS
		WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND COLLATION_NAME IS NOT NULL`, db, table)
	if err != nil {
		return nil, "", fmt.Errorf("target: collations of %s.%s: %w", db, table, err)
	}
	defer rows.Close()
	m := map[string]string{}
	for rows.Next() {
		var name, coll string
		if err := rows.Scan(&name, &coll); err != nil {
			return nil, "", fmt.Errorf("target: collations of %s.%s: %w", db, table, err)
		}
		m[name] = coll
	}
	if err := rows.Err(); err != nil {
		return nil, "", fmt.Errorf("target: collations of %s.%s: %w", db, table, err)
	}
	var tableColl string
	err = q.QueryRowContext(ctx, `SELECT COALESCE(TABLE_COLLATION, '') FROM information_schema.TABLES
		WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?`, db, table).Scan(&tableColl)
	if err != nil {
		return nil, "", fmt.Errorf("target: collation of %s.%s: %w", db, table, err)
	}
	return m, tableColl, nil
}
