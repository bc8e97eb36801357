package binlog

import (
	"time"

	"github.com/go-mysql-org/go-mysql/replication"
)

// statementTime is when the source ran a statement, as its CURRENT_TIMESTAMP
// saw it: the event's seconds and, when the server logged them, its
// microseconds. A schema change that fills existing rows with the current
// time (MariaDB turning NULLs of a TIMESTAMP column NOT NULL, ADD COLUMN …
// DEFAULT CURRENT_TIMESTAMP) gave them this value, which the binlog carries
// nowhere else.
func statementTime(h *replication.EventHeader, e *replication.QueryEvent) time.Time {
	return time.Unix(int64(h.Timestamp), int64(statementMicros(e.StatusVars))*1000).UTC()
}
