package checkpoint

import (
	"context"
	"fmt"
)

// StreamLockClass is the first key of the advisory lock pg_advisory_lock(int,
// int) that fences the apply sessions of a stream; the second key is
// hashtext(stream). Every apply session holds it in shared mode for its whole
// life, and a run starts by taking it exclusively (internal/sink/postgres/session.go).
const StreamLockClass = 7371727

// StreamRunning reports whether a replicator of the stream is connected to
// this target now: some session holds the stream's lock. verify uses it to
// decide whether rows may still be in flight.
func StreamRunning(ctx context.Context, q Querier, stream string) (bool, error) {
	var running bool
	err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_locks
		WHERE locktype = 'advisory' AND classid = $1 AND objid = hashtext($2)::oid AND objsubid = 2 AND granted)`,
		StreamLockClass, stream).Scan(&running)
	if err != nil {
		return false, fmt.Errorf("is stream %q replicating: %w", stream, err)
	}
	return running, nil
}
