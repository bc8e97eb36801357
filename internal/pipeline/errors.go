package pipeline

import (
	"fmt"
	"strings"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
)

// Error is a change the target refused (constraint violation, value out of
// range, missing table, a row the target does not have), or a value the
// sink could not convert. Replication stops
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
	// Detail is the target's detail line for Err (PostgreSQL's DETAIL),
	// set by the sink that knows its driver's error type, so the pipeline
	// imports none.
	Detail string
}

func (e *Error) Error() string { return e.text(true) }

// Public is the error without what can quote a row (its key, the SQL, the
// target's detail line such as PostgreSQL's "Failing row contains …"):
// for the status page, which may be shared; the log has it all.
func (e *Error) Public() string { return e.text(false) }

func (e *Error) text(rows bool) string {
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
		b.WriteString(": DDL " + Shorten(e.DDL, 300))
	}
	if e.Table.Name != "" {
		fmt.Fprintf(&b, ": %s %s", e.Op, e.Table)
		if e.Key != "" && rows {
			b.WriteString(" [" + e.Key + "]")
		}
	}
	if e.SQL != "" && rows {
		b.WriteString(": SQL: " + Shorten(e.SQL, 300))
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	if e.Detail != "" && rows {
		b.WriteString(" (" + e.Detail + ")")
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Shorten cuts s to about n bytes on a character boundary, marking the cut.
func Shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut-- // do not split a UTF-8 sequence
	}
	return s[:cut] + "…"
}
