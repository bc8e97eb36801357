package binlog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	gomysql "github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-sql-driver/mysql"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
)

// Flavors, as binlogpos.Position.Flavor and go-mysql name them.
const (
	FlavorMySQL   = gomysql.MySQLFlavor
	FlavorMariaDB = gomysql.MariaDBFlavor
)

// SourceInfo is what the stream needs to know about the source server.
type SourceInfo struct {
	Flavor   string // FlavorMySQL or FlavorMariaDB
	Version  string
	ServerID uint32
	// GTID is true when the binlog carries GTIDs that sluice tracks: always
	// on MariaDB 10+, gtid_mode=ON on MySQL.
	GTID bool
	// GTIDStrict is MariaDB's gtid_strict_mode: only then is a GTID position
	// unambiguous, so only then does a MariaDB stream position by GTID
	// (MySQL GTID sets are always exact).
	GTIDStrict bool
	// SQLForeignKeys is MySQL 9's innodb_native_foreign_keys=OFF: foreign
	// keys run in the SQL layer, their actions are logged as row events of
	// their own, and REPLACE runs no ON DELETE action (replace.go).
	SQLForeignKeys bool
	// UTF8MB4Collation is MySQL 8+'s @@default_collation_for_utf8mb4 (what
	// CHARACTER SET utf8mb4 without COLLATE means there); "" on MariaDB.
	UTF8MB4Collation string
	// CharsetDefaults maps each charset to the collation a charset clause
	// without COLLATE means on the source when its session sets no
	// character_set_collations (information_schema.COLLATIONS' IS_DEFAULT):
	// the target's own default may differ (MariaDB 11.2+ defaults to
	// uca1400), so replayed DDL names it (sink/mysql ddl.go).
	CharsetDefaults map[string]string
}

// Source is a plain SQL connection to the source for the questions a
// replication stream asks besides the binlog itself (positions, binlog
// files, replicas).
type Source struct {
	db *sql.DB
}

// OpenSource opens a small connection pool to the source.
func OpenSource(m config.MySQL) (*Source, error) {
	db, err := m.OpenDB()
	if err != nil {
		return nil, fmt.Errorf("source %s: %w", m.Redacted(), err)
	}
	db.SetMaxOpenConns(2)
	return &Source{db: db}, nil
}

// SourceOnPool asks its questions on a pool the caller opened and closes
// (verify reads positions on its own source pool); do not Close it.
func SourceOnPool(db *sql.DB) *Source { return &Source{db: db} }

// Close closes the pool.
func (s *Source) Close() error { return s.db.Close() }

// Info detects the flavor, version, server_id and GTID mode.
func (s *Source) Info(ctx context.Context) (SourceInfo, error) {
	var info SourceInfo
	var comment, gtidMode sql.NullString
	err := s.db.QueryRowContext(ctx, `SELECT VERSION(), @@version_comment, @@server_id`).Scan(&info.Version, &comment, &info.ServerID)
	if err != nil {
		return info, fmt.Errorf("source: read version and server_id: %w", err)
	}
	info.Flavor = FlavorMySQL
	if strings.Contains(strings.ToLower(info.Version+" "+comment.String), "mariadb") {
		info.Flavor = FlavorMariaDB
		info.GTID = true
		info.CharsetDefaults = charsetDefaults(ctx, s.db)
		var strict sql.NullString
		if err := s.db.QueryRowContext(ctx, `SELECT @@gtid_strict_mode`).Scan(&strict); err == nil {
			info.GTIDStrict = strict.String == "1" || strings.EqualFold(strict.String, "ON")
		}
		return info, nil
	}
	// gtid_mode exists from MySQL 5.6 on; an error means an older server.
	if err := s.db.QueryRowContext(ctx, `SELECT @@gtid_mode`).Scan(&gtidMode); err == nil {
		info.GTID = strings.EqualFold(gtidMode.String, "ON")
	}
	var utf8mb4 sql.NullString
	if err := s.db.QueryRowContext(ctx, `SELECT @@default_collation_for_utf8mb4`).Scan(&utf8mb4); err == nil {
		info.UTF8MB4Collation = utf8mb4.String
	}
	info.SQLForeignKeys = SQLForeignKeys(ctx, s.db)
	info.CharsetDefaults = charsetDefaults(ctx, s.db)
	return info, nil
}

// charsetDefaults reads SourceInfo.CharsetDefaults; nil when the server does
// not answer (the replayed DDL then keeps its clauses as written).
func charsetDefaults(ctx context.Context, db *sql.DB) map[string]string {
	rows, err := db.QueryContext(ctx, `SELECT CHARACTER_SET_NAME, COLLATION_NAME FROM information_schema.COLLATIONS WHERE IS_DEFAULT = 'Yes'`)
	if err != nil {
		return nil
	}
	defer rows.Close()
	m := map[string]string{}
	for rows.Next() {
		var cs, coll string
		if rows.Scan(&cs, &coll) != nil {
			return nil
		}
		m[strings.ToLower(cs)] = coll
	}
	if rows.Err() != nil {
		return nil
	}
	return m
}

