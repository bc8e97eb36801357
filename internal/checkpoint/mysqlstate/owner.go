package mysqlstate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/sluice-db/sluice/internal/checkpoint"
)

// ownerTable records the run that owns a stream on a MySQL target, as
// sluice.stream_owner does on PostgreSQL (checkpoint/owner.go: why a
// standby's takeover needs it).
const ownerTable = `CREATE TABLE IF NOT EXISTS sluice.stream_owner (
	stream   VARBINARY(128) NOT NULL PRIMARY KEY,
	run      VARCHAR(255) NOT NULL,
	since    DATETIME(6) NOT NULL,
	settings MEDIUMTEXT NOT NULL
) ENGINE=%s DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`

// ClaimOwner records run, with its settings, as the stream's owner. The
// caller holds the stream's leader lock and has ended every earlier session.
func ClaimOwner(ctx context.Context, q Querier, stream, run, settings string) error {
	_, err := q.ExecContext(ctx, `INSERT INTO sluice.stream_owner (stream, run, since, settings) VALUES (?, ?, ?, ?)
		ON DUPLICATE KEY UPDATE run = VALUES(run), since = VALUES(since), settings = VALUES(settings)`,
		stream, run, time.Now().UTC(), settings)
	if err != nil {
		return fmt.Errorf("state: claim stream %q: %w", stream, err)
	}
	return nil
}

// CheckOwner returns nil when run owns the stream, or an error wrapping
// checkpoint.ErrNotOwner that names the owner and since when.
func CheckOwner(ctx context.Context, q Querier, stream, run string) error {
	var owner, since string
	err := q.QueryRowContext(ctx, `SELECT run, CAST(since AS CHAR) FROM sluice.stream_owner WHERE stream = ?`, stream).Scan(&owner, &since)
	switch {
	case errors.Is(err, sql.ErrNoRows) || missing(err):
		return fmt.Errorf("stream %q has no owner record: %w", stream, checkpoint.ErrNotOwner)
	case err != nil:
		return fmt.Errorf("state: owner of stream %q: %w", stream, err)
	case owner != run:
		return fmt.Errorf("stream %q has been owned by %s since %s UTC: %w", stream, owner, since, checkpoint.ErrNotOwner)
	}
	return nil
}

// OwnerSettings returns the settings the stream's owner recorded; ok is
// false when it has no owner record.
func OwnerSettings(ctx context.Context, q Querier, stream string) (settings string, ok bool, err error) {
	err = q.QueryRowContext(ctx, `SELECT settings FROM sluice.stream_owner WHERE stream = ?`, stream).Scan(&settings)
	if errors.Is(err, sql.ErrNoRows) || missing(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("state: owner of stream %q: %w", stream, err)
	}
	return settings, true, nil
}
