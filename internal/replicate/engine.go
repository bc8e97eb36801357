package replicate

import (
	kafkasink "github.com/sluice-db/sluice/internal/sink/kafka"
	mysink "github.com/sluice-db/sluice/internal/sink/mysql"
	pgsink "github.com/sluice-db/sluice/internal/sink/postgres"
	engines "github.com/sluice-db/sluice/internal/target"
)

// engine is the run's target engine, from the Options' target fields: the
// one place replicate asks which engine it writes; everything else asks the
// engine's capabilities. No I/O: withDefaults needs it without a server.
func (o Options) engine() engines.Engine {
	if o.Kafka != nil {
		return kafkasink.NewEngine(*o.Kafka)
	}
	if o.MySQLTarget != nil {
		return mysink.NewEngine(*o.MySQLTarget, o.TargetEngine)
	}
	return pgsink.NewEngine(o.Target)
}
