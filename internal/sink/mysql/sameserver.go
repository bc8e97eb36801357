package mysql

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"strings"
)

// SameServer tells whether target and source are one server: a user lock
// with a random name taken on the target is in use as seen from the source
// only if they are (host names, ports and server ids can coincide between
// servers; a lock cannot). A MySQL target may be another database of the
// source server, never the source database itself.
func SameServer(ctx context.Context, target, source *sql.DB) (bool, error) {
	var rnd [12]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return false, err
	}
	name := "sluice probe " + hex.EncodeToString(rnd[:])
	c, err := target.Conn(ctx) // the lock is the session's
	if err != nil {
		return false, fmt.Errorf("target: %w", err)
	}
	defer c.Close()
	var got sql.NullInt64
	if err := c.QueryRowContext(ctx, "SELECT GET_LOCK(?, 0)", name).Scan(&got); err != nil {
		return false, fmt.Errorf("target: GET_LOCK: %w", err)
	}
	if got.Int64 != 1 {
		return false, fmt.Errorf("target: GET_LOCK(%q) returned %v", name, got)
	}
	defer c.ExecContext(ctx, "DO RELEASE_LOCK(?)", name)
	var holder sql.NullInt64
	if err := source.QueryRowContext(ctx, "SELECT IS_USED_LOCK(?)", name).Scan(&holder); err != nil {
		return false, fmt.Errorf("source: IS_USED_LOCK: %w", err)
	}
	return holder.Valid, nil
}

// SourceScopeRefusal is why a target database on the source server is
// refused (nil when it is not): the source database itself would have the
// source's changes written back into it, and another database the stream
// reads (scope: the source filter) would have the sink's own writes read
// back as source changes.
func SourceScopeRefusal(target string, isSourceDatabase, inScope bool, scope fmt.Stringer) error {
	switch {
	case isSourceDatabase:
		return fmt.Errorf("the target database %q is the source database on the same server: choose another target database", target)
	case inScope:
		return fmt.Errorf("the target database %q is on the source server and in the source scope (%s): narrow --include to the source database", target, scope)
	}
	return nil
}

// FlavorRefusal refuses a MariaDB source into a MySQL (not MariaDB) target
// (nil otherwise). The schema is the source's own statements and the values
// its bytes, and MariaDB's dialect has no faithful MySQL form: its UUID/INET
// columns fail at once, but its JSON-as-text would be normalised by MySQL's
// JSON type without a word (key order, duplicate keys, number spelling).
func FlavorRefusal(srcFlavor, srcVersion, targetVersion string) error {
	if !strings.EqualFold(srcFlavor, "mariadb") || isMariaDB(targetVersion) {
		return nil
	}
	return fmt.Errorf("the source is %s %s and the target %s: a MariaDB source goes into a MariaDB target "+
		"(sluice copies the schema and applies the values in the source's own dialect; MySQL into MariaDB is translated, the reverse is not)",
		srcFlavor, srcVersion, targetVersion)
}

// isMariaDB tells a MariaDB server by its VERSION().
func isMariaDB(version string) bool { return strings.Contains(strings.ToLower(version), "mariadb") }
