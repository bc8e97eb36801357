package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/pipeline"
)

// Sessions of one stream are fenced by a PostgreSQL advisory lock.
//
// When sluice dies (kill -9, or a cancelled context that drops a
// connection), PostgreSQL backends it used may still be running: a pipelined
// batch (BEGIN, changes, applied record, COMMIT) already sits in their socket
// buffer and they execute it to the end before noticing the client is gone.
// A new run that read the checkpoint and the applied records before such a
// late COMMIT would apply those transactions a second time.
//
// So every apply session holds the stream's lock in shared mode for its
// whole life, and a run starts by taking it exclusively, which waits until
// every backend of an earlier run has exited; only then is the state read.
// The same lock makes a second sluice on the same stream fail fast.
const lockClass = checkpoint.StreamLockClass // first key of pg_advisory_lock(int, int); the second is hashtext(stream)

// applicationName marks apply sessions in pg_stat_activity.
func (a *Sink) applicationName() string {
	return checkpoint.ApplicationName(a.cfg.Stream)
}

// acquire takes a connection for apply work and prepares its session:
//   - the stream's fence lock, shared;
//   - sluice.apply = 'on' makes the ON UPDATE CURRENT_TIMESTAMP triggers the
//     DDL translator creates do nothing, because the binlog image already
//     carries the value MySQL computed;
//   - session_replication_role = replica: no ordinary trigger fires on the
//     rows it applies (replica.go);
//   - synchronous_commit = off (unless Config.SyncCommit): a commit returns
//     before its WAL is flushed. A PostgreSQL crash can then lose the last
//     commits, but only as a suffix of the WAL: each lost transaction takes
//     its sluice.applied record with it, and every transaction that depends
//     on it (same key, or a checkpoint covering it) committed later and is
//     lost too. The restart re-reads the checkpoint and applied records and
//     applies exactly what is missing. See docs/replication.md.
func (a *Sink) acquire(ctx context.Context) (*pgxpool.Conn, error) {
	conn, err := a.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("apply: connect to the target: %w", err)
	}
	err = a.setupSession(ctx, conn)
	if err == nil {
		err = a.setupOrigin(ctx, conn)
	}
	if err != nil {
		// It may hold the lock already: never give it back to the pool.
		_ = conn.Conn().Close(context.Background())
		conn.Release()
		return nil, err
	}
	return conn, nil
}

func (a *Sink) setupSession(ctx context.Context, conn *pgxpool.Conn) error {
	sync := "off"
	if a.cfg.SyncCommit {
		sync = "on"
	}
	setup := []struct {
		sql  string
		args []any
	}{
		{`SELECT pg_advisory_lock_shared($1, hashtext($2))`, []any{lockClass, a.cfg.Stream}},
		{`SELECT set_config('application_name', $1, false)`, []any{a.applicationName()}},
		{`SELECT set_config('sluice.apply', 'on', false)`, nil},
		{`SELECT set_config('synchronous_commit', $1, false)`, []any{sync}},
		// If the machine running sluice dies, the server notices within about a
		// minute instead of the system default of hours, so the session (and
		// its fence lock and open transaction) does not outlive it for long.
		{`SELECT set_config('tcp_keepalives_idle', '30', false), set_config('tcp_keepalives_interval', '10', false),
			set_config('tcp_keepalives_count', '3', false)`, nil},
	}
	for _, s := range setup {
		if _, err := conn.Exec(ctx, s.sql, s.args...); err != nil {
			return fmt.Errorf("apply: prepare session (%s): %w", s.sql, err)
		}
	}
	if err := SetReplicaRole(ctx, conn, false); err != nil { // replica.go
		return fmt.Errorf("apply: %w", err)
	}
	return a.checkOwner(ctx, conn) // standby.go
}

