package checkpoint

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
)

// SaveSchema records the table versions created by one schema change (or the
// initial schema, version 1, written by snapshot). A dropped table is stored
// with a NULL definition so that LoadSchema stops returning it.
func SaveSchema(ctx context.Context, q Querier, stream string, version int64, pos model.Position,
	ddlText string, tables []*schema.Table, dropped []schema.TableID) error {
	const ins = `INSERT INTO sluice.schema_history
		(stream, version, database, table_name, definition, ddl, position)
		VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (stream, version, database, table_name) DO UPDATE SET definition = EXCLUDED.definition,
			ddl = EXCLUDED.ddl, position = EXCLUDED.position, recorded_at = now()`
	var at string
	if pos != nil {
		at = pos.Encode()
	}
	for _, id := range dropped {
		if _, err := q.Exec(ctx, ins, stream, version, id.Database, id.Name, nil, ddlText, at); err != nil {
			return fmt.Errorf("schema history: record drop of %s (version %d): %w", id, version, err)
		}
	}
	for _, t := range tables {
		def, err := json.Marshal(t)
		if err != nil {
			return fmt.Errorf("schema history: encode %s: %w", t.TableID, err)
		}
		if _, err := q.Exec(ctx, ins, stream, version, t.Database, t.Name, string(def), ddlText, at); err != nil {
			return fmt.Errorf("schema history: record %s (version %d): %w", t.TableID, version, err)
		}
	}
	return nil
}

// LoadSchema returns every table as of a schema version: for each table its
// newest definition with version <= the given one, minus dropped tables.
func LoadSchema(ctx context.Context, q Querier, stream string, version int64) (map[schema.TableID]*schema.Table, error) {
	rows, err := q.Query(ctx, `SELECT DISTINCT ON (database, table_name) database, table_name, definition
		FROM sluice.schema_history WHERE stream = $1 AND version <= $2
		ORDER BY database, table_name, version DESC`, stream, version)
	if err != nil {
		return nil, fmt.Errorf("schema history: load stream %q version %d: %w", stream, version, err)
	}
	defer rows.Close()
	out := map[schema.TableID]*schema.Table{}
	for rows.Next() {
		var db, name string
		var def []byte
		if err := rows.Scan(&db, &name, &def); err != nil {
			return nil, fmt.Errorf("schema history: scan: %w", err)
		}
		if def == nil {
			continue // dropped at that version
		}
		t := new(schema.Table)
		if err := json.Unmarshal(def, t); err != nil {
			return nil, fmt.Errorf("schema history: decode %s.%s: %w", db, name, err)
		}
		out[t.TableID] = t
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("schema history: load stream %q: %w", stream, err)
	}
	return out, nil
}
