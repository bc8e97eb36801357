package preflight

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/sluice-db/sluice/internal/config"
)

// SourceInfo is what the checks learned about the source.
type SourceInfo struct {
	Flavor   string `json:"flavor"` // "mariadb" or "mysql"
	Version  string `json:"version"`
	ServerID uint32 `json:"server_id"`
	GTID     bool   `json:"gtid"` // GTID positioning is possible
	// BinlogRetention is how long the source keeps binlogs (0 = never
	// purged, or not read: only with Needs.MinBinlogRetention).
	BinlogRetention time.Duration `json:"-"`
}

func checkSource(ctx context.Context, m config.MySQL, needs Needs) (SourceInfo, []Problem) {
	var info SourceInfo
	db, err := m.OpenDB()
	if err != nil {
		return info, []Problem{Problemf("source", "check the --source URL", "invalid connection settings: %v", err)}
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err == nil {
		err = conn.PingContext(ctx)
	}
	if err != nil {
		return info, []Problem{mysqlConnectProblem("source", m, err)}
	}
	defer conn.Close()

	vars, err := globalVariables(ctx, conn)
	if err != nil {
		return info, []Problem{Problemf("source", "", "cannot read server variables: %v", err)}
	}
	info.Version = vars["version"]
	info.Flavor = "mysql"
	if strings.Contains(strings.ToLower(vars["version"]+vars["version_comment"]), "mariadb") {
		info.Flavor = "mariadb"
	}
	id, _ := strconv.ParseUint(vars["server_id"], 10, 32)
	info.ServerID = uint32(id)
	info.GTID = info.Flavor == "mariadb" || strings.EqualFold(vars["gtid_mode"], "ON")

	var probs []Problem
	probs = append(probs, checkPrivileges(ctx, conn, m, needs)...)
	if needs.Binlog {
		probs = append(probs, checkBinlogSettings(vars, info)...)
		probs = append(probs, checkServerID(ctx, conn, info, needs.ServerID)...)
		probs = append(probs, checkBinlogConnection(ctx, m)...)
	}
	if needs.Binlog || needs.Snapshot {
		probs = append(probs, checkRetention(ctx, conn, vars, &info, needs.MinBinlogRetention)...)
	}
	return info, probs
}

// mysqlConnectProblem explains a failed connection to a MySQL source or
// target (side); flag is --source or --target.
func mysqlConnectProblem(side string, m config.MySQL, err error) Problem {
	flag := "--" + side
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		case 1045:
			if t, _, _ := m.TLSConfig(); t == nil {
				return Problemf(side, "check the user and password in "+flag+"; if the user requires TLS (REQUIRE SSL), "+
					"add ?tls=verify-full (with &ssl-ca=FILE for a private CA) or ?tls=skip-verify to "+flag,
					"access denied for user %q at %s (wrong user or password, or the user may only connect over TLS)", m.User, m.Addr())
			}
			return Problemf(side, "check the user and password in "+flag,
				"access denied for user %q at %s (wrong user or password)", m.User, m.Addr())
		case 1049:
			return Problemf(side, "check the database name in "+flag,
				"database %q does not exist on %s", m.Database, m.Addr())
		case 1044:
			return Problemf(side, fmt.Sprintf("GRANT SELECT ON `%s`.* TO the sluice user", m.Database),
				"user %q has no access to database %q", m.User, m.Database)
		}
		return Problemf(side, "", "cannot connect to %s: MySQL error %d: %s", m.Addr(), me.Number, me.Message)
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		return Problemf(side, "check the host and port in "+flag+" and that the server runs",
			"cannot reach %s: connection refused", m.Addr())
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return Problemf(side, "check the host, port and firewall", "cannot reach %s: connection timed out", m.Addr())
	}
	return Problemf(side, "check the "+flag+" URL and that the server runs", "cannot connect to %s: %v", m.Addr(), err)
}

func globalVariables(ctx context.Context, conn *sql.Conn) (map[string]string, error) {
	rows, err := conn.QueryContext(ctx, `SHOW GLOBAL VARIABLES WHERE Variable_name IN
		('version','version_comment','server_id','log_bin','binlog_format','binlog_row_image',
		 'gtid_mode','binlog_row_value_options','gtid_strict_mode')`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	vars := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		vars[strings.ToLower(k)] = v
	}
	return vars, rows.Err()
}

func checkBinlogSettings(vars map[string]string, info SourceInfo) []Problem {
	var probs []Problem
	if !strings.EqualFold(vars["log_bin"], "ON") && vars["log_bin"] != "1" {
		probs = append(probs, Problemf("source", "start the server with log_bin (e.g. log_bin=mysql-bin in my.cnf) and restart it",
			"binary logging is off (log_bin=%s)", orNone(vars["log_bin"])))
	}
	if !strings.EqualFold(vars["binlog_format"], "ROW") {
		probs = append(probs, Problemf("source", "SET GLOBAL binlog_format = 'ROW' and binlog_format=ROW in my.cnf (on RDS, Aurora, Cloud SQL, Azure: binlog_format=ROW in the parameter group or database flags); sessions that are already connected keep the old format until they reconnect",
			"binlog_format is %s, sluice needs ROW", orNone(vars["binlog_format"])))
	}
	if !strings.EqualFold(vars["binlog_row_image"], "FULL") {
		probs = append(probs, Problemf("source", "SET GLOBAL binlog_row_image = 'FULL' and binlog_row_image=FULL in my.cnf (on a managed service: in the parameter group or database flags)",
			"binlog_row_image is %s, sluice needs FULL (complete before and after images)", orNone(vars["binlog_row_image"])))
	}
	// binlog_row_value_options=PARTIAL_JSON is fine: the stream applies the
	// diffs to the before image, which binlog_row_image=FULL (above) gives.
	if info.ServerID == 0 {
		probs = append(probs, Problemf("source", "set server_id to a non-zero value in my.cnf and restart",
			"server_id is 0: the server does not write a usable binlog for replicas"))
	}
	return probs
}

func checkServerID(ctx context.Context, conn *sql.Conn, info SourceInfo, ours uint32) []Problem {
	if ours == 0 {
		return nil
	}
	if ours == info.ServerID {
		return []Problem{Problemf("source", "pass another --server-id",
			"--server-id %d is the source's own server_id", ours)}
	}
	rows, err := conn.QueryContext(ctx, "SHOW SLAVE HOSTS")
	if err != nil {
		return nil // needs a privilege we do not otherwise require; the dump would fail loudly anyway
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	vals := make([]sql.RawBytes, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if rows.Scan(ptrs...) != nil {
			break
		}
		for i, c := range cols {
			if strings.EqualFold(c, "Server_id") && string(vals[i]) == strconv.FormatUint(uint64(ours), 10) {
				return []Problem{Problemf("source", "pass another --server-id, or stop the replica that uses it",
					"--server-id %d is already used by a connected replica", ours)}
			}
		}
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "(unset)"
	}
	return s
}
