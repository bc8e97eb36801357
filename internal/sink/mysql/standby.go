package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/pipeline"
)

// replicate --standby into MySQL: the stream's leader lock (GET_LOCK) is
// the fence (fence.go), PROCESSLIST tells whether the connections holding
// the leader and slot locks do anything, KILL CONNECTION ends a frozen
// replicator's, and sluice.stream_owner (mysqlstate/owner.go) fences it once
// it wakes: each session checks it after taking its slot lock. The waiting
// itself is pipeline.AwaitTurn's.

// awaitTurn waits for this standby's turn (pipeline.AwaitTurn).
func (a *Sink) awaitTurn(ctx context.Context, conn *sql.Conn) error {
	return pipeline.AwaitTurn(ctx, myFence{a: a, conn: conn}, a.cfg.Stream, a.cfg.StandbyLease, a.cfg.Log)
}

// myFence is the stream's leader lock as a standby watches it.
type myFence struct {
	a    *Sink
	conn *sql.Conn
}

func (f myFence) FenceFree(ctx context.Context) (bool, error) {
	var free sql.NullInt64
	if err := f.conn.QueryRowContext(ctx, "SELECT IS_FREE_LOCK(?)", lockName(f.a.cfg.Stream, "leader")).Scan(&free); err != nil {
		return false, fmt.Errorf("apply: look at the lock of stream %q: %w", f.a.cfg.Stream, err)
	}
	return free.Int64 == 1, nil
}

func (f myFence) FenceHolders(ctx context.Context) (pipeline.FenceHolders, error) {
	var leader sql.NullInt64
	if err := f.conn.QueryRowContext(ctx, "SELECT IS_USED_LOCK(?)", lockName(f.a.cfg.Stream, "leader")).Scan(&leader); err != nil {
		return pipeline.FenceHolders{}, fmt.Errorf("apply: look at the lock of stream %q: %w", f.a.cfg.Stream, err)
	}
	ids, err := f.a.heldSlots(ctx, f.conn)
	if err != nil {
		return pipeline.FenceHolders{}, err
	}
	if leader.Valid {
		ids = append(ids, leader.Int64)
	}
	if len(ids) == 0 {
		return pipeline.FenceHolders{}, nil // let go meanwhile
	}
	list := make([]string, len(ids))
	for i, id := range ids {
		list[i] = strconv.FormatInt(id, 10)
	}
	h := pipeline.FenceHolders{Live: true, Describe: "target connections " + strings.Join(list, ", ")}
	if h.Idle, h.Busy, err = connectionsIdle(ctx, f.conn, list); err != nil {
		return h, err
	}
	h.End = func(ctx context.Context) error {
		for _, id := range ids {
			if _, err := f.conn.ExecContext(ctx, "KILL CONNECTION "+strconv.FormatInt(id, 10)); err != nil && errorNumber(err) != 1094 {
				return fmt.Errorf("standby: end target connection %d of the frozen replicator: %w", id, err)
			}
		}
		return nil
	}
	return h, nil
}

// clientWaits are the states of a statement waiting for its client.
const clientWaits = "'Sending to client', 'Writing to net', 'writing to net'"

// connectionsIdle returns how long the connections have all been idle (TIME
// is the seconds since a connection's current command began: between
// statements it sleeps), and whether one is busy: running a statement that
// waits neither for its client nor for a row lock (one a frozen connection
// of the same replicator may hold). Without INNODB_TRX (it needs PROCESS),
// or when the query fails, SHOW PROCESSLIST tells, and every running
// statement but a client wait counts as busy.
func connectionsIdle(ctx context.Context, conn *sql.Conn, ids []string) (time.Duration, bool, error) {
	q := `SELECT MIN(p.TIME), SUM(p.COMMAND = 'Query' AND COALESCE(p.STATE, '') NOT IN (` + clientWaits + `)
			AND NOT EXISTS (SELECT 1 FROM information_schema.INNODB_TRX x WHERE x.trx_mysql_thread_id = p.ID AND x.trx_state = 'LOCK WAIT'))
		FROM information_schema.PROCESSLIST p WHERE p.ID IN (` + strings.Join(ids, ",") + `)`
	var idle, busy sql.NullInt64
	if err := conn.QueryRowContext(ctx, q).Scan(&idle, &busy); err == nil {
		return time.Duration(idle.Int64) * time.Second, busy.Int64 > 0, nil
	}
	return processlistIdle(ctx, conn, ids)
}

