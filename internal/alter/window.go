package alter

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// A revert window (docs/alter.md "Revert after the swap"): after the swap
// the old table, renamed windowName, is kept current from the binlog — each
// change of the new table written back into the old layout — until the
// window ends, so that sluice alter --revert can swap it back. Its state is
// one row of sluice.alter_windows, written under the swap's lock before
// the RENAME, so that a run killed at any point after it resumes the
// window: replaying the binlog from the swap's position is exact, as the
// copy's replay from its start position is (every apply re-reads the row).

// Window states (alter_windows.state).
const (
	windowOpen     = "open"
	windowEnded    = "ended"
	windowReverted = "reverted"
)

type window struct {
	Alter       string
	OldTable    string
	Pos         string // the binlog position at the swap, encoded
	EndsAt      time.Time
	Fingerprint string // of the new definition, to tell a later change of the table
	State, Why  string
	RevertReq   bool
}

func (w *window) ended(now time.Time) bool { return w.State != windowOpen || !now.Before(w.EndsAt) }

func loadWindow(ctx context.Context, db *sql.DB, dbName, table string) (*window, error) {
	var n int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'sluice' AND TABLE_NAME = 'alter_windows'`).Scan(&n); err != nil || n == 0 {
		return nil, err
	}
	w := &window{}
	var ends int64
	err := db.QueryRowContext(ctx, "SELECT alter_text, old_tbl, start_pos, ends_ms, fingerprint, state, why, revert_req FROM `sluice`.`alter_windows` WHERE db = ? AND tbl = ?",
		dbName, table).Scan(&w.Alter, &w.OldTable, &w.Pos, &ends, &w.Fingerprint, &w.State, &w.Why, &w.RevertReq)
	w.EndsAt = time.UnixMilli(ends)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("alter: read the revert window: %w", err)
	}
	return w, nil
}

// saveWindow opens (or re-opens, for a swap attempt after a failed one)
// the table's window; on a session other than the swap's locking one.
func saveWindow(ctx context.Context, db *sql.DB, dbName, table string, w *window) error {
	_, err := db.ExecContext(ctx, "REPLACE INTO `sluice`.`alter_windows` (db, tbl, alter_text, old_tbl, start_pos, ends_ms, fingerprint, state, why, revert_req) "+
		"VALUES (?, ?, ?, ?, ?, ?, ?, ?, '', 0)", dbName, table, w.Alter, w.OldTable, w.Pos, w.EndsAt.UnixMilli(), w.Fingerprint, windowOpen)
	if err != nil {
		return fmt.Errorf("alter: save the revert window: %w", err)
	}
	return nil
}

// closeWindow records how the window ended; the row stays, so that a
// later --revert can say why it is refused.
func closeWindow(ctx context.Context, db *sql.DB, dbName, table, state, why string) error {
	_, err := db.ExecContext(ctx, "UPDATE `sluice`.`alter_windows` SET state = ?, why = ?, revert_req = 0 WHERE db = ? AND tbl = ?", state, why, dbName, table)
	if err != nil {
		return fmt.Errorf("alter: close the revert window: %w", err)
	}
	return nil
}

// advanceWindow moves the position a resumed window or a revert replays
// from (a checkpoint, revert.go).
func advanceWindow(ctx context.Context, db *sql.DB, dbName, table, pos string) error {
	_, err := db.ExecContext(ctx, "UPDATE `sluice`.`alter_windows` SET start_pos = ? WHERE db = ? AND tbl = ? AND state = ?", pos, dbName, table, windowOpen)
	if err != nil {
		return fmt.Errorf("alter: checkpoint the revert window: %w", err)
	}
	return nil
}

func setRevertRequest(ctx context.Context, db *sql.DB, dbName, table string, on bool) error {
	_, err := db.ExecContext(ctx, "UPDATE `sluice`.`alter_windows` SET revert_req = ? WHERE db = ? AND tbl = ?", on, dbName, table)
	if err != nil {
		return fmt.Errorf("alter: revert request: %w", err)
	}
	return nil
}

// fingerprint hashes a table's columns and indexes (not its name): the
// window records the new definition's, and a revert refuses a table whose
// definition has changed since.
func fingerprint(ctx context.Context, db *sql.DB, dbName, table string) (string, error) {
	h := sha256.New()
	for _, q := range []string{
		`SELECT COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, COALESCE(COLUMN_DEFAULT, '<none>'), COALESCE(COLLATION_NAME, ''), EXTRA
		FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`,
		`SELECT INDEX_NAME, NON_UNIQUE, SEQ_IN_INDEX, COALESCE(COLUMN_NAME, ''), COALESCE(SUB_PART, 0)
		FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY INDEX_NAME, SEQ_IN_INDEX`,
	} {
		rows, err := queryMaps(ctx, db, q, dbName, table)
		if err != nil {
			return "", fmt.Errorf("alter: read the definition of %s.%s: %w", dbName, table, err)
		}
		for _, r := range rows {
			fmt.Fprintf(h, "%v\n", r)
		}
		h.Write([]byte("--\n"))
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// windowLockName is the server's named lock a process keeping the window
// holds (GET_LOCK): a --revert waits for it to hand the window over, and a
// second keeper is refused. The server frees it with the session, so a
// killed keeper does not hold it.
func windowLockName(dbName, table string) string {
	name := "sluice alter window " + dbName + "." + table
	if len(name) > 64 {
		sum := sha256.Sum256([]byte(name))
		name = "sluice alter window " + hex.EncodeToString(sum[:])[:40]
	}
	return name
}

// takeWindowLock takes the named lock on a session of its own, waiting at
// most wait; release frees it (closing the session).
func takeWindowLock(ctx context.Context, db *sql.DB, dbName, table string, wait time.Duration) (release func(), ok bool, err error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, false, err
	}
	var got sql.NullInt64
	if err := conn.QueryRowContext(ctx, "SELECT GET_LOCK(?, ?)", windowLockName(dbName, table), int(wait.Seconds())).Scan(&got); err != nil {
		conn.Close()
		return nil, false, fmt.Errorf("alter: take the revert window's lock: %w", err)
	}
	if got.Int64 != 1 {
		conn.Close()
		return nil, false, nil
	}
	return func() {
		conn.ExecContext(context.WithoutCancel(ctx), "SELECT RELEASE_LOCK(?)", windowLockName(dbName, table)) //nolint:errcheck
		conn.Close()
	}, true, nil
}

// revertProblems are the reasons a change cannot be kept revertible: a
// value written after the swap that the old layout could not hold exactly,
// named at the start (exit 2) rather than found at the revert.
func (r *runner) revertProblems(ctx context.Context) ([]string, error) {
	var bad []string
	if !r.fks.empty() {
		bad = append(bad, fmt.Sprintf("%s has foreign keys (or is referenced by some): --revert-window does not carry them back yet; alter without it", r.id))
	}
	if len(revertedName(r.id.Name)) > 64 {
		bad = append(bad, fmt.Sprintf("table name %s is too long for the revert's name %s (64 characters at most)", r.id.Name, revertedName(r.id.Name)))
	}
	oldD, newD := r.p.oldDef, r.p.newDef
	defaults, err := columnDefaults(ctx, r.db, r.id.Database, r.id.Name)
	if err != nil {
		return nil, err
	}
	for _, o := range oldD.Columns {
		n := newD.column(o.Name)
		switch {
		case o.Generated:
		case n == nil:
			if !o.Nullable && !defaults[o.Name] {
				bad = append(bad, fmt.Sprintf("the change drops column %s, NOT NULL without a default: a row inserted after the swap has no value for it in the old layout; "+
					"give it a DEFAULT first, or alter without --revert-window", o.Name))
			}
		case !o.Nullable && n.Nullable:
			bad = append(bad, fmt.Sprintf("the change makes column %s nullable: a NULL written after the swap does not fit the old NOT NULL column; alter without --revert-window", o.Name))
		case !strings.EqualFold(o.Collation, n.Collation):
			bad = append(bad, fmt.Sprintf("the change alters the collation of column %s (%s to %s): values written after the swap may not convert back exactly; alter without --revert-window",
				o.Name, o.Collation, n.Collation))
		case !fitsBack(o.Type, n.Type):
			bad = append(bad, fmt.Sprintf("the change alters column %s from %s to %s: a value written after the swap may not fit %s, so the revert could not keep it exactly; "+
				"alter without --revert-window", o.Name, o.Type, n.Type, o.Type))
		}
	}
	for _, ko := range oldD.Keys {
		if !hasUniqueKey(newD, ko.Columns) {
			bad = append(bad, fmt.Sprintf("the change drops unique key %s (%s): rows written after the swap may violate it in the old table; alter without --revert-window",
				ko.Name, strings.Join(ko.Columns, ", ")))
		}
	}
	if exists, err := r.tableExists(ctx, windowName(r.id.Name)); err != nil || exists {
		if err != nil {
			return nil, err
		}
		bad = append(bad, fmt.Sprintf("table %s exists: the revert window keeps the old table under that name; drop or rename it first", windowName(r.id.Name)))
	}
	return bad, nil
}

func hasUniqueKey(d *tableDef, cols []string) bool {
	for _, k := range d.Keys {
		if sameSet(k.Columns, cols) {
			return true
		}
	}
	return false
}

// columnDefaults tells, per column, whether it has a default (or is
// filled by the server: AUTO_INCREMENT).
func columnDefaults(ctx context.Context, db *sql.DB, dbName, table string) (map[string]bool, error) {
	rows, err := queryMaps(ctx, db, `SELECT COLUMN_NAME AS c, (COLUMN_DEFAULT IS NOT NULL OR EXTRA LIKE '%auto_increment%') AS d
		FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?`, dbName, table)
	if err != nil {
		return nil, fmt.Errorf("alter: read the column defaults of %s.%s: %w", dbName, table, err)
	}
	out := map[string]bool{}
	for _, r := range rows {
		out[r["c"]] = r["d"] == "1"
	}
	return out, nil
}

var typeRE = regexp.MustCompile(`^([a-z]+)(?:\((\d+)(?:,(\d+))?\))?( unsigned)?( zerofill)?$`)

// fitsBack: every value of type n converts to type o unchanged. Equal
// types; integers whose range is within o's; strings of one kind no
// longer than o's; DECIMALs with no more digits on either side.
func fitsBack(o, n string) bool {
	o, n = strings.ToLower(strings.TrimSpace(o)), strings.ToLower(strings.TrimSpace(n))
	if o == n {
		return true
	}
	mo, mn := typeRE.FindStringSubmatch(o), typeRE.FindStringSubmatch(n)
	if mo == nil || mn == nil {
		return false
	}
	num := func(s string) int { v, _ := strconv.Atoi(s); return v }
	bits := map[string]int{"tinyint": 8, "smallint": 16, "mediumint": 24, "int": 32, "integer": 32, "bigint": 64}
	bo, okO := bits[mo[1]]
	bn, okN := bits[mn[1]]
	uo, un := mo[4] != "", mn[4] != ""
	switch {
	case okO && okN:
		switch {
		case uo == un:
			return bn <= bo
		case un && !uo:
			return bn < bo
		}
		return false
	case mo[1] != mn[1]:
		return false
	case mo[1] == "varchar" || mo[1] == "char" || mo[1] == "varbinary" || mo[1] == "binary":
		return num(mn[2]) <= num(mo[2])
	case mo[1] == "decimal":
		return uo == un && num(mn[3]) <= num(mo[3]) && num(mn[2])-num(mn[3]) <= num(mo[2])-num(mo[3])
	}
	return false
}