// SQLForeignKeys reports MySQL 9's innodb_native_foreign_keys=OFF (see
// SourceInfo.SQLForeignKeys): the source logs the rows its foreign key
// actions change. The variable exists from MySQL 9 on (not on MariaDB); an
// error means InnoDB's own foreign keys, whose actions are not in the binlog.
func SQLForeignKeys(ctx context.Context, db *sql.DB) bool {
	var native sql.NullString
	if err := db.QueryRowContext(ctx, `SELECT @@innodb_native_foreign_keys`).Scan(&native); err != nil {
		return false
	}
	return native.String == "0" || strings.EqualFold(native.String, "OFF")
}

// MasterStatus returns the source's current binlog position (SHOW MASTER
// STATUS) with its executed GTID set.
func (s *Source) MasterStatus(ctx context.Context, info SourceInfo) (binlogpos.Position, error) {
	pos := binlogpos.Position{Flavor: info.Flavor, ServerID: info.ServerID}
	row, err := s.masterStatusRow(ctx)
	if err != nil {
		return pos, err
	}
	p, _ := strconv.ParseUint(row["position"], 10, 32)
	pos.File, pos.Pos = row["file"], uint32(p)
	pos.GTIDSet = strings.ReplaceAll(row["executed_gtid_set"], "\n", "")
	if info.Flavor == FlavorMariaDB {
		var g sql.NullString
		if err := s.db.QueryRowContext(ctx, `SELECT @@gtid_binlog_pos`).Scan(&g); err != nil {
			return pos, fmt.Errorf("source: read gtid_binlog_pos: %w", err)
		}
		pos.GTIDSet = g.String
	}
	if !info.GTID {
		pos.GTIDSet = ""
	}
	return pos, nil
}

// masterStatusRow reads the one row of SHOW MASTER STATUS (SHOW BINARY LOG
// STATUS on MySQL 8.4) by lower-case column name. It is done with its
// connection when it returns, so MasterStatus also works on a pool of one
// connection (verify's source pool).
func (s *Source) masterStatusRow(ctx context.Context) (map[string]string, error) {
	rows, err := s.db.QueryContext(ctx, "SHOW MASTER STATUS")
	if err != nil {
		rows, err = s.db.QueryContext(ctx, "SHOW BINARY LOG STATUS") // MySQL 8.4 removed SHOW MASTER STATUS
	}
	if err != nil {
		return nil, fmt.Errorf("source: SHOW MASTER STATUS: %w (needs REPLICATION CLIENT or BINLOG MONITOR)", err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("source: SHOW MASTER STATUS: %w", err)
		}
		return nil, exitcode.ConfigError(errors.New("source: SHOW MASTER STATUS is empty: binary logging is off (start the server with log_bin)"))
	}
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return nil, fmt.Errorf("source: SHOW MASTER STATUS: %w", err)
	}
	row := make(map[string]string, len(cols))
	for i, c := range cols {
		row[strings.ToLower(c)] = vals[i].String
	}
	return row, nil
}

// BinaryLogs lists the binlog files the source still has (SHOW BINARY LOGS).
func (s *Source) BinaryLogs(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, "SHOW BINARY LOGS")
	if err != nil {
		return nil, fmt.Errorf("source: SHOW BINARY LOGS: %w", err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var files []string
	vals := make([]sql.RawBytes, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("source: SHOW BINARY LOGS: %w", err)
		}
		files = append(files, string(vals[0]))
	}
	return files, rows.Err()
}

// GTIDAt converts a file:pos into the MariaDB GTID position at that point
// (BINLOG_GTID_POS), so that a stream started from a file position can still
// record GTIDs. It returns "" on MySQL.
func (s *Source) GTIDAt(ctx context.Context, info SourceInfo, pos binlogpos.Position) (string, error) {
	if info.Flavor != FlavorMariaDB {
		return "", nil
	}
	var g sql.NullString
	err := s.db.QueryRowContext(ctx, `SELECT BINLOG_GTID_POS(?, ?)`, pos.File, pos.Pos).Scan(&g)
	if err != nil {
		return "", fmt.Errorf("source: BINLOG_GTID_POS(%s): %w", pos, err)
	}
	return g.String, nil
}

// Replica is a server registered as a replica of the source.
type Replica struct {
	ServerID uint32
	Host     string
}

// Replicas lists the registered replicas (SHOW SLAVE HOSTS). A server that
// refuses the statement yields no replicas and no error: the binlog dump
// itself fails loudly on a real clash.
func (s *Source) Replicas(ctx context.Context) ([]Replica, error) {
	rows, err := s.db.QueryContext(ctx, "SHOW SLAVE HOSTS")
	if err != nil {
		var me *mysql.MySQLError
		if errors.As(err, &me) {
			return nil, nil
		}
		return nil, fmt.Errorf("source: SHOW SLAVE HOSTS: %w", err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var out []Replica
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("source: SHOW SLAVE HOSTS: %w", err)
		}
		var r Replica
		for i, c := range cols {
			switch strings.ToLower(c) {
			case "server_id":
				id, _ := strconv.ParseUint(vals[i].String, 10, 32)
				r.ServerID = uint32(id)
			case "host":
				r.Host = vals[i].String
			}
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
