package alter

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Server errors that say "this ALTER cannot run with that algorithm".
const (
	errNotSupported       = 1845 // ER_ALTER_OPERATION_NOT_SUPPORTED
	errNotSupportedReason = 1846 // ER_ALTER_OPERATION_NOT_SUPPORTED_REASON
	errLockWaitTimeout    = 1205
	errCantLock           = 1192
)

func mysqlErr(err error) (uint16, bool) {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Number, true
	}
	return 0, false
}

// lockSeconds is lock_wait_timeout for a wait of d: whole seconds, as
// MySQL takes it, at least 1.
func lockSeconds(d time.Duration) int { return max(1, int(math.Ceil(d.Seconds()))) }

// tryInstant runs the ALTER with ALGORITHM=INSTANT on the table itself. It
// reports applied=false with the server's reason when the server cannot do
// it instantly. The metadata lock the ALTER needs is waited for at most the
// cut-over lock timeout each time (writes queue behind a waiting ALTER), with
// retries and backoff.
func (r *runner) tryInstant(ctx context.Context) (applied bool, reason string, err error) {
	conn, err := r.db.Conn(ctx)
	if err != nil {
		return false, "", err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("SET SESSION lock_wait_timeout = %d", lockSeconds(r.o.CutoverLockTimeout))); err != nil {
		return false, "", err
	}
	q := "ALTER TABLE " + r.quoted(r.o.Table) + " " + r.o.Alter + ", ALGORITHM=INSTANT"
	backoff := 100 * time.Millisecond
	for attempt := 1; ; attempt++ {
		// The statement waits for the table's exclusive metadata lock
		// (writers queue behind it) and holds it while it runs: its time
		// is the wait and the hold in one (Lock.Unsplit). A change the
		// server cannot run INSTANT is refused before that lock is asked
		// for: not recorded.
		lt := startLock(stepInstant, "ALTER TABLE "+r.o.Table+" … ALGORITHM=INSTANT", true)
		_, err := conn.ExecContext(ctx, q)
		code, _ := mysqlErr(err)
		if err == nil || code == errLockWaitTimeout {
			if err == nil {
				lt.grantAtRequest()
			}
			r.recordLock(lt.done())
		}
		if err == nil {
			return true, "", nil
		}
		switch {
		case code == errNotSupported || code == errNotSupportedReason:
			return false, err.Error(), nil
		case code == errLockWaitTimeout && attempt < r.o.CutoverRetries:
			r.log.Warn("INSTANT ALTER: metadata lock wait timed out, retrying", "attempt", attempt, "in", backoff)
			if err := sleep(ctx, backoff); err != nil {
				return false, "", err
			}
			backoff = min(2*backoff, 5*time.Second)
		default:
			return false, "", fmt.Errorf("alter: %s: %w", q, err)
		}
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
