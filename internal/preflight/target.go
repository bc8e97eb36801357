package preflight

import (
	"context"
	"errors"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sluice-db/sluice/internal/config"
	pgsink "github.com/sluice-db/sluice/internal/sink/postgres"
)

// TargetInfo is what the checks learned about the target.
type TargetInfo struct {
	Version  string `json:"version"`
	WALLevel string `json:"wal_level"`
	PostGIS  bool   `json:"postgis"` // the postgis extension is installed in the database
}

func checkTarget(ctx context.Context, p config.Postgres, needs Needs) (TargetInfo, []Problem) {
	var info TargetInfo
	cfg, err := pgx.ParseConfig(p.ConnString())
	if err != nil {
		return info, []Problem{problem("target", "check the --target URL", "invalid connection settings: %v", err)}
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return info, []Problem{targetConnectProblem(p, err)}
	}
	defer conn.Close(context.Background())
	var canCreate bool
	err = conn.QueryRow(ctx, `SELECT current_setting('server_version'), current_setting('wal_level'),
		has_database_privilege(current_database(), 'CREATE'),
		EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'postgis')`).Scan(&info.Version, &info.WALLevel, &canCreate, &info.PostGIS)
	if err != nil {
		return info, []Problem{problem("target", "", "cannot read server settings: %v", err)}
	}
	var probs []Problem
	if needs.TargetCreate && !canCreate {
		probs = append(probs, problem("target", "GRANT CREATE ON DATABASE \""+p.Database+"\" TO \""+p.User+"\"",
			"user %q cannot create schemas in database %q", p.User, p.Database))
	}
	if !needs.TargetReadOnly {
		probs = append(probs, checkReplicaRole(ctx, conn, p)...)
	}
	if info.WALLevel != "logical" {
		probs = append(probs, warning("target", "set wal_level = logical in postgresql.conf (needs a restart) before using reverse replication",
			"wal_level is %s: fine for migrating into PostgreSQL, but the rollback path (reverse replication) will need logical", info.WALLevel))
	}
	return info, probs
}

func targetConnectProblem(p config.Postgres, err error) Problem {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "28000":
			if strings.Contains(pe.Message, "no encryption") {
				return problem("target", "add sslmode=verify-full&sslrootcert=/path/to/ca.pem (or sslmode=require) to the --target URL",
					"%s accepts this user only over TLS (pg_hba.conf: %s)", p.Addr(), pe.Message)
			}
			return problem("target", "check the user in --target and the server's pg_hba.conf",
				"%s refuses user %q: %s", p.Addr(), p.User, pe.Message)
		case "28P01":
			return problem("target", "check the user and password in --target and pg_hba.conf",
				"authentication failed for user %q at %s", p.User, p.Addr())
		case "3D000":
			return problem("target", "create the database (CREATE DATABASE) or fix the name in --target",
				"database %q does not exist on %s", p.Database, p.Addr())
		}
		return problem("target", "", "cannot connect to %s: %s (SQLSTATE %s)", p.Addr(), pe.Message, pe.Code)
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		return problem("target", "check the host and port in --target and that the server runs",
			"cannot reach %s: connection refused", p.Addr())
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded) {
		return problem("target", "check the host, port and firewall", "cannot reach %s: connection timed out", p.Addr())
	}
	return problem("target", "check the --target URL and that the server runs", "cannot connect to %s: %v", p.Addr(), err)
}

// checkReplicaRole tries the setting every session writing replicated rows
// runs with (pgsink.ReplicaRoleSQL: the target's triggers must not fire on
// them), on this connection only.
func checkReplicaRole(ctx context.Context, conn *pgx.Conn, p config.Postgres) []Problem {
	_, err := conn.Exec(ctx, pgsink.ReplicaRoleSQL)
	if err == nil {
		_, err = conn.Exec(ctx, `RESET session_replication_role`)
	}
	if err == nil {
		return nil
	}
	if !pgsink.ReplicaRoleRefused(err) {
		return []Problem{problem("target", "", "cannot set session_replication_role: %v", err)}
	}
	var ver int
	_ = conn.QueryRow(ctx, `SELECT current_setting('server_version_num')::int`).Scan(&ver)
	return []Problem{problem("target", pgsink.ReplicaRoleFix(ver, p.User),
		"user %q may not set session_replication_role = replica, which keeps the target's triggers from firing "+
			"on the rows sluice writes (docs/replication.md, \"Triggers\")", p.User)}
}
