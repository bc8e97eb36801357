package postgres

import (
	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/target"
)

func init() {
	target.Register(openEngine, "postgres", "postgresql", "opengauss")
}

// engine is PostgreSQL (and openGauss) as a target.Engine.
type engine struct{ cfg config.Postgres }

// NewEngine is the engine of a parsed PostgreSQL target.
func NewEngine(cfg config.Postgres) target.Engine { return engine{cfg: cfg} }

func openEngine(rawURL string, o target.Options) (target.Engine, error) {
	p, err := config.ParseTarget(rawURL)
	if err != nil {
		return nil, err
	}
	if err := p.ApplyTLSFlags(o.TLS); err != nil {
		return nil, err
	}
	return engine{cfg: p}, nil
}

func (engine) Name() string { return "postgres" }

// Parsed is the engine's settings (target.Parsed).
func (e engine) Parsed() config.Target { return config.Target{Postgres: &e.cfg} }

func (e engine) Redacted() string { return e.cfg.Redacted() }

// Capabilities: translated DDL; a re-copy, cutover and --standby work on PostgreSQL.
func (engine) Capabilities() target.Capabilities {
	return target.Capabilities{DDL: target.DDLTranslate, Generated: target.GeneratedTranslated, Recopy: true, Cutover: true, Standby: true}
}
