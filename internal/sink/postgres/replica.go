package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sluice-db/sluice/internal/exitcode"
)

// Every session that writes replicated rows runs with
// session_replication_role = replica, as PostgreSQL's own logical
// replication workers do: ordinary triggers (ENABLE TRIGGER, the default)
// then do not fire. The rows sluice applies already carry what the source's
// triggers did, so a trigger the application's owners ported to PostgreSQL
// and enabled at the cut-over must not run on them again (an AFTER INSERT
// copying into an audit table would copy every replicated row a second
// time). Triggers marked ENABLE REPLICA or ENABLE ALWAYS still fire: that is
// the way to ask for a trigger on replicated rows.
//
// The same setting also stops PostgreSQL's foreign key triggers, the checks
// and the actions (ON DELETE CASCADE, SET NULL, ON UPDATE CASCADE). The
// checks are not needed (the source checked), but the actions are the only
// copy of the child changes when the source does not log them (MariaDB,
// MySQL before 9): the sink performs them itself (cascade.go).

// ReplicaRoleSQL is the setting for the whole session.
const ReplicaRoleSQL = `SELECT set_config('session_replication_role', 'replica', false)`

// ReplicaRoleFix names what a target user needs to set the role: PostgreSQL
// 15 grants it per parameter, before 15 only a superuser may set it.
func ReplicaRoleFix(serverVersionNum int, user string) string {
	if serverVersionNum >= 150000 {
		return fmt.Sprintf(`GRANT SET ON PARAMETER session_replication_role TO "%s" (as a superuser)`, user)
	}
	return fmt.Sprintf(`ALTER ROLE "%s" SUPERUSER (before PostgreSQL 15 only a superuser may set `+
		`session_replication_role; PostgreSQL 15 grants it alone: GRANT SET ON PARAMETER)`, user)
}

// ReplicaRoleRefused says whether err is PostgreSQL refusing the setting
// for lack of privilege.
func ReplicaRoleRefused(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "42501"
}

// SetReplicaRole sets the role on a session (or, local, for the current
// transaction only); a refusal is a configuration error naming the GRANT.
// Every path that writes replicated rows calls it: the apply sessions, the
// snapshot's COPY, --recopy's swap, verify's repairs.
func SetReplicaRole(ctx context.Context, q Querier, local bool) error {
	set := ReplicaRoleSQL
	if local {
		set = `SELECT set_config('session_replication_role', 'replica', true)`
	}
	_, err := q.Exec(ctx, set)
	if err == nil {
		return nil
	}
	if !ReplicaRoleRefused(err) {
		return fmt.Errorf("set session_replication_role = replica: %w", err)
	}
	var ver int
	var user string
	if qerr := q.QueryRow(ctx, `SELECT current_setting('server_version_num')::int, current_user::text`).Scan(&ver, &user); qerr != nil {
		return fmt.Errorf("set session_replication_role = replica: %w", err)
	}
	return exitcode.ConfigError(fmt.Errorf("the target user may not set session_replication_role = replica, "+
		"which keeps the target's triggers from firing on the rows sluice writes (docs/replication.md, \"Triggers\"): %w; fix: %s",
		err, ReplicaRoleFix(ver, user)))
}
