package alter

import (
	"fmt"
	"strings"
	"time"
)

// Report is what a run did.
type Report struct {
	Method string // "instant", "copy", or "" for a dry run
	Why    string
	Plan   []string // the dry run's plan, one line each
	Rows   int64    // rows copied
	Keys   int64    // changed keys applied
	// KeysReadByCopy: changed keys not applied because their chunk's copy
	// read them after their last change (copyChunks).
	KeysReadByCopy int64
	Chunks         int
	Resumed        bool
	Apply          string // how changed keys were applied: applyImages or applyReread
	// CutoverLock: how long writes were blocked at the swap, every
	// attempt's wait and hold (Locks has each).
	CutoverLock time.Duration
	// Locks: every lock the application may have waited on, in order.
	Locks []Lock
	// WriteRate: the table's row changes per second without the copy, as
	// the write pacer first measured them (--keep-write-rate); valid with
	// WriteRateMeasured.
	WriteRate         float64
	WriteRateMeasured bool
	KeepWriteRate     float64 // the pacer's target share of it; 0: not paced
	// SwapPosition is the binlog file:offset at the swap: every change of the
	// table before it is in the new table, every change after it was
	// written to the new table.
	SwapPosition string
	Took         time.Duration
}

// WritesBlocked is the sum of the locks' Blocked: the longest the
// application's writes may have waited on sluice over the run.
func (rep *Report) WritesBlocked() time.Duration {
	var d time.Duration
	for _, l := range rep.Locks {
		d += l.Blocked()
	}
	return d
}

// LockSummary names every lock of the run with its durations, for the
// summary line ("" when none was taken).
func (rep *Report) LockSummary() string {
	if len(rep.Locks) == 0 {
		return ""
	}
	parts := make([]string, len(rep.Locks))
	for i, l := range rep.Locks {
		parts[i] = l.String()
	}
	return fmt.Sprintf("table locks: %s; writes blocked %s in all", strings.Join(parts, "; "), rep.WritesBlocked().Round(time.Millisecond))
}

// PacingSummary says what baseline the write pacer measured ("" when the
// copy was not paced).
func (rep *Report) PacingSummary() string {
	switch {
	case rep.KeepWriteRate <= 0:
		return ""
	case !rep.WriteRateMeasured:
		return "write rate without the copy: not measured (the copy was not paced)"
	case rep.WriteRate == 0:
		return "write rate without the copy: 0 row changes/s (the table was idle: the copy was not paced)"
	}
	return fmt.Sprintf("write rate without the copy: %.0f row changes/s (the copy paced to keep %.0f%% of it)", rep.WriteRate, 100*rep.KeepWriteRate)
}
