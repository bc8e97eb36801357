package apply

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// acquire takes a connection for apply work and prepares its session:
//   - sluice.apply = 'on' makes the ON UPDATE CURRENT_TIMESTAMP triggers the
//     DDL translator creates do nothing, because the binlog image already
//     carries the value MySQL computed;
//   - synchronous_commit = off (unless Config.SyncCommit): a commit returns
//     before its WAL is flushed. A PostgreSQL crash can then lose the last
//     commits, but only as a suffix of the WAL: each lost transaction takes
//     its sluice.applied record with it, and every transaction that depends
//     on it (same key, or a checkpoint covering it) committed later and is
//     lost too. The restart re-reads the checkpoint and applied records and
//     applies exactly what is missing. See docs/replication.md.
func (a *Applier) acquire(ctx context.Context) (*pgxpool.Conn, error) {
	conn, err := a.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("apply: connect to the target: %w", err)
	}
	setup := []string{`SET sluice.apply = 'on'`, `SET synchronous_commit = off`}
	if a.cfg.SyncCommit {
		setup[1] = `SET synchronous_commit = on`
	}
	for _, s := range setup {
		if _, err := conn.Exec(ctx, s); err != nil {
			conn.Release()
			return nil, fmt.Errorf("apply: %s: %w", s, err)
		}
	}
	return conn, nil
}

// release resets the session settings and returns the connection to the
// pool (or closes it, when it is broken or inside a transaction).
func (a *Applier) release(conn *pgxpool.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if conn.Conn().PgConn().TxStatus() != 'I' {
		_ = conn.Conn().Close(ctx)
		conn.Release()
		return
	}
	if _, err := conn.Exec(ctx, `RESET sluice.apply`); err != nil {
		_ = conn.Conn().Close(ctx)
	} else if _, err := conn.Exec(ctx, `RESET synchronous_commit`); err != nil {
		_ = conn.Conn().Close(ctx)
	}
	conn.Release()
}

// rollback ends a failed transaction; a connection that cannot even roll
// back is closed so the pool does not hand it out again.
func (a *Applier) rollback(conn *pgxpool.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := conn.Exec(ctx, `ROLLBACK`); err != nil {
		_ = conn.Conn().Close(ctx)
	}
}
