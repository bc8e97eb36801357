// Package alter changes the definition of a live MySQL or MariaDB table
// online: INSTANT when the server can, else a shadow table with the new
// definition filled by a parallel key-range copy while the binlog's changed
// rows are written to it (or their keys re-read from the table), checksummed, and swapped in by an atomic
// rename under a bounded lock (docs/alter.md).
package alter

import (
	"fmt"
	"github.com/sluice-db/sluice/internal/board"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/sluice-db/sluice/internal/config"
)

// Methods of --method.
const (
	MethodAuto    = "auto"
	MethodInstant = "instant"
	MethodCopy    = "copy"
)

// Options is one alter run.
type Options struct {
	Source config.MySQL // the database is the table's
	Table  string
	Alter  string // the ALTER TABLE clauses, without "ALTER TABLE t"
	// More are further tables changed with it: every copy is kept current
	// and all are swapped in one RENAME TABLE under one lock (group.go).
	More   []TableChange
	Method string

	Workers   int
	ChunkRows int64
	// CutoverLockTimeout bounds each wait for the cut-over's table lock (and
	// the INSTANT ALTER's metadata lock): writes to the table queue behind
	// a waiting lock for at most this long.
	CutoverLockTimeout time.Duration
	CutoverRetries     int

	DryRun       bool
	MaxLoad      Load // pause the copy while a status variable is above
	CriticalLoad Load // abort when a status variable is above
	// MaxLag pauses the copy and the appliers, and holds the swap, while a
	// replica in Replicas is further behind than this (or not
	// replicating). Both or neither.
	MaxLag    time.Duration
	Replicas  []config.MySQL
	NiceRatio float64
	// KeepWriteRate paces the copy so that the application's write rate
	// to the table stays at or above this share of its rate without the
	// copy (pacer.go); 0 does not pace. The CLI's default is 0.9.
	KeepWriteRate   float64
	ControlFile     string
	PostponeCutover bool
	KeepOldTable    bool
	AllowDropColumn bool
	// RevertWindow, after the swap, keeps the old table current from the
	// binlog (each change of the new table written back to the old
	// layout) for this long, so that Revert can swap it back (window.go).
	RevertWindow time.Duration
	// Revert swaps the table kept by an open revert window back in
	// (revert.go); Alter is not used.
	Revert bool
	// Cleanup drops what an interrupted run left (shadow table, state) and
	// alters nothing.
	Cleanup bool

	Log *slog.Logger
	// ServerID reads the binlog; 0 derives one from the table name.
	ServerID uint32
	// ProgressEvery is the period of the progress log line (default 5s).
	ProgressEvery time.Duration
	// Progress, with Terminal, gets a progress bar instead of log lines.
	Progress io.Writer
	Terminal bool
	// Board receives the copy's state for the status page (nil: none).
	Board *board.Board

	// Parts (measurements only, the CLI's SLUICE_ALTER_PARTS,
	// bench/alter_parts.sh): "track" reads the binlog and fills the key
	// set, nothing else; "apply" also applies every changed key at once,
	// without a copy. Either runs until interrupted and leaves the run
	// resumable (--cleanup removes it).
	Parts string

	// group joins the runs of the tables of one multi-table change.
	group *swapGroup

	// afterChunk, when set (tests), runs after each copied chunk.
	afterChunk func(seq int)
	// beforeLock, when set (tests), runs before each LOCK TABLES of the
	// step (stepChecksum, stepSwap).
	beforeLock func(step string)
	// readerDelay, when set (tests), starts the binlog reader that much
	// later, as a saturated server delays it.
	readerDelay time.Duration
}

// Load is a set of status-variable thresholds, "Threads_running=50,Threads_connected=500".
type Load map[string]int64

// ParseLoad reads --max-load / --critical-load.
func ParseLoad(s string) (Load, error) {
	out := Load{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, val, ok := strings.Cut(part, "=")
		n, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
		if !ok || err != nil || strings.TrimSpace(name) == "" {
			return nil, fmt.Errorf("load %q: want Variable=N, e.g. Threads_running=50", part)
		}
		name = strings.TrimSpace(name)
		if strings.Trim(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") != "" {
			return nil, fmt.Errorf("load %q: %q is not a status variable name", part, name)
		}
		out[name] = n
	}
	return out, nil
}

func (o *Options) withDefaults() Options {
	out := *o
	if out.Method == "" {
		out.Method = MethodAuto
	}
	if out.Workers <= 0 {
		out.Workers = 4
	}
	if out.ChunkRows <= 0 {
		out.ChunkRows = 5000
	}
	if out.CutoverLockTimeout <= 0 {
		out.CutoverLockTimeout = 2 * time.Second
	}
	if out.CutoverRetries <= 0 {
		out.CutoverRetries = 30
	}
	if out.ProgressEvery <= 0 {
		out.ProgressEvery = 5 * time.Second
	}
	if out.Log == nil {
		out.Log = slog.New(slog.DiscardHandler)
	}
	return out
}

// shadowName is the copy's name. It must sort after the table's own name:
// MariaDB's RENAME waits for its metadata locks one table at a time in name
// order, and only a RENAME already queued on the table's name is granted
// before the writers queued there (a name starting with "_" would make it
// wait on the copy first, and writers would slip into the old table when
// the cut-over's lock is released).
func shadowName(t string) string { return t + "_new" }

// oldName is what the old table is renamed to.
func oldName(t string) string { return "_" + t + "_old" }

// windowName is the old table's name during a revert window. Unlike
// oldName it sorts after the table's name: the revert's swap locks it, and
// MariaDB's RENAME (queued from a second session, see cutover) must wait on
// the table's own name first, as shadowName explains.
func windowName(t string) string { return t + "_old" }

// revertedName is what a revert renames the new-layout table to.
func revertedName(t string) string { return "_" + t + "_reverted" }
