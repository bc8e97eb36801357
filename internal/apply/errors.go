package apply

import (
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
)

// Error is a change PostgreSQL refused (constraint violation, value out of
// range, missing table, a row the target does not have). Replication stops
// on it: nothing is skipped. It names everything needed to find the cause:
// the source transaction's end position, the table, the row's key, the SQL.
type Error struct {
	Position model.Position // end of the source transaction (nil inside a large one still streaming)
	GTID     string
	Table    schema.TableID
	Op       model.Op
	Key      string // "id=42", values cut short
	SQL      string // the statement that failed, cut short
	// DDL is the source statement when a schema change failed.
	DDL string
	Err error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("apply: source transaction ending at ")
	if e.Position == nil {
		b.WriteString("(large transaction, not yet complete)")
	} else {
		b.WriteString(e.Position.String())
	}
	if e.GTID != "" {
		b.WriteString(" (GTID " + e.GTID + ")")
	}
	if e.DDL != "" {
		b.WriteString(": DDL " + shorten(e.DDL, 300))
	}
	if e.Table.Name != "" {
		fmt.Fprintf(&b, ": %s %s", e.Op, e.Table)
		if e.Key != "" {
			b.WriteString(" [" + e.Key + "]")
		}
	}
	if e.SQL != "" {
		b.WriteString(": SQL: " + shorten(e.SQL, 300))
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	var pgErr *pgconn.PgError
	if errors.As(e.Err, &pgErr) && pgErr.Detail != "" {
		b.WriteString(" (" + pgErr.Detail + ")")
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut-- // do not split a UTF-8 sequence
	}
	return s[:cut] + "…"
}

// describe turns a failed statement into an Error.
func describe(err error, plans *planCache) error {
	var se *stmtError
	if !errors.As(err, &se) {
		return err
	}
	e := &Error{SQL: se.stmt.sql, Err: se.err}
	if ch := se.stmt.ch; ch != nil {
		e.Table = ch.rc.Table.TableID
		e.Op = ch.rc.Op
		if ch.src != nil {
			e.Position, e.GTID = ch.src.txn.End, ch.src.txn.GTID
		}
		img := ch.rc.Before
		if img == nil {
			img = ch.rc.After
		}
		if p, perr := plans.get(ch.rc.Table); perr == nil {
			e.Key = p.KeyString(img)
			if se.stmt.rows > 1 {
				e.Key = fmt.Sprintf("one of %d rows from %s", se.stmt.rows, e.Key)
			}
		}
	}
	return e
}

// isDataError reports whether err is PostgreSQL refusing the data (worth
// re-applying statement by statement to find the exact row) as opposed to
// a lost connection or a cancelled context.
func isDataError(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return true
	}
	return errors.Is(err, errTargetDiverged)
}