// fence waits until no session of an earlier run of this stream is left,
// then returns a prepared session (holding the lock shared, like the
// others) that the caller keeps for the whole run.
func (a *Sink) fence(ctx context.Context) (*pgxpool.Conn, error) {
	conn, err := a.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("apply: connect to the target: %w", err)
	}
	fail := func(err error) (*pgxpool.Conn, error) {
		_ = conn.Conn().Close(context.Background())
		conn.Release()
		return nil, err
	}
	if err := a.refuseIfTakenOver(ctx, conn); err != nil {
		return fail(err)
	}
	if err := a.refuseOtherSettings(ctx, conn); err != nil {
		return fail(err)
	}
	for {
		err := a.lockExclusive(ctx, conn)
		if err == nil {
			break
		}
		// A standby that lost the race for the lock to another one waits
		// for its turn again.
		if !a.cfg.Standby || !errors.Is(err, errStillApplied) {
			return fail(err)
		}
	}
	if err := checkpoint.ClaimOwner(ctx, conn, a.cfg.Stream, a.cfg.RunID, pipeline.SettingsRecord(a.cfg.Settings)); err != nil {
		return fail(fmt.Errorf("apply: %w", err))
	}
	if _, err := conn.Exec(ctx, `SELECT set_config('lock_timeout', '0', false)`); err != nil {
		return fail(fmt.Errorf("apply: reset lock_timeout: %w", err))
	}
	if err := a.setupSession(ctx, conn); err != nil {
		return fail(err)
	}
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_unlock($1, hashtext($2))`, lockClass, a.cfg.Stream); err != nil {
		return fail(fmt.Errorf("apply: unlock stream %q: %w", a.cfg.Stream, err))
	}
	return conn, nil
}

// errStillApplied: the exclusive lock was not granted within FenceTimeout.
var errStillApplied = errors.New("stream still being applied by other sessions")

// lockExclusive takes the stream's lock exclusively. A replicator that is
// running is refused at once (a standby waits for its turn instead:
// standby.go); only the sessions of a dead run (still finishing a
// statement) are waited for, up to FenceTimeout.
func (a *Sink) lockExclusive(ctx context.Context, conn *pgxpool.Conn) error {
	if a.cfg.Standby {
		if err := a.awaitTurn(ctx, conn); err != nil {
			return err
		}
	} else {
		var free bool
		if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1, hashtext($2))`, lockClass, a.cfg.Stream).Scan(&free); err != nil {
			return fmt.Errorf("apply: lock stream %q: %w", a.cfg.Stream, err)
		}
		if free {
			if _, err := conn.Exec(ctx, `SELECT pg_advisory_unlock($1, hashtext($2))`, lockClass, a.cfg.Stream); err != nil {
				return fmt.Errorf("apply: unlock stream %q: %w", a.cfg.Stream, err)
			}
		} else if hs, err := checkpoint.StreamHolders(ctx, conn, a.cfg.Stream); err == nil && checkpoint.Live(hs, a.runs.open(a.runKey())) {
			return exitcode.ConfigError(fmt.Errorf("apply: stream %q is being replicated into this target by %s: "+
				"stop that replicator first, use --stream to name a different stream, or start this one with --standby "+
				"to take over when that one stops", a.cfg.Stream, checkpoint.Describe(hs)))
		}
	}
	if _, err := conn.Exec(ctx, `SELECT set_config('lock_timeout', $1, false)`,
		fmt.Sprintf("%dms", a.cfg.FenceTimeout.Milliseconds())); err != nil {
		return fmt.Errorf("apply: set lock_timeout: %w", err)
	}
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1, hashtext($2))`, lockClass, a.cfg.Stream); err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "55P03" { // lock_not_available
			return fmt.Errorf("apply: stream %q is still being applied by other sessions after %s (%s): "+
				"another sluice is replicating this stream (stop it, or use --stream to name a different one); "+
				"if none runs, these are sessions of a dead one: end them with SELECT pg_terminate_backend(pid): %w",
				a.cfg.Stream, a.cfg.FenceTimeout, a.holders(conn), errStillApplied)
		}
		return fmt.Errorf("apply: lock stream %q: %w", a.cfg.Stream, err)
	}
	return nil
}

// holders describes the sessions holding the stream's lock, for the error.
func (a *Sink) holders(conn *pgxpool.Conn) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	rows, err := conn.Query(ctx, `SELECT a.pid, coalesce(a.client_addr::text, 'local'), a.application_name, a.state
		FROM pg_locks l JOIN pg_stat_activity a USING (pid)
		WHERE l.locktype = 'advisory' AND l.classid = $1 AND l.objid = hashtext($2)::oid AND l.objsubid = 2
			AND l.granted AND a.pid <> pg_backend_pid()`, lockClass, a.cfg.Stream)
	if err != nil {
		return "sessions unknown: " + err.Error()
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var pid int32
		var addr, app, state string
		if rows.Scan(&pid, &addr, &app, &state) == nil {
			out = append(out, fmt.Sprintf("pid %d from %s %q %s", pid, addr, app, state))
		}
	}
	if len(out) == 0 {
		return "no session found"
	}
	return strings.Join(out, "; ")
}

// release resets the session and returns the connection to the pool (or
// closes it, when it is broken or inside a transaction).
func (a *Sink) release(conn *pgxpool.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if conn.Conn().IsClosed() || conn.Conn().PgConn().TxStatus() != 'I' {
		_ = conn.Conn().Close(ctx)
		conn.Release()
		return
	}
	reset := []string{`SELECT pg_advisory_unlock_all()`}
	if a.origins.on {
		reset = append(reset, `SELECT pg_replication_origin_session_reset() WHERE pg_replication_origin_session_is_setup()`)
	}
	for _, s := range append(reset,
		`RESET sluice.apply`, `RESET session_replication_role`, `RESET synchronous_commit`, `RESET application_name`,
		`RESET tcp_keepalives_idle`, `RESET tcp_keepalives_interval`, `RESET tcp_keepalives_count`,
	) {
		if _, err := conn.Exec(ctx, s); err != nil {
			_ = conn.Conn().Close(ctx)
			break
		}
	}
	conn.Release()
}

// rollback ends a failed transaction; a connection that cannot even roll
// back is closed so the pool does not hand it out again.
func (a *Sink) rollback(conn *pgxpool.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := conn.Exec(ctx, `ROLLBACK`); err != nil {
		_ = conn.Conn().Close(ctx)
	}
}

// openRuns counts the runs of this process that hold each stream (between a
// Sink's Open and Close), so a fence can tell this process's live run from
// the leftovers of one it ended. It is process-wide by nature: one process,
// one set of open runs; the zero value is ready.
type openRuns struct {
	mu sync.Mutex
	n  map[string]int
}

func (r *openRuns) add(key string, d int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n == nil {
		r.n = map[string]int{}
	}
	r.n[key] += d
	if r.n[key] <= 0 {
		delete(r.n, key)
	}
}

func (r *openRuns) open(key string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n[key] > 0
}

// processRuns is this process's open runs, shared by every Sink.
var processRuns = &openRuns{}

// runKey names the stream on this target.
func (a *Sink) runKey() string {
	c := a.pool.Config().ConnConfig
	return fmt.Sprintf("%s:%d/%s/%s", c.Host, c.Port, c.Database, a.cfg.Stream)
}
