// Package snapshot runs `sluice snapshot`, one runner for every target
// engine: it copies every in-scope table from one consistent instant of the
// source in parallel key-range chunks through the engine's bulk writer
// (bulkrun.Writer from the engine's bulkrun.Engine facet: PostgreSQL's
// binary COPY in sink/postgres, MySQL's multi-row INSERTs in sink/mysql; or
// target.Snapshotter through writer_engine.go), which creates the tables,
// finishes them after the data and records the binlog position of that
// instant so that replicate continues exactly there. Every chunk is committed together with its bookkeeping record, so
// an interrupted run resumes; docs/snapshot.md explains the method and why
// a resumed run still ends at one position.
package snapshot

import (
	"errors"
	"github.com/sluice-db/sluice/internal/rowpolicy"
	"io"
	"log/slog"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/sluice-db/sluice/internal/board"
	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/schema"
	mysnap "github.com/sluice-db/sluice/internal/source/mysql/consistent"
	targets "github.com/sluice-db/sluice/internal/target"
	"github.com/sluice-db/sluice/internal/target/bulkrun"
	"github.com/sluice-db/sluice/internal/typemap"
)

// DefaultChunkRows is the default number of rows per chunk.
const DefaultChunkRows = 100_000

// Options are the settings of one snapshot run.
type Options struct {
	Source config.MySQL
	// Target is the engine that receives the tables (internal/target): cli
	// opens it from --target with target.Open, the tests with their sink
	// package's NewEngine. A MySQL engine's --target-engine
	// (target.StorageEngineOf) replaces the ENGINE= of every table created.
	Target targets.Engine
	// Include, Exclude: db.table patterns (schema.NewFilter); SchemaMap: src=dst.
	Include, Exclude, SchemaMap []string
	ZeroDate                    typemap.ZeroDatePolicy
	Nul                         typemap.NulPolicy
	ChunkRows                   int64
	Workers                     int
	Stream                      string
	SchemaOnly, DataOnly        bool
	// DryRun connects, checks and plans, and reports the tables in scope
	// with the DDL it would run, writing nothing (Report.Plan).
	DryRun bool
	// DropExisting replaces target tables that exist with other columns or
	// with rows (TRUNCATE instead of DROP with --data-only).
	DropExisting bool
	// Restart forgets an interrupted or finished run of this stream and
	// drops (or, for tables it did not create, truncates) its tables.
	Restart bool
	// Recopy copies the --include tables of an existing stream again into
	// their target tables, consistent with the stream's position, while its
	// replicator runs or is stopped (recopy.go). PostgreSQL target only.
	Recopy          bool
	Method          mysnap.Method
	LockWaitTimeout time.Duration
	// LockAttempts is how often the global read lock is tried (0: 3).
	LockAttempts int
	// MaxRate bounds the bytes per second read from the source by all
	// workers together (0: no limit).
	MaxRate int64
	// MinBinlogRetention enables (> 0) the check that a copy at MaxRate
	// ends before the source purges the snapshot's position (retention.go).
	MinBinlogRetention time.Duration
	// StreamLockWait is how long to wait for another run of the stream to
	// let go of it (default 30 s): a run killed with -9 keeps its lock until
	// PostgreSQL notices the dead connection.
	StreamLockWait time.Duration
	Log            *slog.Logger
	// afterChunk, when set, is called after each chunk's copy is committed
	// (tests interrupt a snapshot at an exact chunk with it).
	afterChunk func()
	// Progress receives the progress display (a bar on a terminal, else a
	// log line every ProgressEvery); nil for none.
	Progress      io.Writer
	Terminal      bool
	ProgressEvery time.Duration
	// Board receives the per-table progress for the status page (nil: none).
	Board *board.Board

	// Identifiers, Renames, ExcludeColumns: --identifiers, --rename and
	// --exclude-columns (schema.NamingOptions).
	Identifiers             string
	Renames, ExcludeColumns []string
	// RowPolicy: --where and --mask (internal/rowpolicy): the condition in
	// every chunk's SELECT, the masks on every row read; nil for none.
	RowPolicy *rowpolicy.Policy
	// StartOver is how a user of the command starts an interrupted
	// snapshot over, named when it cannot be resumed ("": "re-run with
	// --restart"; `stream` has no --restart, and says what it does instead).
	StartOver string
}

