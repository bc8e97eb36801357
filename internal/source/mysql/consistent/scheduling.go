package consistent

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/go-sql-driver/mysql"

	"github.com/sluice-db/sluice/internal/exitcode"
)

// checkPositionedSnapshots refuses the methods that take the position from
// binlog_snapshot_position (lock-free, single-session) on a MariaDB whose
// binlog_optimize_thread_scheduling is OFF.
//
// Why: with the option ON (the default) the group commit leader records the
// group's end position and runs every member's commit_ordered (the InnoDB
// commit that makes it visible) under one hold of LOCK_commit_ordered, the
// mutex START TRANSACTION WITH CONSISTENT SNAPSHOT takes to open the read
// view and record the position, so a snapshot holds exactly the
// transactions up to its position. With it OFF the leader records the
// group's end position and then each member runs its own commit_ordered,
// taking and releasing LOCK_commit_ordered one after the other (MariaDB
// sql/log.cc, trx_group_commit_leader and
// write_transaction_to_binlog_events): a snapshot opened in between has the
// position of the whole group but not all of its transactions. The stress
// test caught exactly that (rows of the last transactions of a group
// missing) on a server started with --skip-binlog-optimize-thread-scheduling.
func checkPositionedSnapshots(ctx context.Context, c *sql.Conn, m Method) error {
	var on sql.NullInt64
	err := c.QueryRowContext(ctx, "SELECT @@GLOBAL.binlog_optimize_thread_scheduling").Scan(&on)
	var me *mysql.MySQLError
	if errors.As(err, &me) && me.Number == 1193 {
		// Unknown system variable: a server without the option always
		// commits a group under one hold of the mutex.
		return nil
	}
	if err != nil {
		return fmt.Errorf("consistent point: read binlog_optimize_thread_scheduling: %w", err)
	}
	if on.Valid && on.Int64 == 0 {
		return exitcode.ConfigError(fmt.Errorf("consistent point: --snapshot-method %s is not safe on this source: "+
			"binlog_optimize_thread_scheduling is OFF, so MariaDB records a group commit's position before every "+
			"transaction of the group is visible, and a snapshot can miss rows its binlog_snapshot_position covers; "+
			"fix: GRANT RELOAD ON *.* TO the sluice user (global read lock), or restart MariaDB with "+
			"binlog_optimize_thread_scheduling=ON (the default)", m))
	}
	return nil
}
