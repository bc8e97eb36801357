package preflight

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/sluice-db/sluice/internal/source/mysql/binlog"
)

// checkRetention refuses a source that purges binlogs sooner than the
// command's minimum: a stream stopped (or behind) for longer than the
// retention cannot continue, and only a new snapshot recovers from that.
// Retention 0 (never purged) passes. With binary logging off there is
// nothing to purge (checkBinlogSettings reports that where it matters).
func checkRetention(ctx context.Context, conn *sql.Conn, vars map[string]string, info *SourceInfo, minimum time.Duration) []Problem {
	if minimum <= 0 || !(strings.EqualFold(vars["log_bin"], "ON") || vars["log_bin"] == "1") {
		return nil
	}
	retention, setting, err := binlog.ReadRetentionSetting(ctx, conn)
	if err != nil {
		return []Problem{Warningf("source", "", "%v; the binlog retention is not checked", err)}
	}
	info.BinlogRetention = retention
	if retention == 0 || retention >= minimum {
		return nil
	}
	return []Problem{Problemf("source", retentionFix(info.Flavor, minimum),
		"the source purges binlogs after %s (%s), shorter than --min-binlog-retention %s: a stream stopped or behind for longer "+
			"cannot continue and needs a new snapshot", humanDuration(retention), retentionVariable(info.Flavor, setting), humanDuration(minimum))}
}

// retentionVariable names the setting the retention was read from.
func retentionVariable(flavor, setting string) string {
	if setting == binlog.RDSRetentionSetting {
		return setting + ", which RDS and Aurora purge by (NULL, the default, keeps binlogs only minutes)"
	}
	if flavor == "mariadb" {
		return "binlog_expire_logs_seconds / expire_logs_days"
	}
	return "binlog_expire_logs_seconds"
}

// retentionFix is the exact change, for a self-managed server and for the
// managed services (which do not allow SET GLOBAL).
func retentionFix(flavor string, minimum time.Duration) string {
	secs := int64(minimum.Seconds())
	hours := (secs + 3599) / 3600
	set := fmt.Sprintf("SET PERSIST binlog_expire_logs_seconds = %d", secs)
	if flavor == "mariadb" {
		set = fmt.Sprintf("SET GLOBAL binlog_expire_logs_seconds = %d and binlog_expire_logs_seconds = %d in my.cnf", secs, secs)
	}
	return fmt.Sprintf("%s; on RDS/Aurora CALL mysql.rds_set_configuration('binlog retention hours', %d); on Cloud SQL or Azure set the "+
		"binlog_expire_logs_seconds flag/server parameter to %d; or pass --min-binlog-retention with the longest the stream may be "+
		"stopped (0 disables this check)", set, hours, secs)
}

// humanDuration prints whole hours as "24h", else the Go form.
func humanDuration(d time.Duration) string {
	if d%time.Hour == 0 {
		return fmt.Sprintf("%dh", d/time.Hour)
	}
	return d.String()
}
