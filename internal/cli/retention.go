package cli

import (
	"time"

	"github.com/spf13/cobra"
)

// minRetentionFlag is the shortest binlog retention a source may have for
// the commands that record or continue a binlog position.
const minRetentionFlag = "min-binlog-retention"

// addMinRetentionFlag adds --min-binlog-retention once (migrate gets it
// from both its snapshot and its replicate flags).
func addMinRetentionFlag(cmd *cobra.Command) {
	if cmd.Flags().Lookup(minRetentionFlag) != nil {
		return
	}
	cmd.Flags().Duration(minRetentionFlag, 24*time.Hour, "refuse a source that purges binlogs sooner than this "+
		"(binlog_expire_logs_seconds, expire_logs_days): a stream stopped or behind for longer than the source's retention "+
		"cannot continue and needs a new snapshot; 0 disables the check, e.g. --min-binlog-retention 72h")
}

// minBinlogRetention is the check's minimum for the pre-flight (0: none).
func minBinlogRetention(s *Settings) time.Duration {
	return max(0, s.K.Duration(minRetentionFlag))
}

// snapshotMinRetention: a --schema-only snapshot records no position, so
// the source's retention does not matter to it.
func snapshotMinRetention(s *Settings) time.Duration {
	if s.K.Bool("schema-only") {
		return 0
	}
	return minBinlogRetention(s)
}
