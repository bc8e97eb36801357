package replicate

import (
	kafkasink "github.com/sluice-db/sluice/internal/sink/kafka"
	mysink "github.com/sluice-db/sluice/internal/sink/mysql"
	pgsink "github.com/sluice-db/sluice/internal/sink/postgres"
	engines "github.com/sluice-db/sluice/internal/target"
)

// sides maps the Options' target fields to the run's engine (its name and
// capabilities, which the rest of replicate asks) and its target side
// (connections and state, target.go): the one place replicate asks which
// engine it writes. No I/O: withDefaults needs the engine without a server.
func (o Options) sides() (engines.Engine, target) {
	if o.Kafka != nil {
		return kafkasink.NewEngine(*o.Kafka), &kafkaTarget{}
	}
	if o.MySQLTarget != nil {
		return mysink.NewEngine(*o.MySQLTarget, o.TargetEngine), &mysqlTarget{}
	}
	return pgsink.NewEngine(o.Target), &pgTarget{}
}

// engine is the run's target engine (sides).
func (o Options) engine() engines.Engine {
	e, _ := o.sides()
	return e
}
