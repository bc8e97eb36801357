package pgoutput

import (
	"errors"
	"io"
	"net"

	"github.com/jackc/pgx/v5/pgconn"
)

// LostError is the PostgreSQL connection lost (a restart, a failover, the
// network): the run may start again from MySQL's checkpoint, exactly once.
type LostError struct{ Err error }

func (e *LostError) Error() string { return e.Err.Error() }
func (e *LostError) Unwrap() error { return e.Err }

// lost wraps err as a LostError when it is a connection failure or the
// server shutting down; other errors are returned as they are.
func lost(err error) error {
	if err == nil || !IsConnectionLoss(err) {
		return err
	}
	return &LostError{Err: err}
}

// IsConnectionLoss reports whether err is a lost or refused connection, or
// the server going away (admin shutdown, crash recovery, starting up).
func IsConnectionLoss(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "57P01", "57P02", "57P03", "08000", "08003", "08006", "08001", "08004":
			return true
		}
		return false
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	return errors.As(err, &ce) || errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, net.ErrClosed)
}
