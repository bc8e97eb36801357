package mysql

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/sluice-db/sluice/internal/config"
)

// Open opens the sink's connection pool on a MySQL/MariaDB target, without a
// default database (every statement names its tables). Found rows, not
// changed rows, are counted as affected: an UPDATE that finds its row but
// leaves it as it was still proves the row was there. Parameters (the state
// tables' statements) are interpolated by the driver: one round trip per
// statement instead of prepare, execute and close. Multi-statement queries
// let apply send a transaction's statements in one round trip (batch.go);
// every statement sluice sends is built from literals (literal.go) or is one
// statement of the source's binlog. Idle connections are not
// kept: a session's connection is closed when the session ends, which
// releases its locks and its session settings with it.
func Open(target config.MySQL) (*sql.DB, error) {
	c, err := target.WithDatabase("").DriverConfig()
	if err != nil {
		return nil, err
	}
	c.ClientFoundRows = true
	c.InterpolateParams = true
	c.MultiStatements = true
	conn, err := gomysql.NewConnector(c)
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", target.Redacted(), err)
	}
	db := sql.OpenDB(conn)
	db.SetMaxIdleConns(0)
	return db, nil
}

// sessionSetup prepares a connection for apply:
//   - the binary connection charset: quoted literals are binary strings the
//     server stores byte for byte into a column of any charset (literal.go);
//   - a sql_mode without STRICT and NO_ZERO_DATE/NO_ZERO_IN_DATE, so zero and
//     partial dates and the empty ENUM value the source holds are stored;
//     NO_AUTO_VALUE_ON_ZERO keeps a 0 in an AUTO_INCREMENT column; and
//     NO_ENGINE_SUBSTITUTION makes a missing --target-engine an error, not
//     InnoDB;
//   - time_zone UTC: TIMESTAMP values arrive as UTC text;
//   - READ COMMITTED (readCommitted): fewer gap locks between workers writing
//     independent rows. Not when the target logs statements
//     (binlog_format=STATEMENT), where InnoDB refuses writes at READ COMMITTED;
//   - foreign_key_checks off when the source logs its foreign key actions
//     (Config.SourceLogsFKActions): the binlog has every row they changed,
//     the children of an ON UPDATE CASCADE before their parent (which the
//     target's check would refuse), and InnoDB without checks runs no action
//     of its own on top. Otherwise the target's actions are the only copy of
//     those changes, and its checks stay on;
//   - on a target with MyRocks, its row lock bound at the maximum
//     (RocksDBSessionSetup).
var sessionSetup = []string{
	"SET NAMES binary",
	"SET SESSION sql_mode = 'NO_AUTO_VALUE_ON_ZERO,NO_ENGINE_SUBSTITUTION', time_zone = '+00:00'",
}

// SessionSetup is the session the literals of ColumnLiteral are written for.
func SessionSetup() []string { return append([]string(nil), sessionSetup...) }

const readCommitted = "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED"

// RocksDBSessionSetup lifts MyRocks' bound on the row locks of one
// transaction (rocksdb_max_row_locks, 1M by default) to its maximum for
// sluice's sessions. MyRocks counts there every row a locking read scans,
// released or not (rocksdb_lock_scanned_rows off), for the whole
// transaction: a delete from a keyless table scans the table, so a few of
// them in one target transaction, or a snapshot chunk or a large source
// transaction of a million rows, were refused with error 1296 though the
// locks they hold are bounded by the rows they write (and sluice bounds a
// group's rows).
const RocksDBSessionSetup = "SET SESSION rocksdb_max_row_locks = 1073741824"

