package replicate

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/supervise"
)

// A PostgreSQL restart, failover or network cut ends every session of the
// run. The run then stops as after any apply failure (what committed is in
// the checkpoint and the applied records), and Run starts a new one from the
// target's checkpoint once the target answers again: exactly once, as after
// a kill -9. Only losing the target is retried; a refused row, a missing
// privilege or a source failure ends replicate as before.

// applyFailure marks an error of the apply side of a run.
type applyFailure struct{ err error }

func (e *applyFailure) Error() string { return e.err.Error() }
func (e *applyFailure) Unwrap() error { return e.err }

// targetLost is an apply failure that lost the target's connection.
type targetLost struct{ err error }

func (e *targetLost) Error() string { return "lost the target: " + e.err.Error() }
func (e *targetLost) Unwrap() error { return e.err }

// isTargetLoss reports whether err is the target going away: a closed or
// refused connection, or PostgreSQL shutting down or starting up.
func isTargetLoss(err error) bool {
	if err == nil {
		return false
	}
	var tl *targetLost
	if errors.As(err, &tl) {
		return true
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case pgErr.Code == "57P01", pgErr.Code == "57P02", pgErr.Code == "57P03": // admin/crash shutdown, cannot connect now
			return true
		case strings.HasPrefix(pgErr.Code, "08"): // connection exception
			return true
		}
		return false // PostgreSQL answered: a data, privilege or schema error
	}
	var connErr *pgconn.ConnectError
	if errors.As(err, &connErr) {
		return true
	}
	// A MySQL target: the server shutting down, the session killed, or the
	// driver's connection broken.
	var myErr *gomysql.MySQLError
	if errors.As(err, &myErr) {
		return myErr.Number == 1053 || myErr.Number == 1927 || myErr.Number == 1152 || myErr.Number == 1158 ||
			myErr.Number == 1159 || myErr.Number == 1160 || myErr.Number == 1161
	}
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, gomysql.ErrInvalidConn) {
		return true
	}
	var netErr net.Error
	if errors.As(err, &netErr) {
		return true
	}
	for _, e := range []error{io.EOF, io.ErrUnexpectedEOF, syscall.ECONNRESET, syscall.ECONNREFUSED, syscall.EPIPE} {
		if errors.Is(err, e) {
			return true
		}
	}
	msg := err.Error()
	return strings.Contains(msg, "conn closed") || strings.Contains(msg, "connection refused") ||
		strings.Contains(msg, "failed to connect") || strings.Contains(msg, "unexpected EOF")
}

// loopPolicy is replicate's side of the one replication loop
// (internal/supervise): a re-copy runs first and a pause for it runs again
// at once; a lost source or target is retried from the checkpoint; a
// takeover by a standby ends replicate (exit 2).
func (o Options) loopPolicy(reach *supervise.Reachable) supervise.Policy {
	target, source := o.targetRetry(), o.sourceRetry()
	return supervise.Policy{
		Before:    func(ctx context.Context) error { return waitRecopy(ctx, o) },
		Reachable: reach,
		Again: func() {
			o.Log.Info("replicate: stopped for a re-copy; continuing when it is done", "stream", o.Stream)
		},
		Classify: func(err error, _ bool) (supervise.Class, *supervise.Retry) {
			switch {
			case errors.Is(err, errRecopyPause):
				return supervise.Again, nil
			case isSourceLoss(err):
				return supervise.Lost, source
			case errors.Is(err, pipeline.ErrTakenOver):
				return supervise.TakenOver, nil
			case isTargetLoss(err):
				return supervise.Lost, target
			}
			return supervise.Stop, nil
		},
	}
}

// targetRetry paces the reconnects to a lost target for at most
// --target-retry; a failure while reconnecting gives up the same way.
func (o Options) targetRetry() *supervise.Retry {
	giveUp := func(t supervise.Try, err error) error {
		return exitcode.WithCode(exitcode.Failure, fmt.Errorf("replicate: lost the target %s ago and could not continue after %d reconnect attempts "+
			"(--target-retry %s): %w; when the target is back, start replicate again: it continues from the checkpoint, exactly once",
			t.Lost.Round(time.Second), t.Attempt, o.TargetRetry, err))
	}
	return &supervise.Retry{Limit: o.TargetRetry, Target: true, GiveUp: giveUp, Abandon: giveUp,
		Warn: func(t supervise.Try, err error) {
			o.Log.Warn("replicate: lost the target; reconnecting from its checkpoint (exactly once)",
				"attempt", t.Attempt, "cause", shortCause(err), "next_try_in", t.Wait.String())
		}}
}

// shortCause is the first line of an error, cut to 300 bytes, for the one
// log line per attempt.
func shortCause(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
