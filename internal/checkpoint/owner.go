package checkpoint

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// The owner record fences a replicator that was taken over (replicate
// --standby): the stream's advisory lock alone cannot, because a standby
// takes over from a frozen replicator by ending its sessions, and the frozen
// process, once it runs again, would open new ones and take the lock shared
// beside the new owner's. So a run claims the stream under the exclusive lock
// (its fence), and every apply session checks, after it holds the lock
// shared, that the claim is still its run's: a session of a replicator that
// lost the stream refuses to start, and those it had were ended by the
// takeover (internal/sink/postgres/standby.go).
const ownerDDL = `
CREATE SCHEMA IF NOT EXISTS sluice;
CREATE TABLE IF NOT EXISTS sluice.stream_owner (
	stream text PRIMARY KEY,
	run      text NOT NULL, -- the claiming run: sluice pid@host and its start time
	since    timestamptz NOT NULL DEFAULT now(),
	settings text NOT NULL DEFAULT '' -- what the run writes (replicate's scope settings, one per line)
);
ALTER TABLE sluice.stream_owner ADD COLUMN IF NOT EXISTS settings text NOT NULL DEFAULT '';`

// ErrNotOwner is returned by CheckOwner when another run owns the stream.
var ErrNotOwner = errors.New("another replicator owns the stream")

// ClaimOwner records run, with its settings, as the stream's owner. The
// caller holds the stream's lock exclusively.
func ClaimOwner(ctx context.Context, q Querier, stream, run, settings string) error {
	if err := EnsureTables(ctx, q, ownerDDL); err != nil {
		return fmt.Errorf("checkpoint: create sluice.stream_owner: %w", err)
	}
	_, err := q.Exec(ctx, `INSERT INTO sluice.stream_owner (stream, run, settings) VALUES ($1, $2, $3)
		ON CONFLICT (stream) DO UPDATE SET run = EXCLUDED.run, since = now(), settings = EXCLUDED.settings`, stream, run, settings)
	if err != nil {
		return fmt.Errorf("checkpoint: claim stream %q: %w", stream, err)
	}
	return nil
}

// CheckOwner returns nil when run owns the stream, or an error wrapping
// ErrNotOwner that names the owner and since when.
func CheckOwner(ctx context.Context, q Querier, stream, run string) error {
	var owner, since string
	err := q.QueryRow(ctx, `SELECT run, to_char(since AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') FROM sluice.stream_owner WHERE stream = $1`,
		stream).Scan(&owner, &since)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return fmt.Errorf("stream %q has no owner record: %w", stream, ErrNotOwner)
	case err != nil:
		return fmt.Errorf("checkpoint: owner of stream %q: %w", stream, err)
	case owner != run:
		return fmt.Errorf("stream %q has been owned by %s since %s UTC: %w", stream, owner, since, ErrNotOwner)
	}
	return nil
}

// OwnerSettings returns the settings the stream's owner recorded; ok is
// false when the stream has no owner record (or the table does not exist).
func OwnerSettings(ctx context.Context, q Querier, stream string) (settings string, ok bool, err error) {
	var exists bool
	if err := q.QueryRow(ctx, `SELECT to_regclass('sluice.stream_owner') IS NOT NULL`).Scan(&exists); err != nil || !exists {
		return "", false, err
	}
	err = q.QueryRow(ctx, `SELECT settings FROM sluice.stream_owner WHERE stream = $1`, stream).Scan(&settings)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("checkpoint: owner of stream %q: %w", stream, err)
	}
	return settings, true, nil
}