// HasRocksDB reports whether a target server has the MyRocks engine enabled.
func HasRocksDB(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM information_schema.ENGINES WHERE ENGINE = 'ROCKSDB' AND SUPPORT IN ('YES', 'DEFAULT')`).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("apply: read the target's storage engines: %w", err)
	}
	return n > 0, nil
}

func (a *Sink) setupSession(ctx context.Context, conn *sql.Conn) error {
	setup := sessionSetup
	if a.readCommitted {
		setup = append(setup[:len(setup):len(setup)], readCommitted)
	}
	if a.cfg.SourceLogsFKActions {
		setup = append(setup[:len(setup):len(setup)], "SET SESSION foreign_key_checks = 0")
	}
	if a.rocksDB {
		setup = append(setup[:len(setup):len(setup)], RocksDBSessionSetup)
	}
	for _, s := range setup {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("apply: prepare session (%s): %w", s, err)
		}
	}
	return a.skipAnnotate(ctx, conn)
}

// noAnnotate turns off MariaDB's Annotate_rows binlog events for the
// session. MariaDB (binlog_annotate_row_events, on by default since 10.2)
// logs the text of every row-changing statement next to its row events:
// for sluice's multi-row INSERTs, whose text is the rows' values again, that
// doubles what each applied row costs in binlog bytes (a sysbench row: 387
// instead of 192; binlog writes were about a seventh of MariaDB's CPU under
// the reverse oltp_insert bench, docs/reverse.md "Live lag").
// The events are informational only (mysqlbinlog prints them; replicas
// with replicate_annotate_row_events log them again); the row events, which
// carry the data, are unchanged.
const noAnnotate = "SET SESSION binlog_annotate_row_events = 0"

// skipAnnotate runs noAnnotate where the target has it and lets the user
// set it: MySQL has no such variable (1193; its own binlog_rows_query_log_events
// is off by default) and MariaDB wants SUPER or BINLOG ADMIN (1227). Either
// answer leaves the events on, once logged, and is not asked again.
func (a *Sink) skipAnnotate(ctx context.Context, conn *sql.Conn) error {
	if a.annotate.Load() == annotateKept {
		return nil
	}
	_, err := conn.ExecContext(ctx, noAnnotate)
	if err == nil {
		a.annotate.Store(annotateOff)
		return nil
	}
	switch errorNumber(err) {
	case 1193, 1227:
		if a.annotate.Swap(annotateKept) != annotateKept {
			a.cfg.Log.Info("apply: the target's binlog keeps annotating row events (statement text) for sluice's sessions", "reason", err.Error())
		}
		return nil
	}
	return fmt.Errorf("apply: prepare session (%s): %w", noAnnotate, err)
}

// Values of Sink.annotate.
const (
	annotateUnknown int32 = iota
	annotateOff
	annotateKept
)

// statementLogging reports whether the target writes a statement-based
// binary log.
func statementLogging(ctx context.Context, conn *sql.Conn) (bool, error) {
	var logBin int
	var format string
	if err := conn.QueryRowContext(ctx, "SELECT @@log_bin, @@binlog_format").Scan(&logBin, &format); err != nil {
		return false, fmt.Errorf("apply: read the target's binlog settings: %w", err)
	}
	return logBin == 1 && strings.EqualFold(format, "STATEMENT"), nil
}

// lockName is a named lock of the stream (GET_LOCK names are at most 64
// characters, so the stream is hashed).
func lockName(stream, suffix string) string {
	h := sha256.Sum256([]byte(stream))
	return "sluice:" + hex.EncodeToString(h[:10]) + ":" + suffix
}

// errorNumber returns the server's error number, or 0.
func errorNumber(err error) uint16 {
	var me *gomysql.MySQLError
	if errors.As(err, &me) {
		return me.Number
	}
	return 0
}

// isRetryable reports a deadlock or lock wait timeout: the server rolled
// the transaction back (or the statement), and running it again may succeed.
// IsRetryable reports whether the server rolled the transaction back for a
// lock conflict (deadlock 1213, lock wait timeout 1205): running it again
// is right, nothing of it was applied.
func IsRetryable(err error) bool { return isRetryable(err) }

func isRetryable(err error) bool {
	n := errorNumber(err)
	return n == 1213 || n == 1205
}

// isDataError reports whether err is the server refusing the data (worth
// re-applying one transaction and one row at a time to find the row), as
// opposed to a lost or killed connection or a cancelled context.
func isDataError(err error) bool {
	if errors.Is(err, errTargetDiverged) {
		return true
	}
	switch errorNumber(err) {
	case 0, 1053, 1152, 1153, 1158, 1159, 1160, 1161, 1317, 1927: // not the server's answer, shutdown, network, killed
		return false
	}
	return true
}
