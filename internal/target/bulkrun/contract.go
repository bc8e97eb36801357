// Package bulkrun is the contract between the one snapshot runner
// (internal/snapshot) and the rich bulk writers of the engines that keep
// their own run state in their own tables: PostgreSQL
// (internal/sink/postgres, bulk*.go; sluice.snapshot_*) and MySQL/MariaDB
// (internal/sink/mysql, bulk*.go; the target's database sluice). It holds
// the run context a writer reads (Run), the job and state types the runner
// and the writer share, and the writer interface (Writer), so that the
// runner picks the writer from the engine (the Engine facet) with no
// branch on the engine, and the sinks do not import internal/snapshot.
//
// The slimmer contract of internal/target (target.Snapshotter, opaque JSON
// state records) is the other way in, for an engine that keeps no state
// tables of its own.
package bulkrun

import (
	"context"
	"log/slog"
	"time"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	mysnap "github.com/sluice-db/sluice/internal/source/mysql/consistent"
	"github.com/sluice-db/sluice/internal/target"
	"github.com/sluice-db/sluice/internal/typemap"
)

// Engine is the facet of a target engine (target.Engine) whose snapshot
// writer speaks this contract: the runner asks the engine for its writer
// instead of asking which engine it is.
type Engine interface {
	// SnapshotWriter is the writer of one Run; it reads r (never changes
	// it) and may refuse the run's options (configuration errors).
	SnapshotWriter(r *Run) (Writer, error)
}

// Options are the snapshot options a writer reads.
type Options struct {
	Stream    string
	Workers   int
	SchemaMap []string
	// Naming are the naming options as given (schema.NewNamingOptions).
	Naming         schema.NamingOptions
	ZeroDate       typemap.ZeroDatePolicy
	Nul            typemap.NulPolicy
	DataOnly       bool
	StreamLockWait time.Duration
}

// Run is the runner's side of one snapshot run as a writer sees it. The
// runner fills it as the run goes (the source and catalog before plan, the
// jobs after it, the pass and position at each consistent read) and a
// writer reads it.
type Run struct {
	Opts   Options
	Log    *slog.Logger
	Src    *mysnap.Source
	Filter schema.Filter
	Naming schema.Naming
	Cat    *schema.Catalog
	// Jobs are every table's job, in the copy's order (largest first).
	Jobs []*Job
	// Pass is the current copy pass (1 for the first consistent read), Pos
	// the source position of its consistent read.
	Pass int
	Pos  binlogpos.Position
	// Report is what a writer adds to the run's report.
	Report *Notes
	// Fingerprint is what a resumed run must share with the interrupted
	// one (the options', with the writer's Fingerprint added).
	RunFingerprint func() Fingerprint
}

// Notes are the parts of the run's report a writer fills (they point into
// the report).
type Notes struct {
	// NotMigrated are the source objects not copied, with why.
	NotMigrated *[]string
	// Created are the views and routines copied into the target.
	Created *[]string
}

// Task is one chunk for a writer to copy.
type Task struct {
	Job   *Job
	Chunk *mysnap.Chunk
	// Recopy: the chunk was copied by an earlier pass and changed since;
	// its rows are deleted from the target first.
	Recopy bool
}

// ReadFunc starts the chunk's read on its reader session (at --max-rate,
// counted in the progress). A writer may call it again to copy the chunk
// again (the session stays at the snapshot's instant); the per-row loop
// over the rows is the writer's own, with no interface call per row.
type ReadFunc func(ctx context.Context) (*target.ChunkRows, error)

// Writer is a target engine's side of a snapshot. The runner is the same
// for every engine: it reads the source at one consistent point, plans each
// table's key-range chunks, schedules them over the reader sessions,
// re-checks the chunks of an interrupted run, counts progress and writes
// the report, in one step order. The writer creates the target tables,
// keeps the run state (the run, its tables and chunks) in the target,
// writes a chunk together with its done record in one target transaction,
// and finishes the tables.
type Writer interface {
	// RefuseOptions refuses options the engine cannot honour, before the
	// source is read.
	RefuseOptions() error
	// Connect opens the target (the source is open already).
	Connect(ctx context.Context) error
	Close()
	// Plan makes every source table of the catalog a job: the copied
	// columns, their select expressions, the key and the target table
	// (Job.Out). Problems are configuration errors.
	Plan(ctx context.Context) ([]*Job, error)
	// Fingerprint adds what a resumed run must share beyond the options.
	Fingerprint(fp *Fingerprint)

	// EnsureState creates the run state's tables.
	EnsureState(ctx context.Context) error
	// LockStream holds the stream's snapshot lock until Close.
	LockStream(ctx context.Context) error
	// Replicator names who replicates the stream into the target ("": none).
	Replicator(ctx context.Context) (string, error)
	// Forget drops what the stream's earlier snapshot created and deletes
	// its state (--restart); it returns the number of tables it had.
	Forget(ctx context.Context) (int, error)
	LoadRun(ctx context.Context) (*RunState, error)
	// TableStates are the run's table records (resume).
	TableStates(ctx context.Context) (map[schema.TableID]*TableState, error)
	// CheckResume checks the target tables an interrupted run left.
	CheckResume(ctx context.Context) error
	// TargetProblems are the refusals that concern all the target tables
	// of a new run (the runner adds each table's).
	TargetProblems(ctx context.Context) ([]string, error)
	// Existing says whether a job's target table exists, and how it differs
	// from the plan (nil: as planned).
	Existing(ctx context.Context, j *Job) (bool, *Mismatch, error)
	HasRows(ctx context.Context, j *Job) (bool, error)
	// CreateTables applies the actions and records the run and its tables
	// (sets every job's State).
	CreateTables(ctx context.Context, acts map[schema.TableID]Action) error
	// SchemaOnly applies the actions and creates everything but the data.
	SchemaOnly(ctx context.Context, acts map[schema.TableID]Action) error
	// StartPass records the start of a copy pass at Run.Pass and Run.Pos.
	StartPass(ctx context.Context, p *mysnap.Point) error

	LoadChunks(ctx context.Context, id schema.TableID) ([]ChunkState, error)
	InsertChunk(ctx context.Context, c mysnap.Chunk) error
	SetPlanned(ctx context.Context, id schema.TableID) error
	// KeepChunk records that a chunk an earlier pass copied holds as of
	// this pass.
	KeepChunk(ctx context.Context, id schema.TableID, seq int) error
	// BeforeRecopy runs once per table before its first changed range chunk
	// is queued again.
	BeforeRecopy(ctx context.Context, j *Job) error
	// ResetTable empties a table whose changed chunk cannot be cleared by
	// range and marks its chunks not copied, in one transaction.
	ResetTable(ctx context.Context, j *Job) error
	// CopyChunk reads the chunk (read) and writes its rows and its done
	// record in one target transaction.
	CopyChunk(ctx context.Context, t Task, read ReadFunc) error
	// FinishTable is a table's post-data work once all its chunks are in.
	FinishTable(ctx context.Context, j *Job) error
	// Finish completes the run after the copy: what spans tables (foreign
	// keys, objects), the position replicate starts from, the run's end.
	Finish(ctx context.Context) error
}

// Table is a writer's own plan of one table (Job.Out).
type Table interface {
	// TargetName names the target table in the report and in messages.
	TargetName() string
	// PlanWarnings are the table's planning and copy warnings so far.
	PlanWarnings() []string
	// DryRunDDL is what --dry-run prints for the table.
	DryRunDDL() []string
	// FillReport adds the writer's own per-table figures.
	FillReport(tr *TableReport)
}
