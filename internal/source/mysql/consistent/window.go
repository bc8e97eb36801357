package consistent

import (
	"fmt"

	"github.com/sluice-db/sluice/internal/schema"
)

// WindowQuery is the read of one chunk of an online copy (internal/window,
// docs/replication.md "Adding a table to a running stream"): the first n
// rows after `after` (nil: from the start) in key order matching filter ("": all), as a locking read
// in its own statement. A plain consistent read started after the low
// watermark can miss a transaction the binlog already holds at it but
// InnoDB has not committed yet (the binlog position advances first); the
// share lock waits for that writer's row and gap locks and reads the
// latest committed versions. It needs only SELECT, and holds the locks of
// n rows for the statement's duration (run it with autocommit, and a short
// innodb_lock_wait_timeout so a long source transaction makes the window
// retry rather than queue the source's writers behind it).
func WindowQuery(k *Key, table schema.TableID, selectExprs []string, filter string, after Bound, n int) (Query, error) {
	if k == nil {
		return Query{}, fmt.Errorf("%s: an online copy reads by key, and the table has none", table)
	}
	if n < 1 {
		return Query{}, fmt.Errorf("%s: a chunk of %d rows", table, n)
	}
	q, err := ChunkQuery(k, table, selectExprs, filter, after, nil)
	if err != nil {
		return Query{}, err
	}
	q.SQL += fmt.Sprintf(" LIMIT %d LOCK IN SHARE MODE", n)
	return q, nil
}
