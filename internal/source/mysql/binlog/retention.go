package binlog

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// querier is what both a pool and one pinned connection can do.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// ReadRetention is how long the source keeps a binlog file after its last
// write before purging it: binlog_expire_logs_seconds, else expire_logs_days
// (MariaDB, MySQL before 8.4; fractional days on MariaDB). 0 means never
// purged automatically. RDS and Aurora purge by their own setting ('binlog
// retention hours'), which these variables do not show (docs/replication.md).
func ReadRetention(ctx context.Context, q querier) (time.Duration, error) {
	rows, err := q.QueryContext(ctx, `SHOW GLOBAL VARIABLES WHERE Variable_name IN ('binlog_expire_logs_seconds', 'expire_logs_days')`)
	if err != nil {
		return 0, fmt.Errorf("source: read the binlog retention: %w", err)
	}
	defer rows.Close()
	vars := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return 0, fmt.Errorf("source: read the binlog retention: %w", err)
		}
		vars[strings.ToLower(k)] = v
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("source: read the binlog retention: %w", err)
	}
	return RetentionOf(vars["binlog_expire_logs_seconds"], vars["expire_logs_days"]), nil
}

// RetentionOf combines the two settings the way the servers do: a non-zero
// binlog_expire_logs_seconds wins (MySQL 8.0 ignores expire_logs_days then;
// MariaDB keeps both in step), else expire_logs_days. Unset or unparsable
// values count as 0 (never purged).
func RetentionOf(seconds, days string) time.Duration {
	if s, err := strconv.ParseUint(strings.TrimSpace(seconds), 10, 64); err == nil && s > 0 {
		return time.Duration(min(s, math.MaxInt64/uint64(time.Second))) * time.Second
	}
	if d, err := strconv.ParseFloat(strings.TrimSpace(days), 64); err == nil && d > 0 {
		return time.Duration(math.Min(d*86400, math.MaxInt64/float64(time.Second))) * time.Second
	}
	return 0
}
