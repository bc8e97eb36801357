package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/schema"
)

// A MySQL target has no session setting that keeps triggers from firing
// on the rows sluice writes: row-based replication does not fire them, but
// the sink writes with ordinary statements, which do. Each trigger would
// run on top of what the rows already carry (the source's triggers'
// effects, in the binlog or PostgreSQL's WAL) and change the target behind
// the stream's back: an AFTER INSERT copying into another table leaves a row
// the source does not have (or a duplicate key when the source's own
// trigger wrote it too), a BEFORE trigger rewrites the values. So every
// stream into MySQL — forward replicate and snapshot, and the way back —
// refuses to start while the target database has triggers.

// Trigger is one MySQL trigger on a table of a database.
type Trigger struct {
	Database, Table, Name string
	Timing, Event         string // BEFORE/AFTER, INSERT/UPDATE/DELETE
}

func (t Trigger) String() string {
	return fmt.Sprintf("%s.%s: %s (%s %s)", t.Database, t.Table, t.Name, t.Timing, t.Event)
}

// Triggers lists the triggers of a MySQL database. The cut-over lists them
// too, so the operator learns before the switch what the way back will ask.
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

// DropTriggersAdvice is what the operator does with the triggers before a
// stream writes into the database: until names when to create them again.
func DropTriggersAdvice(found []Trigger, until string) string {
	var names []string
	for _, t := range found {
		names = append(names, schema.QuoteMySQL(t.Database)+"."+schema.QuoteMySQL(t.Name))
	}
	return fmt.Sprintf("save them (SHOW CREATE TRIGGER), drop them (DROP TRIGGER %s) and create them again %s",
		strings.Join(names, ", "), until)
}

// RefuseTriggers is a configuration error when the target database has
// triggers (nil when it has none). writer names what would write the rows
// ("the reverse stream"), carries what they already hold, until when to
// create the triggers again (DropTriggersAdvice).
func RefuseTriggers(ctx context.Context, db *sql.DB, database, writer, carries, until string) error {
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
	advice := DropTriggersAdvice(found, until)
	return exitcode.ConfigError(fmt.Errorf("the MySQL tables have triggers, which would fire on every row %s writes, "+
		"on top of %s: %s. %s", writer, carries, strings.Join(list, "; "), strings.ToUpper(advice[:1])+advice[1:]))
}

// RefuseForwardTriggers is RefuseTriggers for a stream from MySQL into this
// target database (replicate and snapshot).
func RefuseForwardTriggers(ctx context.Context, db *sql.DB, database string) error {
	return RefuseTriggers(ctx, db, database, "sluice",
		"the rows the source's binlog already carries (what the source's triggers did)",
		"when the application moves to this database (docs/replication.md, \"Triggers\")")
}
