package snapshot

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/schema"
	mysnap "github.com/sluice-db/sluice/internal/source/mysql/consistent"
)

// bulkWriter is a target engine's side of a snapshot. The runner (run.go,
// copy.go, chunk.go, resume.go, finish.go) is the same for every engine: it
// reads the source at one consistent point, plans each table's key-range
// chunks, schedules them over the reader sessions, re-checks the chunks of
// an interrupted run, counts progress and writes the report, in one step
// order. The writer creates the target tables, keeps the run state (the
// run, its tables and chunks) in the target, writes a chunk together with
// its done record in one target transaction, and finishes the tables.
//
// A writer is created for one Run and embeds the runner it writes for,
// which it reads (options, catalog, jobs, pass, position, progress) and
// does not change except where a call below says so; the per-row work
// stays inside copyChunk (no interface call per row). Implementations:
// pgWriter (writer_postgres*.go) and myWriter (writer_mysql*.go); another
// engine adds a writer_<engine>*.go here and a case in newWriter (the
// writers use the package's unexported job and state types, so they live
// in this package for now).
type bulkWriter interface {
	// refuseOptions refuses options the engine cannot honour, before the
	// source is read.
	refuseOptions() error
	// connect opens the target (the source is open already).
	connect(ctx context.Context) error
	close()
	// plan makes every source table of the catalog a job: the copied
	// columns, their select expressions, the key and the target table
	// (tableJob.out). Problems are configuration errors.
	plan(ctx context.Context) ([]*tableJob, error)
	// fingerprint adds what a resumed run must share beyond the options.
	fingerprint(fp *fingerprint)

	// ensureState creates the run state's tables.
	ensureState(ctx context.Context) error
	// lockStream holds the stream's snapshot lock until close.
	lockStream(ctx context.Context) error
	// replicator names who replicates the stream into the target ("": none).
	replicator(ctx context.Context) (string, error)
	// forget drops what the stream's earlier snapshot created and deletes
	// its state (--restart); it returns the number of tables it had.
	forget(ctx context.Context) (int, error)
	loadRun(ctx context.Context) (*runState, error)
	// tableStates are the run's table records (resume).
	tableStates(ctx context.Context) (map[schema.TableID]*tableState, error)
	// checkResume checks the target tables an interrupted run left.
	checkResume(ctx context.Context) error
	// targetProblems are the refusals that concern all the target tables
	// of a new run (runner.checkTargets adds each table's).
	targetProblems(ctx context.Context) ([]string, error)
	// existing says whether a job's target table exists, and how it differs
	// from the plan (nil: as planned).
	existing(ctx context.Context, j *tableJob) (bool, *mismatch, error)
	hasRows(ctx context.Context, j *tableJob) (bool, error)
	// createTables applies the actions and records the run and its tables
	// (sets every job's state).
	createTables(ctx context.Context, acts map[schema.TableID]action) error
	// schemaOnly applies the actions and creates everything but the data.
	schemaOnly(ctx context.Context, acts map[schema.TableID]action) error
	// startPass records the start of a copy pass at the runner's position.
	startPass(ctx context.Context, p *mysnap.Point) error

	loadChunks(ctx context.Context, id schema.TableID) ([]chunkState, error)
	insertChunk(ctx context.Context, c mysnap.Chunk) error
	setPlanned(ctx context.Context, id schema.TableID) error
	// keepChunk records that a chunk an earlier pass copied holds as of
	// this pass.
	keepChunk(ctx context.Context, id schema.TableID, seq int) error
	// beforeRecopy runs once per table before its first changed range chunk
	// is queued again.
	beforeRecopy(ctx context.Context, j *tableJob) error
	// resetTable empties a table whose changed chunk cannot be cleared by
	// range and marks its chunks not copied, in one transaction.
	resetTable(ctx context.Context, j *tableJob) error
	// copyChunk reads the chunk on the reader session (runner.readChunk)
	// and writes its rows and its done record in one target transaction.
	copyChunk(ctx context.Context, sess *sql.Conn, t *task) error
	// finishTable is a table's post-data work once all its chunks are in.
	finishTable(ctx context.Context, j *tableJob) error
	// finish completes the run after the copy: what spans tables (foreign
	// keys, objects), the position replicate starts from, the run's end.
	finish(ctx context.Context) error
}

// targetTable is a writer's own plan of one table (tableJob.out).
type targetTable interface {
	// targetName names the target table in the report and in messages.
	targetName() string
	// planWarnings are the table's planning and copy warnings so far.
	planWarnings() []string
	// dryRunDDL is what --dry-run prints for the table.
	dryRunDDL() []string
	// fillReport adds the writer's own per-table figures.
	fillReport(tr *TableReport)
}

// retryLock calls try until it takes the stream's lock, ctx ends, or wait
// passed (another snapshot of the stream holds it).
func retryLock(ctx context.Context, stream string, wait time.Duration, try func() (bool, error)) error {
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
