package checkpoint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/schema"
)

// The naming a stream was made with (--schema-map, --identifiers, --rename,
// --exclude-columns) is part of its identity: rows and DDL are routed by it,
// so a later run under another mapping would write into other tables or
// columns. The snapshot records it; replicate and verify compare.
const namingDDL = `
CREATE TABLE IF NOT EXISTS sluice.stream_naming (
	stream      text PRIMARY KEY,
	naming      jsonb NOT NULL,
	recorded_at timestamptz NOT NULL DEFAULT now()
)`

// RecordNaming stores the naming of a stream (a snapshot starts the stream).
func RecordNaming(ctx context.Context, q Querier, stream string, o schema.NamingOptions) error {
	if err := EnsureTables(ctx, q, namingDDL); err != nil {
		return err
	}
	b, err := json.Marshal(o)
	if err != nil {
		return err
	}
	if _, err := q.Exec(ctx, `INSERT INTO sluice.stream_naming (stream, naming) VALUES ($1, $2)
		ON CONFLICT (stream) DO UPDATE SET naming = EXCLUDED.naming, recorded_at = now()`, stream, b); err != nil {
		return fmt.Errorf("record the naming of stream %s: %w", stream, err)
	}
	return nil
}

// LoadNaming returns the naming recorded for a stream, nil when none is.
func LoadNaming(ctx context.Context, q Querier, stream string) (*schema.NamingOptions, error) {
	var b []byte
	err := q.QueryRow(ctx, `SELECT naming FROM sluice.stream_naming WHERE stream = $1`, stream).Scan(&b)
	switch {
	case errors.Is(err, pgx.ErrNoRows) || IsUndefined(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("read the naming of stream %s: %w", stream, err)
	}
	var rec schema.NamingOptions
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, fmt.Errorf("read the naming of stream %s: %w", stream, err)
	}
	return &rec, nil
}

// CheckNaming compares o with the naming recorded for the stream: a
// configuration error (exit 2) naming each option that differs. With none
// recorded (a new stream, or one from before sluice recorded it), record
// says whether to record o now.
func CheckNaming(ctx context.Context, q Querier, stream string, o schema.NamingOptions, record bool) error {
	rec, err := LoadNaming(ctx, q, stream)
	switch {
	case err != nil:
		return err
	case rec == nil && record:
		return RecordNaming(ctx, q, stream, o)
	case rec == nil:
		return nil
	}
	if diff := o.Differs(*rec); len(diff) > 0 {
		return exitcode.ConfigError(fmt.Errorf("stream %s was made with other names than this run would use: %s; "+
			"run with the stream's options, or start a new stream with a snapshot", stream, strings.Join(diff, "; ")))
	}
	return nil
}
