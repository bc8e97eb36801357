package mysql

import (
	"errors"

	"github.com/sluice-db/sluice/internal/config"
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
	t, err := config.ParseAnyTarget(rawURL)
	if err != nil {
		return nil, err
	}
	if t.MySQL == nil { // the registry gives this opener mysql:// and mariadb:// only
		return nil, errors.New("target: not a mysql:// URL")
	}
	if err := t.MySQL.ApplyTLSFlags("target", o.TLS); err != nil {
		return nil, err
	}
	return NewEngine(*t.MySQL, o.StorageEngine), nil
}

func (engine) Name() string { return "mysql" }

func (e engine) Redacted() string { return e.cfg.Redacted() }

// Capabilities: the source's statements replayed, the source's names and
// values (VECTOR included), storage engines, generated columns computed by
// the target, more apply sessions than PostgreSQL (DefaultWorkers), --standby.
func (engine) Capabilities() target.Capabilities {
	return target.Capabilities{DDL: target.DDLReplay, SourceStatements: true, KeepsSourceNames: true,
		RawVector: true, StorageEngines: true, DefaultWorkers: DefaultWorkers(), Generated: target.GeneratedComputed, Standby: true,
		VerifyDialect: "mysql"}
}
