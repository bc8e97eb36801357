package logical

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Replication origins mark the transactions the forward stream (MySQL →
// PostgreSQL) applies once a cut-over is recorded, so that the reverse
// stream's decoder skips them instead of sending MySQL's own rows back.
// PostgreSQL 15 lets one origin be set up by one session at a time, so each
// apply session of the forward stream takes its own: ForwardOrigin(stream, 0)
// is "sluice_<stream>", the next ones "sluice_<stream>#2", "#3"... The
// reverse decoder skips every transaction whose origin IsForwardOrigin (as
// PostgreSQL 16's origin = none would skip every origin).

// OriginPrefix starts the name of every origin sluice's forward apply uses.
const OriginPrefix = "sluice_"

// ForwardOrigin is the replication origin of the n-th (0-based) apply
// session of the forward stream.
func ForwardOrigin(stream string, n int) string {
	if n == 0 {
		return OriginPrefix + stream
	}
	return fmt.Sprintf("%s%s#%d", OriginPrefix, stream, n+1)
}

// IsForwardOrigin reports whether a transaction's origin name (pgoutput's
// Origin message) is one of sluice's forward apply sessions.
func IsForwardOrigin(origin string) bool { return strings.HasPrefix(origin, OriginPrefix) }

// OriginGrant is what a non-superuser target user needs for the origins.
func OriginGrant(user string) string {
	return "GRANT EXECUTE ON FUNCTION pg_replication_origin_create(text), pg_replication_origin_drop(text), " +
		"pg_replication_origin_oid(text), pg_replication_origin_session_setup(text), " +
		"pg_replication_origin_session_reset(), pg_replication_origin_session_is_setup() TO " + user +
		" (as a superuser, in the target database)"
}

// rowQuerier is a connection, pooled or not.
type rowQuerier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// CheckOriginPrivileges returns an error naming the GRANT when the current
// user cannot use replication origins.
func CheckOriginPrivileges(ctx context.Context, q rowQuerier) error {
	var ok bool
	var user string
	err := q.QueryRow(ctx, `SELECT current_user::text, bool_and(has_function_privilege(f, 'EXECUTE')) FROM unnest(ARRAY[
		'pg_replication_origin_create(text)', 'pg_replication_origin_drop(text)', 'pg_replication_origin_oid(text)',
		'pg_replication_origin_session_setup(text)', 'pg_replication_origin_session_reset()',
		'pg_replication_origin_session_is_setup()']) f`).Scan(&user, &ok)
	if err != nil {
		return fmt.Errorf("check the replication origin privileges: %w", err)
	}
	if !ok {
		return fmt.Errorf("the target user %s cannot use replication origins, which mark the forward stream's transactions "+
			"so that the reverse stream does not send them back: %s", user, OriginGrant(pgx.Identifier{user}.Sanitize()))
	}
	return nil
}
