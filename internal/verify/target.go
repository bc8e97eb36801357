package verify

import (
	"context"
	"io"

	"log/slog"

	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/typemap"
)

// openOptions are what a target is opened with for a comparison.
type openOptions struct {
	conns  int    // connections for the comparisons (workers and their producers)
	stream string // the stream whose names, state and row policies apply
	naming schema.Naming
	tables []*schema.Table // the source tables to compare
	repair bool            // --repair (or --repair-sql): the target will be written
	log    *slog.Logger
}

// targetDB is the side verify compares the source with: where the copies of
// the source tables are hashed, fetched and repaired. The source side is
// always MySQL/MariaDB (the tablePlan's my* expressions). pgTarget is
// PostgreSQL, whose expressions are normalised to print what MySQL prints;
// myTarget is MySQL/MariaDB, which runs the source's own expressions on its
// copy of the table (same engine, same texts).
type targetDB interface {
	// table names the target table of a source table and lists its
	// columns (nil when it does not exist).
	table(ctx context.Context, t *schema.Table) (name string, cols map[string]bool, err error)
	// columnOrder lists the target table's columns in their order (colorder.go).
	columnOrder(ctx context.Context, p *tablePlan) ([]string, error)
	// mapper is the mapper the tables' plans are compiled with, given the
	// snapshot's (m): its policies say what a converting target holds.
	mapper(m *typemap.Mapper) *typemap.Mapper
	// prepare completes a table's plan with what the target side needs.
	prepare(p *tablePlan)
	// hasMD5 and sha256Empty probe the row digests (hash.go).
	hasMD5(ctx context.Context) (bool, error)
	sha256Empty(ctx context.Context) (string, error)

	// checksum is the count and sum of row hashes of a scope, per bucket
	// when byBucket; digest the chunk digest of a key range (digest.go).
	checksum(ctx context.Context, p *tablePlan, s scope, byBucket bool) (map[int]agg, error)
	digest(ctx context.Context, p *tablePlan, s scope) (chunkDigest, error)
	// diff reads a scope's rows and merges them with the source's (sorted
	// by key text).
	diff(ctx context.Context, p *tablePlan, s scope, src []fetchedRow) ([]rowDiff, error)
	// groups are the row hashes of a keyless table with their counts,
	// sorted; sampleRow the text of one row with row hash h.
	groups(ctx context.Context, p *tablePlan) ([]hashCount, error)
	sampleRow(ctx context.Context, p *tablePlan, h uint64) ([]byte, error)

	// Repair statements. vals are a source row as read for a repair (the
	// compared columns, selectExprOf); a key as the target printed it
	// (fetchedRow.key) or as the source printed it (raw).
	upsertRow(p *tablePlan, vals [][]byte) (stmt, error)
	insertRow(p *tablePlan, vals [][]byte) (stmt, error)
	deleteTargetKey(p *tablePlan, key []string) (stmt, error)
	deleteSourceKey(p *tablePlan, key [][]byte) (stmt, error)
	deleteCopies(p *tablePlan, h uint64, n int64) stmt
	// jsonRows reads (row digest, JSON raw texts...) of a keyless table
	// with JSON columns; deleteJSONCopies deletes n rows stored as id
	// (multiset_json.go).
	jsonRows(ctx context.Context, p *tablePlan) (rowSource, error)
	deleteJSONCopies(p *tablePlan, id jsonRowID, n int64) stmt
	// apply runs a table's repair statements in one transaction; writeSQL
	// writes them as a script instead. isForeignKeyViolation tells a repair
	// a foreign key refused (repair_order.go).
	apply(ctx context.Context, p *tablePlan, stmts []stmt) error
	writeSQL(ctx context.Context, p *tablePlan, w io.Writer, stmts []stmt) error
	isForeignKeyViolation(err error) bool
	// parents returns, for the given target tables (plan.target names),
	// the ones each references with a foreign key.
	parents(ctx context.Context, plans map[string]*tablePlan) (map[string][]string, error)

	// streamRunning reports whether a replicator of the stream is connected
	// to the target; checkpoint reads its checkpoint (nil: none). Online mode.
	streamRunning(ctx context.Context, stream string) (bool, error)
	checkpoint(ctx context.Context, stream string) (*pipeline.State, error)
	// policyChanges are the values a policy (--zero-date, --nul-char)
	// changed on their way into the target, as the stream's snapshot and
	// replication recorded them (policy.go).
	policyChanges(ctx context.Context, stream string) ([]PolicyChange, error)

	Close()
}
