package checkpoint

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sluice-db/sluice/internal/typemap"
)

// policyDDL keeps, per stream, how many values a policy (zero dates, NUL
// characters) changed while replicating, so that status and the next run
// see them: counts are cumulative over the stream's runs. They are saved
// with the status loop, not inside the data's transactions, so a crash can
// count a value twice (it is converted again when its transaction is
// replayed): the numbers are "at least".
const policyDDL = `
CREATE TABLE IF NOT EXISTS sluice.policy_changes (
	stream      text NOT NULL,
	table_name  text NOT NULL,
	column_name text NOT NULL,
	policy      text NOT NULL,
	count       bigint NOT NULL,
	updated_at  timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (stream, table_name, column_name, policy)
)`

// SavePolicyChanges records the stream's cumulative counts of values changed
// by a policy during replication (absolute numbers, not increments).
func SavePolicyChanges(ctx context.Context, q Querier, stream string, counts []typemap.ChangeCount) error {
	if len(counts) == 0 {
		return nil
	}
	if err := EnsureTables(ctx, q, policyDDL); err != nil {
		return fmt.Errorf("checkpoint: create table sluice.policy_changes: %w", err)
	}
	for _, c := range counts {
		_, err := q.Exec(ctx, `INSERT INTO sluice.policy_changes (stream, table_name, column_name, policy, count)
			VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (stream, table_name, column_name, policy) DO UPDATE SET count = EXCLUDED.count, updated_at = now()`,
			stream, c.Table, c.Column, c.Policy, c.Count)
		if err != nil {
			return fmt.Errorf("checkpoint: save policy counts of stream %q: %w", stream, err)
		}
	}
	return nil
}

// LoadPolicyChanges returns the counts SavePolicyChanges recorded (none when
// the table does not exist yet).
func LoadPolicyChanges(ctx context.Context, q Querier, stream string) ([]typemap.ChangeCount, error) {
	return loadCounts(ctx, q, `SELECT table_name, column_name, policy, count FROM sluice.policy_changes WHERE stream = $1`, stream)
}

// LoadSnapshotPolicyChanges sums the values a policy changed during the
// stream's snapshot (the snapshot's chunk state keeps them per chunk).
func LoadSnapshotPolicyChanges(ctx context.Context, q Querier, stream string) ([]typemap.ChangeCount, error) {
	return loadCounts(ctx, q, `SELECT c->>'table', c->>'column', c->>'policy', SUM((c->>'count')::bigint)::bigint
		FROM sluice.snapshot_chunk, jsonb_array_elements(CASE WHEN jsonb_typeof(changes) = 'array' THEN changes ELSE '[]' END) c
		WHERE stream = $1 GROUP BY 1, 2, 3`, stream)
}

func loadCounts(ctx context.Context, q Querier, query, stream string) ([]typemap.ChangeCount, error) {
	rows, err := q.Query(ctx, query, stream)
	if IsUndefined(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: load policy counts of stream %q: %w", stream, err)
	}
	defer rows.Close()
	var out []typemap.ChangeCount
	for rows.Next() {
		var c typemap.ChangeCount
		if err := rows.Scan(&c.Table, &c.Column, &c.Policy, &c.Count); err != nil {
			return nil, fmt.Errorf("checkpoint: scan policy counts: %w", err)
		}
		if c.Count > 0 {
			out = append(out, c)
		}
	}
	if err := rows.Err(); IsUndefined(err) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("checkpoint: load policy counts of stream %q: %w", stream, err)
	}
	typemap.SortChangeCounts(out)
	return out, nil
}

// IsUndefined reports PostgreSQL's "no such table/schema" (undefined_table,
// invalid_schema_name): nothing was recorded there yet.
func IsUndefined(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "42P01" || pgErr.Code == "3F000")
}
