package alter

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sluice-db/sluice/internal/exitcode"
)

// refuse is a change sluice will not make: exit 2 with the reason.
func refuse(format string, a ...any) error {
	return exitcode.ConfigError(fmt.Errorf("alter: "+format, a...))
}

// checkBinlog: the changed keys come from the row binlog, with full images
// (a key change must name the old key too).
func checkBinlog(ctx context.Context, db *sql.DB) error {
	var logBin, format, image sql.NullString
	err := db.QueryRowContext(ctx, "SELECT @@log_bin, @@binlog_format, @@binlog_row_image").Scan(&logBin, &format, &image)
	if err != nil {
		return fmt.Errorf("alter: read binlog settings: %w", err)
	}
	var bad []string
	if logBin.String != "1" && !strings.EqualFold(logBin.String, "ON") {
		bad = append(bad, "log_bin is off (start the server with log_bin)")
	}
	if !strings.EqualFold(format.String, "ROW") {
		bad = append(bad, fmt.Sprintf("binlog_format is %s, sluice alter needs ROW (SET GLOBAL binlog_format = 'ROW')", format.String))
	}
	if !strings.EqualFold(image.String, "FULL") {
		bad = append(bad, fmt.Sprintf("binlog_row_image is %s, sluice alter needs FULL (SET GLOBAL binlog_row_image = 'FULL')", image.String))
	}
	if len(bad) > 0 {
		return refuse("%s", strings.Join(bad, "; "))
	}
	return nil
}

// checkDependents refuses a table that triggers or foreign keys tie to
// other tables: a trigger would fire on the copy's writes into nothing (it
// stays on the old table), and foreign keys would point at the old table
// after the swap, or be lost by CREATE TABLE ... LIKE.
func checkDependents(ctx context.Context, db *sql.DB, schemaName, table string) error {
	var n int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM information_schema.TRIGGERS
		WHERE EVENT_OBJECT_SCHEMA = ? AND EVENT_OBJECT_TABLE = ?`, schemaName, table).Scan(&n); err != nil {
		return fmt.Errorf("alter: read triggers: %w", err)
	}
	if n > 0 {
		return refuse("%s.%s has %d trigger(s): sluice alter does not copy triggers to the new table; drop them first, or use ALTER TABLE directly", schemaName, table, n)
	}
	var refs []string
	rows, err := db.QueryContext(ctx, `SELECT DISTINCT CONCAT(CONSTRAINT_SCHEMA, '.', TABLE_NAME, ' (', CONSTRAINT_NAME, ')')
		FROM information_schema.REFERENTIAL_CONSTRAINTS
		WHERE (REFERENCED_TABLE_NAME = ? AND UNIQUE_CONSTRAINT_SCHEMA = ?) OR (CONSTRAINT_SCHEMA = ? AND TABLE_NAME = ?)`,
		table, schemaName, schemaName, table)
	if err != nil {
		return fmt.Errorf("alter: read foreign keys: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return err
		}
		refs = append(refs, s)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(refs) > 0 {
		return refuse("%s.%s takes part in foreign keys (%s): after a swap they would reference the old table or be lost; sluice alter refuses tables with foreign keys",
			schemaName, table, strings.Join(refs, ", "))
	}
	return nil
}

var (
	renameColumnRE = regexp.MustCompile(`(?i)\bRENAME\s+(COLUMN\b|TO\b|AS\b)`)
	changeColumnRE = regexp.MustCompile("(?i)\\bCHANGE\\s+(?:COLUMN\\s+)?(?:IF\\s+EXISTS\\s+)?(`[^`]+`|\\S+)\\s+(`[^`]+`|\\S+)")
	algorithmRE    = regexp.MustCompile(`(?i)\b(ALGORITHM|LOCK)\s*=`)
)

// checkAlterText refuses what the clauses themselves make ambiguous or
// unsafe: renaming columns (the copy matches columns by name, so a renamed
// column's data would be silently lost), renaming the table, and
// ALGORITHM/LOCK clauses (sluice chooses those).
func checkAlterText(clauses string) error {
	if strings.TrimSpace(clauses) == "" {
		return refuse("--alter is empty")
	}
	if algorithmRE.MatchString(clauses) {
		return refuse("--alter must not carry ALGORITHM= or LOCK=: sluice chooses (see --method)")
	}
	stmt, err := sqlparser.NewTestParser().Parse("ALTER TABLE t " + clauses)
	if err == nil {
		if at, ok := stmt.(*sqlparser.AlterTable); ok {
			for _, opt := range at.AlterOptions {
				switch o := opt.(type) {
				case *sqlparser.RenameColumn:
					return refuseRename(o.OldName.Name.String(), o.NewName.Name.String())
				case *sqlparser.ChangeColumn:
					if !strings.EqualFold(o.OldColumn.Name.String(), o.NewColDefinition.Name.String()) {
						return refuseRename(o.OldColumn.Name.String(), o.NewColDefinition.Name.String())
					}
				case *sqlparser.RenameTableName:
					return refuse("--alter renames the table: use RENAME TABLE directly")
				}
			}
			return nil
		}
	}
	// The parser does not know every MariaDB clause: a textual check.
	if m := renameColumnRE.FindString(clauses); m != "" {
		return refuse("--alter renames (%q): a renamed column's data would not be copied and renaming the table is not an alter; do it with ALTER TABLE directly", m)
	}
	for _, m := range changeColumnRE.FindAllStringSubmatch(clauses, -1) {
		if !strings.EqualFold(strings.Trim(m[1], "`"), strings.Trim(m[2], "`")) {
			return refuseRename(strings.Trim(m[1], "`"), strings.Trim(m[2], "`"))
		}
	}
	return nil
}

func refuseRename(from, to string) error {
	return refuse("--alter renames column %s to %s: the copy matches columns by name, so the data would not follow the rename; "+
		"rename it with ALTER TABLE ... RENAME COLUMN (INSTANT on current servers) before or after the change", from, to)
}

// errNoKey is the refusal when old and new share no row identity.
var errNoKey = errors.New("no PRIMARY KEY or NOT NULL unique key with the same columns and types in the old and the new definition: " +
	"changed rows could not be matched between the table and its copy")
