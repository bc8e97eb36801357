package target

import (
	"context"
	"database/sql"
	"log/slog"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/typemap"
)

// Replicated is an engine `sluice replicate` writes: ConnectReplica opens
// the target of one run. A target that cannot be reached is a
// configuration error ("target: cannot connect to …", exit 2), which
// replicate's retry loop recognises as a lost target.
type Replicated interface {
	ConnectReplica(ctx context.Context, o ReplicaOptions) (Replica, error)
}

// ReplicaOptions are what a run's connection depends on.
type ReplicaOptions struct {
	Stream  string
	Workers int // apply workers: the connections are sized for them
}

// Replica is the connected target of one replicate run: the stream's state
// outside the sink's own transactions, and the sink.
type Replica interface {
	// PostGIS reports whether geometry maps to PostGIS.
	PostGIS(ctx context.Context) (bool, error)
	// LoadState is the stream's checkpoint (nil: none).
	LoadState(ctx context.Context, stream string) (*pipeline.State, error)
	LoadSchema(ctx context.Context, stream string, version int64) (map[schema.TableID]*schema.Table, error)
	// RecordStart writes pos and tables as schema version 1 in one transaction.
	RecordStart(ctx context.Context, stream string, pos model.Position, tables []*schema.Table) error
	Sink(c SinkConfig) (pipeline.Sink, error)
	// LoadPolicyChanges and SavePolicyChanges keep the stream's counts of
	// values a policy changed; a target that receives the source's values
	// unchanged has none.
	LoadPolicyChanges(ctx context.Context, stream string) ([]typemap.ChangeCount, error)
	SavePolicyChanges(ctx context.Context, stream string, counts []typemap.ChangeCount) error
	Close()
}

// SinkConfig is what a run's sink is built with.
type SinkConfig struct {
	Stream  string
	Workers int
	Mapper  *typemap.Mapper
	Naming  schema.Naming
	// Upsert is the tables the sink applies as upserts of full images
	// (a table being copied into the running stream); nil: none.
	Upsert *pipeline.UpsertTables
	// The source's SQL foreign keys log the rows their actions change
	// (binlog.SourceInfo.SQLForeignKeys); its utf8mb4 collation and
	// charsets' default collations (for replayed statements).
	SourceLogsFKActions    bool
	SourceUTF8MB4Collation string
	SourceCharsetDefaults  map[string]string
	// Standby, Settings, RunID and OwnedBefore: the run's fence
	// (pipeline.AwaitTurn over the engine's owner record).
	Standby     bool
	Settings    []string
	RunID       string
	OwnedBefore bool
	Log         *slog.Logger
}

// NamingStore is a Replica that records the stream's naming (identifier
// case, renames, schema map), so that a run with another naming is refused.
type NamingStore interface {
	// CheckNaming refuses o when the stream recorded another naming.
	CheckNaming(ctx context.Context, stream string, o schema.NamingOptions) error
	// RecordNaming records o for a stream from before naming was recorded.
	RecordNaming(ctx context.Context, stream string, o schema.NamingOptions) error
}

// Recopier is a Replica that `sluice snapshot --recopy` re-copies tables
// into while the stream runs (Capabilities.Recopy): the replicator gives
// way while a re-copy runs and then skips the copied tables' changes up to
// the copy's position.
type Recopier interface {
	// RecopyRequested: a re-copy asks the replicator to stop; alive says
	// its snapshot still holds its lock (false: it was killed).
	RecopyRequested(ctx context.Context, stream string) (requested, alive bool, err error)
	// DropRecopyRequests forgets the requests of a killed re-copy.
	DropRecopyRequests(ctx context.Context, stream string) error
	// LoadRecopied is each re-copied table's copy position.
	LoadRecopied(ctx context.Context, stream string) (map[schema.TableID]model.Position, error)
	ForgetRecopied(ctx context.Context, stream string, ids []schema.TableID) error
}

// ScopeChecker is a Replica that refuses some scopes once they are known
// (a MySQL target receives one source database, from a server of its own
// flavour, into a database without triggers).
type ScopeChecker interface {
	CheckScope(ctx context.Context, s Scope) error
	// CheckCascades refuses tables whose foreign key actions the target
	// would not run and the source does not log.
	CheckCascades(ctx context.Context, tables []*schema.Table, sourceLogsFKActions bool) error
}

// Scope is what a run replicates, from where.
type Scope struct {
	Source           config.MySQL
	SourceDB         *sql.DB
	Flavor, Version  string // the source server's
	Catalog          *schema.Catalog
	Include, Exclude []string
	SchemaMap        []string
	Naming           schema.NamingOptions
}
