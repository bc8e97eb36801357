package verifydb

import (
	"context"
	"io"
	"log/slog"

	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/typemap"
)

// Verifier is an engine `sluice verify` can compare with the source, a
// facet asserted on the target.Engine (internal/target): it opens its side
// of the comparison. The PostgreSQL and MySQL engines implement it
// (internal/sink/postgres, internal/sink/mysql: verify*.go).
type Verifier interface {
	OpenVerify(ctx context.Context, o OpenOptions) (Target, error)
}

// OpenOptions are what a target is opened with for a comparison.
type OpenOptions struct {
	Conns  int    // connections for the comparisons (workers and their producers)
	Stream string // the stream whose names, state and row policies apply
	Naming schema.Naming
	Tables []*schema.Table // the source tables to compare
	Repair bool            // --repair: the target will be written
	Log    *slog.Logger
}

// Target is the side verify compares the source with: where the copies of
// the source tables are hashed, fetched and repaired. The source side is
// always MySQL/MariaDB (the Plan's My* expressions). PostgreSQL's
// (internal/sink/postgres) runs the PG* expressions, normalised to print
// what MySQL prints; MySQL/MariaDB's (internal/sink/mysql) runs the
// source's own expressions on its copy of the table (same engine, same
// texts).
type Target interface {
	// Table names the target table of a source table and lists its
	// columns (nil when it does not exist).
	Table(ctx context.Context, t *schema.Table) (name string, cols map[string]bool, err error)
	// ColumnOrder lists the target table's columns in their order (internal/verify/colorder.go).
	ColumnOrder(ctx context.Context, p *Plan) ([]string, error)
	// Mapper is the mapper the tables' plans are compiled with, given the
	// snapshot's (m): its policies say what a converting target holds.
	Mapper(m *typemap.Mapper) *typemap.Mapper
	// Prepare completes a table's plan with what the target side needs.
	Prepare(p *Plan)
	// HasMD5 and sha256Empty probe the row digests (hash.go).
	HasMD5(ctx context.Context) (bool, error)
	SHA256Empty(ctx context.Context) (string, error)

	// Checksum is the count and sum of row hashes of a scope, per bucket
	// when byBucket; digest the chunk digest of a key range (digest.go).
	Checksum(ctx context.Context, p *Plan, s Scope, byBucket bool) (map[int]Agg, error)
	Digest(ctx context.Context, p *Plan, s Scope) (ChunkDigest, error)
	// Diff reads a scope's rows and merges them with the source's (sorted
	// by key text).
	Diff(ctx context.Context, p *Plan, s Scope, src []FetchedRow) ([]RowDiff, error)
	// Groups are the row hashes of a keyless table with their counts,
	// sorted; sampleRow the text of one row with row hash h.
	Groups(ctx context.Context, p *Plan) ([]HashCount, error)
	SampleRow(ctx context.Context, p *Plan, h uint64) ([]byte, error)

	// Repair statements. vals are a source row as read for a repair (the
	// compared columns, selectExprOf); a key as the target printed it
	// (fetchedRow.key) or as the source printed it (raw).
	UpsertRow(p *Plan, vals [][]byte) (Stmt, error)
	InsertRow(p *Plan, vals [][]byte) (Stmt, error)
	DeleteTargetKey(p *Plan, key []string) (Stmt, error)
	DeleteSourceKey(p *Plan, key [][]byte) (Stmt, error)
	DeleteCopies(p *Plan, h uint64, n int64) Stmt
	// JSONRows reads (row digest, JSON raw texts...) of a keyless table
	// with JSON columns; deleteJSONCopies deletes n rows stored as id
	// (multiset_json.go).
	JSONRows(ctx context.Context, p *Plan) (RowSource, error)
	DeleteJSONCopies(p *Plan, id JSONRowID, n int64) Stmt
	// Apply runs a table's repair statements in one transaction; writeSQL
	// writes them as a script instead. isForeignKeyViolation tells a repair
	// a foreign key refused (repair_order.go).
	Apply(ctx context.Context, p *Plan, stmts []Stmt) error
	WriteSQL(ctx context.Context, p *Plan, w io.Writer, stmts []Stmt) error
	IsForeignKeyViolation(err error) bool
	// Parents returns, for the given target tables (plan.target names),
	// the ones each references with a foreign key.
	Parents(ctx context.Context, plans map[string]*Plan) (map[string][]string, error)

	// StreamRunning reports whether a replicator of the stream is connected
	// to the target; checkpoint reads its checkpoint (nil: none). Online mode.
	StreamRunning(ctx context.Context, stream string) (bool, error)
	Checkpoint(ctx context.Context, stream string) (*pipeline.State, error)
	// PolicyChanges are the values a policy (--zero-date, --nul-char)
	// changed on their way into the target, as the stream's snapshot and
	// replication recorded them (policy.go).
	PolicyChanges(ctx context.Context, stream string) ([]PolicyChange, error)

	Close()
}
