package binlog

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	gomysql "github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/replication"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
)

// PurgedError says the source no longer has the binlog a start position
// needs. Only a new snapshot can recover from it.
type PurgedError struct {
	Position binlogpos.Position
	Detail   string // the server's message, when it sent one
}

func (e *PurgedError) Error() string {
	what := "the binlog " + e.Position.File
	if e.Position.File == "" {
		what = "the binlog with GTID " + e.Position.GTIDSet
	}
	s := fmt.Sprintf("%s needed by the checkpoint has been purged from the source (its binlog retention, binlog_expire_logs_seconds "+
		"or RDS's 'binlog retention hours', is shorter than the stream was stopped or behind); re-run `sluice snapshot --restart`, "+
		"and raise the retention above the longest the stream may be stopped (docs/replication.md, \"Managed sources\")", what)
	if e.Detail != "" {
		s += " (server said: " + e.Detail + ")"
	}
	return s
}

// purged returns the configuration error (exit 2) for a purged start position.
func purged(pos binlogpos.Position, detail string) error {
	return exitcode.ConfigError(&PurgedError{Position: pos, Detail: detail})
}

// permanent marks errors that a reconnect cannot fix: decoding failures,
// unsupported DDL, a purged binlog. Everything else from the dump
// connection is treated as a network problem and retried.
type permanent struct{ err error }

func (p *permanent) Error() string { return p.err.Error() }
func (p *permanent) Unwrap() error { return p.err }

func stop(err error) error {
	if err == nil {
		return nil
	}
	return &permanent{err}
}

func isPermanent(err error) bool {
	var p *permanent
	return errors.As(err, &p)
}

// errBinlogGone is MySQL/MariaDB error 1236 (ER_MASTER_FATAL_ERROR_READING_BINLOG):
// the requested file or GTID is no longer on the server (or never was).
const errBinlogGone = 1236

// classify turns an error of the dump connection into a permanent error when
// retrying cannot help; network errors are returned as they are.
func classify(err error, start binlogpos.Position) error {
	if err == nil || isPermanent(err) {
		return err
	}
	var me *gomysql.MyError
	if errors.As(err, &me) {
		if me.Code == errBinlogGone {
			msg := strings.ToLower(me.Message)
			if strings.Contains(msg, "purged") || strings.Contains(msg, "could not find") ||
				strings.Contains(msg, "not find first log") || strings.Contains(msg, "gtid") {
				return stop(purged(start, me.Message))
			}
		}
		if me.Code == 1045 || me.Code == 1227 || me.Code == 1044 { // access denied, missing privilege
			return stop(exitcode.ConfigError(fmt.Errorf("binlog dump: %w", err)))
		}
		return stop(fmt.Errorf("binlog dump: %w", err))
	}
	if isNetwork(err) {
		return err
	}
	var ee *replication.EventError
	if errors.As(err, &ee) {
		return stop(fmt.Errorf("binlog event at %s: %w", start, err))
	}
	return err
}

func isNetwork(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE)
}
