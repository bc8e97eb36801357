package reverse

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/sluice-db/sluice/internal/exitcode"
)

// Trigger is one MySQL trigger on a table of the stream's database.
type Trigger struct {
	Database, Table, Name string
	Timing, Event         string // BEFORE/AFTER, INSERT/UPDATE/DELETE
}

func (t Trigger) String() string {
	return fmt.Sprintf("%s.%s: %s (%s %s)", t.Database, t.Table, t.Name, t.Timing, t.Event)
}

// Triggers lists the triggers of a MySQL database, the ones the way back
// refuses to start with (refuseTriggers). The cut-over lists them too, so the
// operator learns before the switch what the reverse stream will ask for.
func Triggers(ctx context.Context, db *sql.DB, database string) ([]Trigger, error) {
	rows, err := db.QueryContext(ctx, `SELECT EVENT_OBJECT_TABLE, TRIGGER_NAME, ACTION_TIMING, EVENT_MANIPULATION
		FROM information_schema.TRIGGERS WHERE EVENT_OBJECT_SCHEMA = ? ORDER BY EVENT_OBJECT_TABLE, TRIGGER_NAME`, database)
	if err != nil {
		return nil, fmt.Errorf("list the triggers of %s: %w", database, err)
	}
	defer rows.Close()
	var found []Trigger
	for rows.Next() {
		t := Trigger{Database: database}
		if err := rows.Scan(&t.Table, &t.Name, &t.Timing, &t.Event); err != nil {
			return nil, fmt.Errorf("list the triggers of %s: %w", database, err)
		}
		found = append(found, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list the triggers of %s: %w", database, err)
	}
	return found, nil
}

// DropTriggersAdvice is what the operator does with the triggers before the
// way back starts, and after a fallback.
func DropTriggersAdvice(found []Trigger) string {
	var names []string
	for _, t := range found {
		names = append(names, "`"+t.Database+"`.`"+t.Name+"`")
	}
	return fmt.Sprintf("save them (SHOW CREATE TRIGGER), drop them while the way back runs (DROP TRIGGER %s) "+
		"and create them again before the application writes to MySQL after a fallback (docs/reverse.md, \"Triggers\")",
		strings.Join(names, ", "))
}

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
	found, err := Triggers(ctx, db, database)
	if err != nil {
		return fmt.Errorf("target: %w", err)
	}
	if len(found) == 0 {
		return nil
	}
	var list []string
	for _, t := range found {
		list = append(list, t.String())
	}
	return exitcode.ConfigError(fmt.Errorf("the MySQL tables have triggers, which would fire on every row the reverse stream writes, "+
		"on top of the rows PostgreSQL's WAL already carries (what its own triggers did): %s. %s",
		strings.Join(list, "; "), capitalize(DropTriggersAdvice(found))))
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