// withDefaults fills unset options and checks the rest; errors are
// configuration errors (exit 2).
func (o Options) withDefaults() (Options, error) {
	if o.Workers <= 0 {
		o.Workers = runtime.NumCPU()
	}
	if o.ChunkRows <= 0 {
		o.ChunkRows = DefaultChunkRows
	}
	if o.Stream == "" {
		o.Stream = checkpoint.DefaultStream
	}
	if o.StreamLockWait <= 0 {
		o.StreamLockWait = 30 * time.Second
	}
	if o.ZeroDate == "" {
		o.ZeroDate = typemap.ZeroDateNull
	}
	if o.Nul == "" {
		o.Nul = typemap.NulStrip
	}
	if o.Method == "" {
		o.Method = mysnap.MethodAuto
	}
	if o.LockWaitTimeout <= 0 {
		o.LockWaitTimeout = 10 * time.Second
	}
	if o.ProgressEvery <= 0 {
		o.ProgressEvery = 5 * time.Second
	}
	if o.Log == nil {
		o.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	var errs []error
	if o.Target == nil {
		// A programming error of the caller (cli always opens one).
		errs = append(errs, errors.New("snapshot: no target engine given"))
	}
	if err := (typemap.Options{ZeroDate: o.ZeroDate, Nul: o.Nul}).Validate(); err != nil {
		errs = append(errs, err)
	}
	if o.SchemaOnly && o.DataOnly {
		errs = append(errs, errors.New("--schema-only and --data-only exclude each other"))
	}
	if _, err := mysnap.ParseMethod(string(o.Method)); err != nil {
		errs = append(errs, err)
	}
	if o.Recopy && o.Target != nil {
		errs = append(errs, o.checkRecopy()...)
	}
	if err := errors.Join(errs...); err != nil {
		return o, exitcode.ConfigError(err)
	}
	return o, nil
}

func (o Options) fingerprint() fingerprint {
	fp := fingerprint{Include: nonNil(o.Include), Exclude: nonNil(o.Exclude), SchemaMap: nonNil(o.SchemaMap),
		ZeroDate: string(o.ZeroDate), Nul: string(o.Nul), DataOnly: o.DataOnly}
	if id := strings.ToLower(strings.TrimSpace(o.Identifiers)); id != "" && id != schema.IdentPreserve {
		fp.Identifiers = id
	}
	if len(o.Renames) > 0 {
		fp.Renames = sortedCopy(o.Renames)
	}
	if len(o.ExcludeColumns) > 0 {
		fp.ExcludeColumns = sortedCopy(o.ExcludeColumns)
	}
	fp.RowPolicy = o.RowPolicy.Describe()
	return fp
}

// sortedCopy orders repeatable naming flags: their order means nothing.
func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// NamingOptions are the naming flags of the run (schema.NewNamingOptions).
func (o Options) NamingOptions() schema.NamingOptions {
	return schema.NamingOptions{SchemaMap: o.SchemaMap, Identifiers: o.Identifiers, Renames: o.Renames,
		ExcludeColumns: o.ExcludeColumns, RowPolicy: o.RowPolicy.Describe()}
}

// bulkOptions are the options a rich writer reads (bulkrun.Run.Opts).
func (o Options) bulkOptions() bulkrun.Options {
	return bulkrun.Options{Stream: o.Stream, Workers: o.Workers, SchemaMap: o.SchemaMap, Naming: o.NamingOptions(),
		ZeroDate: o.ZeroDate, Nul: o.Nul, DataOnly: o.DataOnly, StreamLockWait: o.StreamLockWait}
}
