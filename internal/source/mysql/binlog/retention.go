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
	d, _, err := ReadRetentionSetting(ctx, q)
	return d, err
}

// RDSRetentionSetting names RDS's own retention setting.
const RDSRetentionSetting = "mysql.rds_configuration 'binlog retention hours'"

// rdsNoRetention is what RDS's NULL 'binlog retention hours' means: binlogs
// are purged as soon as RDS gets to it (minutes).
const rdsNoRetention = time.Minute

// ReadRetentionSetting is ReadRetention plus the setting it comes from. On
// RDS and Aurora (MySQL and MariaDB) the table mysql.rds_configuration
// exists and its 'binlog retention hours' is what purges: NULL (the
// default) keeps binlogs only minutes. Elsewhere the table does not exist
// (or the user may not read it) and the server's variables decide.
func ReadRetentionSetting(ctx context.Context, q querier) (time.Duration, string, error) {
	if d, ok := rdsRetention(ctx, q); ok {
		return d, RDSRetentionSetting, nil
	}
	d, err := serverRetention(ctx, q)
	return d, "binlog_expire_logs_seconds / expire_logs_days", err
}

// rdsRetention reads RDS's 'binlog retention hours'; ok is false when the
// source has no such table (or the user cannot read it).
func rdsRetention(ctx context.Context, q querier) (time.Duration, bool) {
	rows, err := q.QueryContext(ctx, `SELECT value FROM mysql.rds_configuration WHERE name = 'binlog retention hours'`)
	if err != nil {
		return 0, false
	}
	defer rows.Close()
	if !rows.Next() {
		return 0, false
	}
	var v sql.NullString
	if rows.Scan(&v) != nil {
		return 0, false
	}
	h, err := strconv.ParseFloat(strings.TrimSpace(v.String), 64)
	if !v.Valid || err != nil || h <= 0 {
		return rdsNoRetention, true
	}
	return time.Duration(h * float64(time.Hour)), true
}

// serverRetention reads the server's own retention variables.
func serverRetention(ctx context.Context, q querier) (time.Duration, error) {
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
