// Package target is the seam between sluice's commands and its target
// engines (PostgreSQL, MySQL/MariaDB, Kafka): an Engine names itself and
// says what it can do (Capabilities), and Open picks the engine from the
// --target URL's scheme. Commands branch on capabilities, never on the
// engine; each engine lives in its own package (internal/sink/*) and
// registers its schemes there. Opening does no I/O: the capabilities are
// needed before, and without, a connection (defaults, flag checks).
// What only some engines do is an optional facet, asserted on the Engine
// (StatusReader, PostGISProber, PipelineTuner), never on a concrete type.
//
// Adding an engine: implement Engine in the engine's package, call Register
// from its init, and add a blank import to internal/target/all.
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
}

// PipelineTuner is an engine that sets the applier's grouping and queue
// sizes for its writes (Kafka: one producer transaction per group).
type PipelineTuner interface {
	TunePipeline(c *pipeline.Config)
}

// PostGISProber is an engine that can hold PostGIS geometry: whether the
// target has the extension decides how geometry columns were written.
type PostGISProber interface {
	HasPostGIS(ctx context.Context) (bool, error)
}
