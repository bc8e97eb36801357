package testenv

import "os"

// SandboxMinBinlogRetention is the --min-binlog-retention every sluice run of
// the tests gets (SLUICE_MIN_BINLOG_RETENTION): the sandbox keeps binlogs two
// hours (scripts/sandbox: more filled the disk), below sluice's default
// minimum of 24 h, which production sources are meant to meet. A test of the
// check itself passes the flag, which wins over the environment.
const SandboxMinBinlogRetention = "1h"

const minRetentionEnv = "SLUICE_MIN_BINLOG_RETENTION"

// The in-process command lines and the binaries the tests start read the
// setting from the environment; a developer's own value is kept.
func init() {
	if _, ok := os.LookupEnv(minRetentionEnv); !ok {
		_ = os.Setenv(minRetentionEnv, SandboxMinBinlogRetention)
	}
}
