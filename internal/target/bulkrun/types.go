package bulkrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	mysnap "github.com/sluice-db/sluice/internal/source/mysql/consistent"
	"github.com/sluice-db/sluice/internal/typemap"
)

// Job is one table of the run as the writer plans and copies it; the
// runner keeps its own progress of the table beside it.
type Job struct {
	Source *schema.Table
	Out    Table       // the writer's plan of the target table
	Key    *mysnap.Key // nil: copied as one chunk
	// Cols are the copied columns, Selects their MySQL select expressions
	// (both the writer's choice).
	Cols    []int
	Selects []string
	// KeyPos are the positions of the key columns among Cols (for messages).
	KeyPos []int
	// RangeSafe: the target orders and compares the key as the source does,
	// so a chunk's rows can be deleted by range on the target.
	RangeSafe bool
	State     *TableState
	// Touched: a chunk of the table was copied in this pass (the runner
	// sets it; a writer reads it in FinishTable, after the last chunk).
	Touched atomic.Bool
}

// NewJob is a job for t with the writer's plan of its target table and
// copied columns; it finds the key the chunks split (warnings: none usable).
func NewJob(t *schema.Table, out Table, cols []int, selects []string) (j *Job, warnings []string) {
	j = &Job{Source: t, Out: out, Cols: cols, Selects: selects}
	key, err := mysnap.NewKey(t)
	switch {
	case err != nil:
		warnings = append(warnings, fmt.Sprintf("%s: copied as one chunk: %v", t.TableID, err))
		key = nil
	case key == nil:
		warnings = append(warnings, fmt.Sprintf("%s: no primary key or NOT NULL unique key: copied as one chunk "+
			"(not split, and an interrupted copy of it starts over)", t.TableID))
	}
	j.Key = key
	if key != nil {
		for _, name := range key.Names() {
			ci := t.ColumnIndex(name)
			for p, c := range j.Cols {
				if c == ci {
					j.KeyPos = append(j.KeyPos, p)
				}
			}
		}
	}
	return j, warnings
}

// NonTransactional warns about a source table whose engine is not among
// the transactional ones the consistent snapshot covers.
func NonTransactional(t *schema.Table, txn ...string) []string {
	e := strings.ToLower(t.Engine)
	if e == "" || slices.Contains(txn, e) {
		return nil
	}
	return []string{fmt.Sprintf("%s: engine %s is not transactional: the consistent snapshot does not "+
		"cover it, rows written to it during the copy may be missing or extra", t.TableID, t.Engine)}
}

// Refusal is a configuration error listing every problem (nil: none).
func Refusal(problems []string) error {
	if len(problems) == 0 {
		return nil
	}
	return exitcode.ConfigError(errors.New(strings.Join(problems, "\n")))
}

// RefuseEmpty refuses a scope without tables.
func (r *Run) RefuseEmpty() error {
	if len(r.Cat.Tables) == 0 {
		return exitcode.ConfigError(fmt.Errorf("no tables in scope (%s) on the source: check --include/--exclude and the database in --source", r.Filter))
	}
	return nil
}

// RetryLock calls try until it takes the stream's lock, ctx ends, or wait
// passed (another snapshot of the stream holds it).
func RetryLock(ctx context.Context, stream string, wait time.Duration, try func() (bool, error)) error {
	deadline := time.Now().Add(wait)
	for {
		ok, err := try()
		if err != nil {
			return fmt.Errorf("target: lock stream %q: %w", stream, err)
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return exitcode.ConfigError(fmt.Errorf("another sluice snapshot of stream %q is running against this target "+
				"(waited %s for its lock); wait for it to finish, or use another --stream", stream, wait))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// Action is what a new run does with one target table.
type Action int

const (
	ActCreate   Action = iota // no such table: create it
	ActReuse                  // exists with the planned columns and no rows
	ActReplace                // --drop-existing: drop and create
	ActTruncate               // --data-only --drop-existing: empty it
)

// Mismatch is a target table that exists with another definition than
// planned: the refusal, and the one with --data-only.
type Mismatch struct{ Plain, DataOnly string }

// NewTableState is a new run's record of a table, created by the run or not.
func NewTableState(j *Job, acts map[schema.TableID]Action, targetSchema string) *TableState {
	a := acts[j.Source.TableID]
	return &TableState{ID: j.Source.TableID, TargetSchema: targetSchema, Created: a == ActCreate || a == ActReplace}
}

// RunState is the stored record of a run (PostgreSQL: sluice.snapshot_run).
type RunState struct {
	Status      string
	Fingerprint Fingerprint
	Tables      []*schema.Table
	Pass        int
	Position    binlogpos.Position
	Method      string
	LockHeldMS  int64
	StartedAt   time.Time
}

// TableState is the stored record of one table (sluice.snapshot_table).
type TableState struct {
	ID           schema.TableID
	TargetSchema string
	Created      bool
	Planned      bool
	Indexed      bool
}

// ChunkState is the stored record of one chunk (sluice.snapshot_chunk).
type ChunkState struct {
	Seq      int
	Lo, Hi   mysnap.Bound
	Done     bool
	Rows     int64
	Bytes    int64
	Hash     []byte
	Changes  []typemap.ChangeCount
	Pass     int
	Position binlogpos.Position
}

// Fingerprint is what a resumed run must share with the interrupted one:
// the options that decide which rows land where and how. It is stored as
// JSON in the run's record; the names are its format.
type Fingerprint struct {
	Include   []string `json:"include"`
	Exclude   []string `json:"exclude"`
	SchemaMap []string `json:"schema_map"`
	ZeroDate  string   `json:"zero_date"`
	Nul       string   `json:"nul"`
	DataOnly  bool     `json:"data_only"`
	// MySQL target only.
	TargetDatabase string `json:"target_database,omitempty"`
	TargetEngine   string `json:"target_engine,omitempty"`

	// The other naming options, recorded only when set (a run recorded
	// before they existed compares equal to one without them).
	Identifiers    string   `json:"identifiers,omitempty"`
	Renames        []string `json:"renames,omitempty"`
	ExcludeColumns []string `json:"exclude_columns,omitempty"`
	// RowPolicy: --where and --mask (rowpolicy.Policy.Describe), only when set.
	RowPolicy []string `json:"row_policy,omitempty"`
}

// TableReport is one table's line of the run's report.
type TableReport struct {
	Source string `json:"source"`
	Target string `json:"target"`
	Rows   int64  `json:"rows"`
	Bytes  int64  `json:"bytes"`
	Chunks int    `json:"chunks"`
	// Seconds and MBPerSec: this run's copy time of the table (summed over
	// the workers' chunks) and its rate; set by the MySQL target's snapshot.
	Seconds  float64 `json:"seconds,omitempty"`
	MBPerSec float64 `json:"mb_per_sec,omitempty"`
}

// FirstLine is the first line of s, with " ..." when there are more.
func FirstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " ..."
	}
	return s
}

// Decode fills the run's position, options and tables from their stored
// forms (text, JSON).
func (r *RunState) Decode(stream, pos string, fp, tables []byte) (err error) {
	if r.Position, err = binlogpos.Parse(pos); err != nil {
		return fmt.Errorf("snapshot state: run of stream %q: %w", stream, err)
	}
	if err := json.Unmarshal(fp, &r.Fingerprint); err != nil {
		return fmt.Errorf("snapshot state: decode run options: %w", err)
	}
	if err := json.Unmarshal(tables, &r.Tables); err != nil {
		return fmt.Errorf("snapshot state: decode run tables: %w", err)
	}
	return nil
}
