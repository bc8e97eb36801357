package mysql

import (
	"fmt"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/schema"
)

// timestampLast is the last second a TIMESTAMP holds on MySQL and on MariaDB before 11.5, in
// UTC (the sessions' time zone); MariaDB 11.5+ holds up to 2106-02-07 06:28:15.
const timestampLast = "2038-01-19 03:14:07"

// NarrowTimestamp reports whether the server of VERSION() version ends TIMESTAMP at 2038.
func NarrowTimestamp(version string) bool {
	if !isMariaDB(version) {
		return true
	}
	var major, minor int
	if n, _ := fmt.Sscanf(version, "%d.%d", &major, &minor); n < 2 {
		return true
	}
	return major < 11 || major == 11 && minor < 5
}

// CheckTimestamp refuses a TIMESTAMP value (its text in UTC, as the binlog and the snapshot's
// UTC sessions give it) that a target with NarrowTimestamp cannot hold: a MariaDB 11.5+
// source's value after 2038. The target's session is not strict (zero dates pass), so the
// server would store the epoch (plus the fraction) and warn; the row would differ, silently.
func CheckTimestamp(t schema.TableID, column string, v string) error {
	if len(v) < len(timestampLast) || v[:len(timestampLast)] <= timestampLast {
		return nil
	}
	return exitcode.ConfigError(fmt.Errorf("table %s column %s: TIMESTAMP %s is after %s UTC, the last one the target holds "+
		"(MySQL and MariaDB before 11.5; MariaDB 11.5+ reaches 2106): use a MariaDB 11.5+ target, or leave the column "+
		"out with --exclude-columns", t, column, v, timestampLast))
}

// narrowTimestamps wraps the encoders of a table's TIMESTAMP columns with CheckTimestamp.
func narrowTimestamps(t *schema.Table, enc []encoder) {
	for i, c := range t.Columns {
		if c.DataType != "timestamp" {
			continue
		}
		inner, name := enc[i], c.Name
		enc[i] = func(buf []byte, v any) ([]byte, error) {
			if s, ok := v.(string); ok {
				if err := CheckTimestamp(t.TableID, name, s); err != nil {
					return buf, err
				}
			}
			return inner(buf, v)
		}
	}
}
