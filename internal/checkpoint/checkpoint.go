// Package checkpoint keeps sluice's state in the target database, schema
// "sluice": the applied source position per stream and the schema history.
// Both are written in the same PostgreSQL transaction as the data they cover,
// which is what makes a restart exact.
package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/pipeline"
)

// Schema is the PostgreSQL schema that holds sluice's own tables.
const Schema = "sluice"

// DefaultStream is the stream name used when --stream is not given.
const DefaultStream = pipeline.DefaultStream

// Querier is what both a connection, a pool and a transaction offer.
type Querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// State is the applied position of one stream; it lives in pipeline so
// the pipeline imports no engine's state store.
type State = pipeline.State

const ddl = `
CREATE SCHEMA IF NOT EXISTS sluice;
CREATE TABLE IF NOT EXISTS sluice.checkpoint (
	stream         text PRIMARY KEY,
	position       text NOT NULL, -- the source's own encoding (model.Position.Encode)
	schema_version bigint NOT NULL DEFAULT 0,
	source_time    timestamptz,
	updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS sluice.schema_history (
	stream      text NOT NULL,
	version     bigint NOT NULL,
	database    text NOT NULL,
	table_name  text NOT NULL,
	definition  jsonb,
	ddl         text NOT NULL DEFAULT '',
	position    text NOT NULL DEFAULT '', -- where the schema change is in the source's stream
	recorded_at timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (stream, version, database, table_name)
);`

// Ensure creates the sluice schema and its tables when missing, and converts
// tables an earlier sluice left (legacy.go).
func Ensure(ctx context.Context, q Querier) error {
	if err := EnsureTables(ctx, q, ddl+legacyCheckpointSQL); err != nil {
		return fmt.Errorf("checkpoint: create schema %q: %w (the target user needs CREATE on the database)", Schema, err)
	}
	return nil
}

// EnsureTables runs CREATE ... IF NOT EXISTS statements (and conversions)
// in one implicit transaction under a transaction-level advisory lock:
// CREATE ... IF NOT EXISTS is not race-free in PostgreSQL, so concurrent
// callers are serialised; one multi-statement query keeps lock and
// statements on one session even when q is a pool.
func EnsureTables(ctx context.Context, q Querier, statements string) error {
	_, err := q.Exec(ctx, "SELECT pg_advisory_xact_lock(7371726);\n"+statements)
	return err
}

// Load returns the state of a stream, or nil when it has none. A missing
// sluice schema counts as no state. decode is the source's position decoder.
func Load(ctx context.Context, q Querier, stream string, decode model.PositionDecoder) (*State, error) {
	var st State
	var src *time.Time
	var pos string
	err := q.QueryRow(ctx, `SELECT position, schema_version, source_time, updated_at
		FROM sluice.checkpoint WHERE stream = $1`, stream).Scan(&pos, &st.SchemaVersion, &src, &st.UpdatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && (pgErr.Code == "42P01" || pgErr.Code == "3F000") {
		return nil, nil // undefined table / schema: nothing was ever recorded
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: load stream %q: %w", stream, err)
	}
	if st.Position, err = decode(pos); err != nil {
		return nil, fmt.Errorf("checkpoint: stream %q: %w", stream, err)
	}
	if src != nil {
		st.SourceTime = *src
	}
	return &st, nil
}

// Save records the state of a stream. Call it inside the transaction that
// applies the data the position covers.
func Save(ctx context.Context, q Querier, stream string, st State) error {
	var src any
	if !st.SourceTime.IsZero() {
		src = st.SourceTime
	}
	if st.Position == nil {
		return fmt.Errorf("checkpoint: save stream %q: no position (a bug)", stream)
	}
	_, err := q.Exec(ctx, `INSERT INTO sluice.checkpoint
		(stream, position, schema_version, source_time, updated_at)
		VALUES ($1, $2, $3, $4, now())
		ON CONFLICT (stream) DO UPDATE SET position = EXCLUDED.position,
			schema_version = EXCLUDED.schema_version, source_time = EXCLUDED.source_time, updated_at = now()`,
		stream, st.Position.Encode(), st.SchemaVersion, src)
	if err != nil {
		return fmt.Errorf("checkpoint: save stream %q at %s: %w", stream, st.Position, err)
	}
	return nil
}

// Delete forgets a stream's checkpoint, schema history, applied set and
// policy counts (snapshot --restart).
func Delete(ctx context.Context, q Querier, stream string) error {
	if _, err := q.Exec(ctx, `DELETE FROM sluice.checkpoint WHERE stream = $1`, stream); err != nil {
		return fmt.Errorf("checkpoint: delete stream %q: %w", stream, err)
	}
	if _, err := q.Exec(ctx, `DELETE FROM sluice.schema_history WHERE stream = $1`, stream); err != nil {
		return fmt.Errorf("checkpoint: delete schema history of stream %q: %w", stream, err)
	}
	// The applied set exists once a replicate ran; checked first because a
	// failed DELETE would abort the caller's transaction.
	var applied bool
	if err := q.QueryRow(ctx, `SELECT to_regclass('sluice.applied') IS NOT NULL`).Scan(&applied); err != nil {
		return fmt.Errorf("checkpoint: look for the applied set: %w", err)
	}
	if applied {
		if _, err := q.Exec(ctx, `DELETE FROM sluice.applied WHERE stream = $1`, stream); err != nil {
			return fmt.Errorf("checkpoint: delete applied rows of stream %q: %w", stream, err)
		}
	}
	var policies bool
	if err := q.QueryRow(ctx, `SELECT to_regclass('sluice.policy_changes') IS NOT NULL`).Scan(&policies); err != nil {
		return fmt.Errorf("checkpoint: look for the policy counts: %w", err)
	}
	if policies {
		if _, err := q.Exec(ctx, `DELETE FROM sluice.policy_changes WHERE stream = $1`, stream); err != nil {
			return fmt.Errorf("checkpoint: delete policy counts of stream %q: %w", stream, err)
		}
	}
	var owner bool
	if err := q.QueryRow(ctx, `SELECT to_regclass('sluice.stream_owner') IS NOT NULL`).Scan(&owner); err != nil {
		return fmt.Errorf("checkpoint: look for the owner records: %w", err)
	}
	if owner {
		if _, err := q.Exec(ctx, `DELETE FROM sluice.stream_owner WHERE stream = $1`, stream); err != nil {
			return fmt.Errorf("checkpoint: delete the owner record of stream %q: %w", stream, err)
		}
	}
	return nil
}