// processlistIdle is connectionsIdle from SHOW PROCESSLIST. MySQL 8 and
// later fill information_schema.PROCESSLIST and INNODB_TRX with every
// session's statement text converted to utf8mb3, and fail the whole query
// (error 3854) while one statement's text does not convert: a binary value
// (a BLOB) does it for certain, and MySQL 9.7 did it under the way back's
// multi-row INSERTs of non-ASCII text (TestReverseStandbyTakesOver: every
// standby exited 1). SHOW PROCESSLIST sends the text as it is.
func processlistIdle(ctx context.Context, conn *sql.Conn, ids []string) (time.Duration, bool, error) {
	fail := func(err error) (time.Duration, bool, error) {
		return 0, false, fmt.Errorf("standby: read the active replicator's connections: %w", err)
	}
	rows, err := conn.QueryContext(ctx, "SHOW PROCESSLIST")
	if err != nil {
		return fail(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return fail(err)
	}
	at := map[string]int{}
	for i, c := range cols {
		at[strings.ToLower(c)] = i
	}
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	vals := make([]sql.RawBytes, len(cols))
	dest := make([]any, len(cols))
	for i := range vals {
		dest[i] = &vals[i]
	}
	idle, busy, seen := int64(0), false, false
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return fail(err)
		}
		if !want[string(vals[at["id"]])] {
			continue
		}
		secs, _ := strconv.ParseInt(string(vals[at["time"]]), 10, 64)
		if !seen || secs < idle {
			idle = secs
		}
		seen = true
		state := "'" + string(vals[at["state"]]) + "'"
		busy = busy || string(vals[at["command"]]) == "Query" && !strings.Contains(clientWaits, state)
	}
	if err := rows.Err(); err != nil {
		return fail(err)
	}
	return time.Duration(idle) * time.Second, busy, nil
}

// refuseAsStandby stops a run that owned the stream before and finds,
// reconnecting, that another run owns it now, and refuses a standby whose
// settings differ from those the owner recorded.
func (a *Sink) refuseAsStandby(ctx context.Context, conn *sql.Conn) error {
	if a.cfg.OwnedBefore {
		if err := a.checkOwner(ctx, conn); err != nil {
			return err
		}
	}
	if !a.cfg.Standby {
		return nil
	}
	have, ok, err := mysqlstate.OwnerSettings(ctx, conn, a.cfg.Stream)
	if err != nil || !ok {
		return err
	}
	if err := pipeline.StandbySettingsRefusal(a.cfg.Stream, have, a.cfg.Settings); err != nil {
		return exitcode.ConfigError(err)
	}
	return nil
}

// checkOwner refuses a session of a run that no longer owns the stream.
func (a *Sink) checkOwner(ctx context.Context, conn *sql.Conn) error {
	return CheckOwner(ctx, conn, a.cfg.Stream, a.cfg.RunID)
}

// CheckOwner returns nil when run owns the stream, and when another run
// took it over the error that stops this one (pipeline.TakenOverError,
// exit 2).
func CheckOwner(ctx context.Context, q mysqlstate.Querier, stream, run string) error {
	err := mysqlstate.CheckOwner(ctx, q, stream, run)
	if errors.Is(err, checkpoint.ErrNotOwner) {
		return exitcode.ConfigError(pipeline.TakenOverError(stream, err))
	}
	return err
}

// Heartbeat shows the stream's standbys that this replicator is alive: a
// statement on the leader connection (pipeline.Heartbeater).
func (a *Sink) Heartbeat(ctx context.Context) error {
	if _, err := a.leader.ExecContext(ctx, "DO 0"); err != nil {
		return fmt.Errorf("apply: heartbeat: %w", err)
	}
	return nil
}
