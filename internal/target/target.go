// Package target is the seam between sluice's commands and its target
// engines (PostgreSQL, MySQL/MariaDB, Kafka): an Engine names itself and
// says what it can do (Capabilities), and Open picks the engine from the
// --target URL's scheme. Commands branch on capabilities, never on the
// engine; each engine lives in its own package (internal/sink/*) and
// registers its schemes there. Opening does no I/O: the capabilities are
// needed before, and without, a connection (defaults, flag checks).
// What only some engines do is an optional facet, asserted on the Engine
// (StatusReader, PostGISProber, PipelineTuner, Replicated, Snapshotter,
// Dropper, Parsed, preflight.TargetChecker, verifydb.Verifier) or on its
// connected Replica (NamingStore, Recopier, ScopeChecker), never on a
// concrete type.
//
// Adding an engine (docs/ARCHITECTURE.md has the checklist; the test-only
// internal/testenv/fileengine is the smallest example): implement Engine
// and the facets of the commands it serves in the engine's package, call
// Register from its init, and add a blank import to internal/target/all.
package target

import (
	"context"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/pipeline"
)

// Engine is one target engine, opened from its URL.
type Engine interface {
	// Name is the engine's kind for messages: "postgres", "mysql", "kafka".
	Name() string
	// Redacted is the target's URL with the password replaced, safe for
	// logs. It is also part of the default binlog server id
	// (binlog.DefaultServerID), so it must not change between releases.
	Redacted() string
	// Capabilities says what the engine does differently.
	Capabilities() Capabilities
}

// Options are what a command binds from flags for its target.
type Options struct {
	// TLS are the --target-ssl-* flags (they override the URL's parameters).
	TLS config.TLSFlags
	// StorageEngine is --target-engine, for engines with
	// Capabilities.StorageEngines.
	StorageEngine string
	// Tables: the command works on the target's tables (replicate,
	// snapshot, verify, cutover, drop, status). An engine that holds no
	// tables (Kafka's events, written by `sluice stream` only) refuses its
	// scheme as unsupported, with config's message for any unknown scheme.
	Tables bool
}

// PipelineTuner is an engine that sets the applier's grouping and queue
// sizes for its writes (Kafka: one producer transaction per group).
type PipelineTuner interface {
	TunePipeline(c *pipeline.Config)
}

// Parsed is an engine whose settings are a parsed config.Target (the
// database engines), for the code that still needs them: the snapshot
// writers inside internal/snapshot, the PostgreSQL-only commands (cutover,
// objects, status's slots) and the way back. Read it with PostgresOf and
// MySQLOf, never by asking which field is set.
type Parsed interface {
	Parsed() config.Target
}

// PostgresOf is the engine's PostgreSQL settings; false (and zero
// settings) for an engine that is not PostgreSQL.
func PostgresOf(e Engine) (config.Postgres, bool) {
	if p, ok := e.(Parsed); ok && p.Parsed().Postgres != nil {
		return *p.Parsed().Postgres, true
	}
	return config.Postgres{}, false
}

// MySQLOf is the engine's MySQL settings; nil for an engine that is not
// MySQL.
func MySQLOf(e Engine) *config.MySQL {
	if p, ok := e.(Parsed); ok {
		return p.Parsed().MySQL
	}
	return nil
}

// StorageEngineOf is the --target-engine an engine with
// Capabilities.StorageEngines was opened with ("" for the others, or none
// given).
func StorageEngineOf(e Engine) string {
	if s, ok := e.(interface{ StorageEngine() string }); ok {
		return s.StorageEngine()
	}
	return ""
}

// PostGISProber is an engine that can hold PostGIS geometry: whether the
// target has the extension decides how geometry columns were written.
type PostGISProber interface {
	HasPostGIS(ctx context.Context) (bool, error)
}
