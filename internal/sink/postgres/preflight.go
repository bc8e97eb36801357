package postgres

import (
	"context"
	"errors"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/preflight"
)

// CheckTarget is the pre-flight check of a PostgreSQL target
// (preflight.TargetChecker): reachable, CREATE when the command creates
// tables, session_replication_role for writers, wal_level for the way back.
func (e engine) CheckTarget(ctx context.Context, needs preflight.Needs) (preflight.TargetInfo, []preflight.Problem) {
	return checkTarget(ctx, e.cfg, needs)
}

func checkTarget(ctx context.Context, p config.Postgres, needs preflight.Needs) (preflight.TargetInfo, []preflight.Problem) {
	var info preflight.TargetInfo
	cfg, err := pgx.ParseConfig(p.ConnString())
	if err != nil {
		return info, []preflight.Problem{preflight.Problemf("target", "check the --target URL", "invalid connection settings: %v", err)}
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return info, []preflight.Problem{targetConnectProblem(p, err)}
	}
	defer conn.Close(context.Background())
	var canCreate bool
	err = conn.QueryRow(ctx, `SELECT current_setting('server_version'), current_setting('wal_level'),
		has_database_privilege(current_database(), 'CREATE'),
		EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'postgis')`).Scan(&info.Version, &info.WALLevel, &canCreate, &info.PostGIS)
	if err != nil {
		return info, []preflight.Problem{preflight.Problemf("target", "", "cannot read server settings: %v", err)}
	}
	var probs []preflight.Problem
	if needs.TargetCreate && !canCreate {
		probs = append(probs, preflight.Problemf("target", "GRANT CREATE ON DATABASE \""+p.Database+"\" TO \""+p.User+"\"",
			"user %q cannot create schemas in database %q", p.User, p.Database))
	}
	if !needs.TargetReadOnly {
		probs = append(probs, checkReplicaRole(ctx, conn, p)...)
	}
	if info.WALLevel != "logical" {
		probs = append(probs, preflight.Warningf("target", "set wal_level = logical in postgresql.conf (needs a restart) before using reverse replication",
			"wal_level is %s: fine for migrating into PostgreSQL, but the rollback path (reverse replication) will need logical", info.WALLevel))
	}
	return info, probs
}

func targetConnectProblem(p config.Postgres, err error) preflight.Problem {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "28000":
			if strings.Contains(pe.Message, "no encryption") {
				return preflight.Problemf("target", "add sslmode=verify-full&sslrootcert=/path/to/ca.pem (or sslmode=require) to the --target URL",
					"%s accepts this user only over TLS (pg_hba.conf: %s)", p.Addr(), pe.Message)
			}
			return preflight.Problemf("target", "check the user in --target and the server's pg_hba.conf",
				"%s refuses user %q: %s", p.Addr(), p.User, pe.Message)
		case "28P01":
			return preflight.Problemf("target", "check the user and password in --target and pg_hba.conf",
				"authentication failed for user %q at %s", p.User, p.Addr())
		case "3D000":
			return preflight.Problemf("target", "create the database (CREATE DATABASE) or fix the name in --target",
				"database %q does not exist on %s", p.Database, p.Addr())
		}
		return preflight.Problemf("target", "", "cannot connect to %s: %s (SQLSTATE %s)", p.Addr(), pe.Message, pe.Code)
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		return preflight.Problemf("target", "check the host and port in --target and that the server runs",
			"cannot reach %s: connection refused", p.Addr())
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded) {
		return preflight.Problemf("target", "check the host, port and firewall", "cannot reach %s: connection timed out", p.Addr())
	}
	return preflight.Problemf("target", "check the --target URL and that the server runs", "cannot connect to %s: %v", p.Addr(), err)
}

// checkReplicaRole tries the setting every session writing replicated rows
// runs with (ReplicaRoleSQL: the target's triggers must not fire on
// them), on this connection only.
func checkReplicaRole(ctx context.Context, conn *pgx.Conn, p config.Postgres) []preflight.Problem {
	_, err := conn.Exec(ctx, ReplicaRoleSQL)
	if err == nil {
		_, err = conn.Exec(ctx, `RESET session_replication_role`)
	}
	if err == nil {
		return nil
	}
	if !ReplicaRoleRefused(err) {
		return []preflight.Problem{preflight.Problemf("target", "", "cannot set session_replication_role: %v", err)}
	}
	var ver int
	_ = conn.QueryRow(ctx, `SELECT current_setting('server_version_num')::int`).Scan(&ver)
	return []preflight.Problem{preflight.Problemf("target", ReplicaRoleFix(ver, p.User),
		"user %q may not set session_replication_role = replica, which keeps the target's triggers from firing "+
			"on the rows sluice writes (docs/replication.md, \"Triggers\")", p.User)}
}
