package schema

import (
	"context"
	"fmt"
	"strings"
)

// loadObjects lists the triggers, routines and events in scope, which sluice
// does not migrate (the report names each one). Triggers follow the filter of
// their table; routines and events belong to a database in scope.
func (l *loader) loadObjects(ctx context.Context) ([]Object, error) {
	var objs []Object
	queries := []struct {
		what, q string
	}{
		{"triggers", `SELECT 'trigger', TRIGGER_SCHEMA, TRIGGER_NAME, EVENT_OBJECT_TABLE
			FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA IN %s`},
		{"routines", `SELECT LOWER(ROUTINE_TYPE), ROUTINE_SCHEMA, ROUTINE_NAME, ''
			FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA IN %s`},
		{"events", `SELECT 'event', EVENT_SCHEMA, EVENT_NAME, ''
			FROM information_schema.EVENTS WHERE EVENT_SCHEMA IN %s`},
	}
	for _, q := range queries {
		rows, err := l.query(ctx, q.what, q.q)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var o Object
			var table string
			if err := rows.Scan(&o.Kind, &o.Database, &o.Name, &table); err != nil {
				rows.Close()
				return nil, fmt.Errorf("read %s: %w", q.what, err)
			}
			o.Kind = strings.ToLower(o.Kind)
			if table != "" && !l.filter.Match(o.Database, table) {
				continue
			}
			objs = append(objs, o)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", q.what, err)
		}
	}
	return objs, nil
}
