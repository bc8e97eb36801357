package mysql

import (
	"context"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/preflight"
	"github.com/sluice-db/sluice/internal/target"
)

func init() {
	target.Register(openEngine, "mysql", "mariadb")
}

// engine is a MySQL/MariaDB database as a target.Engine.
type engine struct {
	cfg     config.MySQL
	storage string // --target-engine
}

// NewEngine is the engine of a parsed MySQL target database; storage is
// --target-engine ("" keeps the source's engine).
func NewEngine(cfg config.MySQL, storage string) target.Engine {
	return engine{cfg: cfg, storage: storage}
}

func openEngine(rawURL string, o target.Options) (target.Engine, error) {
	m, err := config.ParseMySQLTarget(rawURL)
	if err != nil {
		return nil, err
	}
	if err := m.ApplyTLSFlags("target", o.TLS); err != nil {
		return nil, err
	}
	return NewEngine(m, o.StorageEngine), nil
}

func (engine) Name() string { return "mysql" }

// Parsed is the engine's settings (target.Parsed).
func (e engine) Parsed() config.Target { return config.Target{MySQL: &e.cfg} }

// CheckTarget is the pre-flight check of a MySQL target
// (preflight.TargetChecker).
func (e engine) CheckTarget(ctx context.Context, needs preflight.Needs) (preflight.TargetInfo, []preflight.Problem) {
	return preflight.CheckMySQLTarget(ctx, e.cfg, needs)
}

// StorageEngine is --target-engine (target.StorageEngineOf).
func (e engine) StorageEngine() string { return e.storage }

func (e engine) Redacted() string { return e.cfg.Redacted() }

// Capabilities: the source's statements replayed, the source's names and
// values (VECTOR included), storage engines, generated columns computed by
// the target, more apply sessions than PostgreSQL (DefaultWorkers), --standby.
func (engine) Capabilities() target.Capabilities {
	return target.Capabilities{DDL: target.DDLReplay, SourceStatements: true, KeepsSourceNames: true,
		RawVector: true, StorageEngines: true, DefaultWorkers: DefaultWorkers(), Generated: target.GeneratedComputed, Standby: true, WayBack: true}
}
