package mysql

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
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
