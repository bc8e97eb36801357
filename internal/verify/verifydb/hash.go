package verifydb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"

	"github.com/go-sql-driver/mysql"

	"github.com/sluice-db/sluice/internal/exitcode"
)

// RowDigest is the hash both databases compute over row and key texts. Both
// sides must compute the identical digest, so the choice is made once per run
// from what the source has built in: MD5 (MariaDB, MySQL up to 8.4, MySQL 9 with
// component_classic_hashing) is the cheapest; MySQL 9 moved MD5() out of the
// server core into a component, and there SHA-256 (SHA2 in MySQL, sha256 in
// PostgreSQL 11+) is used instead.
type RowDigest int

const (
	DigestMD5 RowDigest = iota
	DigestSHA256
)

func (d RowDigest) String() string {
	if d == DigestSHA256 {
		return "SHA-256"
	}
	return "MD5"
}

// My is the lower-case hex digest of a MySQL binary string expression.
func (d RowDigest) My(x string) string {
	if d == DigestSHA256 {
		return "SHA2(" + x + ", 256)"
	}
	return "MD5(" + x + ")"
}

// PG is the same digest of a PostgreSQL text expression (hashed as its UTF-8
// bytes, which is what the MySQL side's utf8mb4 binary string holds).
func (d RowDigest) PG(x string) string {
	if d == DigestSHA256 {
		return "encode(sha256(convert_to(" + x + ", 'UTF8')), 'hex')"
	}
	return "md5(" + x + ")"
}

// errNoSuchFunction is MySQL's ER_SP_DOES_NOT_EXIST (1305, "FUNCTION MD5 does not exist").
const errNoSuchFunction = 1305

// errRoutineDenied is ER_PROCACCESS_DENIED_ERROR (1370, "execute command
// denied to user ... for routine 'db.MD5'"): without a built-in MD5() (MySQL
// 9), MD5 names a stored function of the current database, and a user
// without EXECUTE there (a managed service's replication user) gets this
// before the server finds there is none.
const errRoutineDenied = 1370

// ChooseDigest picks the row digest: MD5 when both sides have it, else
// SHA-256, which the target must then offer (PostgreSQL 11+).
func ChooseDigest(ctx context.Context, src *sql.DB, tgt Target) (RowDigest, error) {
	srcMD5, err := MySQLHasMD5(ctx, src)
	if err != nil {
		return 0, fmt.Errorf("source: %w", err)
	}
	tgtMD5, err := tgt.HasMD5(ctx)
	if err != nil {
		return 0, fmt.Errorf("target: %w", err)
	}
	if srcMD5 && tgtMD5 {
		return DigestMD5, nil
	}
	var s string
	if err := src.QueryRowContext(ctx, "SELECT SHA2('', 256)").Scan(&s); err != nil {
		return 0, exitcode.ConfigError(fmt.Errorf("source: neither MD5() nor SHA2() works (%w): verify needs one of them "+
			"to hash rows inside the source; on MySQL 9 run INSTALL COMPONENT 'file://component_classic_hashing'", err))
	}
	t, err := tgt.SHA256Empty(ctx)
	if err != nil {
		return 0, exitcode.ConfigError(fmt.Errorf("target: SHA-256 does not work (%w): a side has no MD5() "+
			"(MySQL 9 without component_classic_hashing), so verify hashes with SHA-256 on both sides; "+
			"use PostgreSQL 11 or later, or INSTALL COMPONENT 'file://component_classic_hashing' on the MySQL 9 server", err))
	}
	if s != t {
		return 0, fmt.Errorf("SHA-256 of the empty string differs: source %q, target %q", s, t)
	}
	return DigestSHA256, nil
}

// MySQLHasMD5 reports whether a MySQL/MariaDB server has MD5().
func MySQLHasMD5(ctx context.Context, db *sql.DB) (bool, error) {
	var s string
	err := db.QueryRowContext(ctx, "SELECT MD5('')").Scan(&s)
	if err == nil {
		return true, nil
	}
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != errNoSuchFunction && me.Number != errRoutineDenied {
		return false, fmt.Errorf("probe MD5(): %w", err)
	}
	return false, nil
}

// Row hashes: the first 15 hex digits (60 bits) of the digest of the row text
// as an integer. Their SUM fits both engines' exact aggregates (DECIMAL and
// numeric) for any row count, and equal multisets of rows give equal sums.
func (p *Plan) MyHash(text string) string {
	return "CAST(CONV(LEFT(" + p.Digest.My(text) + ", 15), 16, 10) AS UNSIGNED)"
}

func (p *Plan) PGHash(text string) string {
	return "('x' || left(" + p.Digest.PG(text) + ", 15))::bit(60)::bigint"
}

// Buckets (modeBucket): 32 bits of the digest of the key text, modulo n.
func (p *Plan) myBucket(keyText string, n int) string {
	return "(CAST(CONV(LEFT(" + p.Digest.My(keyText) + ", 8), 16, 10) AS UNSIGNED) % " + strconv.Itoa(n) + ")"
}

func (p *Plan) pgBucket(keyText string, n int) string {
	return "(('x' || left(" + p.Digest.PG(keyText) + ", 8))::bit(32)::bigint % " + strconv.Itoa(n) + ")"
}
