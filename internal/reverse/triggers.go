package reverse

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/sluice-db/sluice/internal/exitcode"
)

// refuseTriggers stops the start when a MySQL table of the stream has a
// trigger. The sink writes rows with ordinary statements, and MySQL has no
// session setting that keeps triggers from firing on them (row-based
// replication does not fire them; SQL does): each would run on top of what
// PostgreSQL already did — its WAL carries the rows its own triggers
// changed — and change MySQL behind the stream's back (an AFTER INSERT
// copying into another table leaves a row PostgreSQL does not have, or a
// duplicate key when PostgreSQL's ported trigger wrote it too; a BEFORE
// trigger rewrites the values). So the operator drops them for the way back
// and creates them again before the application writes to MySQL.
func refuseTriggers(ctx context.Context, db *sql.DB, database string) error {
	rows, err := db.QueryContext(ctx, `SELECT EVENT_OBJECT_TABLE, TRIGGER_NAME, ACTION_TIMING, EVENT_MANIPULATION
		FROM information_schema.TRIGGERS WHERE EVENT_OBJECT_SCHEMA = ? ORDER BY EVENT_OBJECT_TABLE, TRIGGER_NAME`, database)
	if err != nil {
		return fmt.Errorf("target: list the triggers of %s: %w", database, err)
	}
	defer rows.Close()
	var found, names []string
	for rows.Next() {
		var table, name, timing, event string
		if err := rows.Scan(&table, &name, &timing, &event); err != nil {
			return fmt.Errorf("target: list the triggers of %s: %w", database, err)
		}
		found = append(found, fmt.Sprintf("%s.%s: %s (%s %s)", database, table, name, timing, event))
		names = append(names, "`"+database+"`.`"+name+"`")
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("target: list the triggers of %s: %w", database, err)
	}
	if len(found) == 0 {
		return nil
	}
	return exitcode.ConfigError(fmt.Errorf("the MySQL tables have triggers, which would fire on every row the reverse stream writes, "+
		"on top of the rows PostgreSQL's WAL already carries (what its own triggers did): %s. Save them (SHOW CREATE TRIGGER), "+
		"drop them while the way back runs (DROP TRIGGER %s) and create them again before the application writes to MySQL after a fallback "+
		"(docs/reverse.md, \"Triggers\")", strings.Join(found, "; "), strings.Join(names, ", ")))
}
