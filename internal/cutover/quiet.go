package cutover

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
)

// quiet is step 2: from here on no write may reach the migrated tables on
// the source. With --lock they are blocked by a read lock held on one
// session until the run ends; without it the binlog is watched (watch.go)
// for --quiet-for and until the end of the run, and any write to a migrated
// table refuses the switch.
func (r *run) quiet(ctx context.Context) (string, error) {
	if r.o.Lock {
		l, err := lockTables(ctx, r.srcDB, r.tables, r.o.LockWait)
		if err != nil {
			return "", err
		}
		r.lock = l
		if r.final, err = r.src.MasterStatus(ctx, r.info); err != nil {
			return "", fmt.Errorf("read the source's binlog position: %w", err)
		}
		return fmt.Sprintf("writes to %d tables blocked (FLUSH TABLES … WITH READ LOCK) at source position %s", len(r.tables), r.final), nil
	}
	from, err := r.src.MasterStatus(ctx, r.info)
	if err != nil {
		return "", fmt.Errorf("read the source's binlog position: %w", err)
	}
	in := map[string]bool{}
	for _, t := range r.tables {
		in[t.Database+"\x00"+t.Name] = true
	}
	r.watch, err = startWatcher(ctx, r.o, r.info, from, func(db, table string) bool { return in[db+"\x00"+table] })
	if err != nil {
		return "", err
	}
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case <-time.After(r.o.QuietFor):
	}
	if r.final, err = r.src.MasterStatus(ctx, r.info); err != nil {
		return "", fmt.Errorf("read the source's binlog position: %w", err)
	}
	if err := r.watch.waitPast(ctx, r.final); err != nil {
		return "", err
	}
	return fmt.Sprintf("no write to the %d migrated tables for %s (binlog %s to %s); watched until the switch is recorded",
		len(r.tables), r.o.QuietFor, from, r.final), nil
}

// readLock is FLUSH TABLES … WITH READ LOCK held on one session.
type readLock struct {
	conn *sql.Conn
}

// lockTables blocks writes to the tables: the statement waits for running
// transactions on them to end, at most wait (lock_wait_timeout).
func lockTables(ctx context.Context, db *sql.DB, tables []*schema.Table, wait time.Duration) (*readLock, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("--lock: connect to the source: %w", err)
	}
	secs := max(int(wait.Seconds()), 1)
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("SET SESSION lock_wait_timeout = %d", secs)); err != nil {
		conn.Close()
		return nil, fmt.Errorf("--lock: %w", err)
	}
	names := make([]string, len(tables))
	for i, t := range tables {
		names[i] = schema.QuoteMySQL(t.Database) + "." + schema.QuoteMySQL(t.Name)
	}
	if _, err := conn.ExecContext(ctx, "FLUSH TABLES "+strings.Join(names, ", ")+" WITH READ LOCK"); err != nil {
		conn.Close()
		return nil, fmt.Errorf("--lock: block writes with FLUSH TABLES … WITH READ LOCK (needs the RELOAD and LOCK TABLES privileges; "+
			"waits at most %s for running transactions on the tables): %w", wait, err)
	}
	return &readLock{conn: conn}, nil
}

// release ends the lock; closing the session would too (and does when the
// process dies), this makes it immediate.
func (l *readLock) release() {
	if l.conn == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _ = l.conn.ExecContext(ctx, "UNLOCK TABLES")
	l.conn.Close()
	l.conn = nil
}

// reached reports whether a position covers the target.
func reached(p, target binlogpos.Position) bool {
	return p.File != "" && target.File != "" && p.Compare(target) >= 0
}
