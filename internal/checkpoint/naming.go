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
	if len(rec.RowPolicy) > 0 && len(o.RowPolicy) == 0 {
		return exitcode.ConfigError(RowPolicyRefusal(stream, strings.Join(rec.RowPolicy, "; ")))
	}
	if diff := o.Differs(*rec); len(diff) > 0 {
		return exitcode.ConfigError(fmt.Errorf("stream %s was made with other names than this run would use: %s; "+
			"run with the stream's options, or start a new stream with a snapshot", stream, strings.Join(diff, "; ")))
	}
	return nil
}

// RowPolicyRefusal refuses a command that does not apply row filters and
// column masks on a stream that has them: it would compare, repair or
// continue the stream with rows the policy keeps out or values it masks.
func RowPolicyRefusal(stream, policy string) error {
	return fmt.Errorf("stream %s moves only filtered and masked rows (%s); this command does not apply --where/--mask "+
		"(replicate and snapshot do, docs/filters-masks.md), so it would see or write rows and values the stream keeps out; "+
		"not supported yet for such a stream", stream, policy)
}

// RowPolicies are the row filters and column masks every stream of the
// target recorded with its naming (stream → rowpolicy.Policy.Describe
// lines); none without the naming table. A command that does not apply
// policies checks them all, not only its --stream's, so that a wrong or
// default stream name cannot make it compare or repair masked tables in
// clear.
func RowPolicies(ctx context.Context, q Querier) (map[string][]string, error) {
	rows, err := q.Query(ctx, `SELECT stream, naming FROM sluice.stream_naming`)
	if IsUndefined(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the streams' row policies: %w", err)
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var stream string
		var b []byte
		if err := rows.Scan(&stream, &b); err != nil {
			return nil, fmt.Errorf("read the streams' row policies: %w", err)
		}
		var rec schema.NamingOptions
		if err := json.Unmarshal(b, &rec); err != nil {
			return nil, fmt.Errorf("read the naming of stream %s: %w", stream, err)
		}
		if len(rec.RowPolicy) > 0 {
			out[stream] = rec.RowPolicy
		}
	}
	if err := rows.Err(); err != nil && !IsUndefined(err) {
		return nil, fmt.Errorf("read the streams' row policies: %w", err)
	}
	return out, nil
}
