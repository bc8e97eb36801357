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

// refuseAll is every reason not to run the change, each with its fix, at
// once: a user who fixed the one reason shown met the next on the next try.
func refuseAll(reasons []string) error {
	if len(reasons) == 1 {
		return refuse("%s", reasons[0])
	}
	return refuse("%d reasons, each with its fix:\n  - %s", len(reasons), strings.Join(reasons, "\n  - "))
}

// binlogProblems: the changed keys come from the row binlog, with full
// images (a key change must name the old key too).
func binlogProblems(ctx context.Context, db *sql.DB) ([]string, error) {
	var logBin, format, image sql.NullString
	err := db.QueryRowContext(ctx, "SELECT @@log_bin, @@binlog_format, @@binlog_row_image").Scan(&logBin, &format, &image)
	if err != nil {
		return nil, fmt.Errorf("alter: read binlog settings: %w", err)
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
	return bad, nil
}

// triggerProblems refuses a table with triggers, naming them and how to
// carry them: RENAME TABLE moves a table's triggers with it, so they would
// end on the old table, and recreated on the copy before the swap they
// would fire on the copy's own writes (docs/alter.md "Triggers").
func triggerProblems(ctx context.Context, db *sql.DB, schemaName, table string) ([]string, error) {
	rows, err := queryMaps(ctx, db, `SELECT TRIGGER_NAME AS name, ACTION_TIMING AS timing, EVENT_MANIPULATION AS event
		FROM information_schema.TRIGGERS WHERE EVENT_OBJECT_SCHEMA = ? AND EVENT_OBJECT_TABLE = ? ORDER BY TRIGGER_NAME`, schemaName, table)
	if err != nil {
		return nil, fmt.Errorf("alter: read triggers: %w", err)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	names := make([]string, len(rows))
	for i, r := range rows {
		names[i] = fmt.Sprintf("%s (%s %s)", r["name"], r["timing"], r["event"])
	}
	return []string{fmt.Sprintf("%s.%s has trigger(s) %s, which sluice alter does not carry to the new table (the RENAME would leave them on the old one); "+
		"to carry them: save each with SHOW CREATE TRIGGER, DROP TRIGGER it, run sluice alter, and CREATE TRIGGER it again from the saved text "+
		"(writes in between do not fire it); where every write must fire them, run the server's own ALTER TABLE instead",
		schemaName, table, strings.Join(names, ", "))}, nil
}

var (
	renameColumnRE = regexp.MustCompile(`(?i)\bRENAME\s+(COLUMN\b|TO\b|AS\b)`)
	changeColumnRE = regexp.MustCompile("(?i)\\bCHANGE\\s+(?:COLUMN\\s+)?(?:IF\\s+EXISTS\\s+)?(`[^`]+`|\\S+)\\s+(`[^`]+`|\\S+)")
	algorithmRE    = regexp.MustCompile(`(?i)\b(ALGORITHM|LOCK)\s*=`)
	foreignKeyRE   = regexp.MustCompile(`(?i)\bFOREIGN\s+KEY\b`)
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
	if foreignKeyRE.MatchString(clauses) {
		// The copy has no constraints until the swap moves the table's
		// own to it (fk.go), so one added or dropped here would not be.
		return refuse("--alter adds or drops a foreign key: run that with the server's own ALTER TABLE " +
			"(dropping one, and adding one with foreign_key_checks=0, are INPLACE metadata changes), before or after sluice alter")
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

// refusals collects every reason the copy method cannot run on this table
// (the server's binlog settings, triggers, foreign keys, the plan) and
// refuses with all of them, or returns nil.
func (r *runner) refusals(ctx context.Context) error {
	reasons, err := binlogProblems(ctx, r.db)
	if err != nil {
		return err
	}
	trig, err := triggerProblems(ctx, r.db, r.id.Database, r.id.Name)
	if err != nil {
		return err
	}
	reasons = append(reasons, trig...)
	fk, err := r.foreignKeyProblems(ctx)
	if err != nil {
		return err
	}
	reasons = append(reasons, fk...)
	if r.o.group != nil && !r.fks.empty() {
		reasons = append(reasons, fmt.Sprintf("%s has foreign keys (or is referenced by some): several tables in one swap do not carry foreign keys yet; alter %s on its own", r.id, r.id.Name))
	}
	reasons = append(reasons, r.planProblems(r.p)...)
	if r.o.RevertWindow > 0 {
		rev, err := r.revertProblems(ctx)
		if err != nil {
			return err
		}
		reasons = append(reasons, rev...)
	}
	if len(reasons) == 0 {
		return nil
	}
	return refuseAll(reasons)
}
