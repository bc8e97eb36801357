package replicate

import (
	"testing"

	"github.com/sluice-db/sluice/internal/config"
	kafkasink "github.com/sluice-db/sluice/internal/sink/kafka"
	mysink "github.com/sluice-db/sluice/internal/sink/mysql"
	pgsink "github.com/sluice-db/sluice/internal/sink/postgres"
	engines "github.com/sluice-db/sluice/internal/target"
)

// TestTargetRedactedPerEngine: the target's name in logs, from which the
// default server id is derived (binlog.DefaultServerID), is what it was
// before the engine seam for each engine: a changed name would give a
// running stream another replica id.
func TestTargetRedactedPerEngine(t *testing.T) {
	pg, err := config.ParseTarget("postgres://sluice:secret@pg1:5433/shop")
	if err != nil {
		t.Fatal(err)
	}
	my := config.MySQL{Host: "db2", Port: 3307, User: "root", Password: "secret", Database: "replica"}
	for _, c := range []struct {
		o          Options
		want, name string
	}{
		{Options{Target: pgsink.NewEngine(pg)}, "postgres://sluice:xxxxx@pg1:5433/shop", "postgres"},
		{Options{Target: mysink.NewEngine(my, "ROCKSDB")}, "mysql://root:xxxxx@db2:3307/replica", "mysql"},
		{Options{Target: kafkasink.NewEngine(kafkasink.Config{Brokers: []string{"k1:9092", "k2:9092"}, Prefix: "shop/eu"})},
			"kafka://k1:9092,k2:9092/shop%2Feu", "kafka"},
	} {
		if got := c.o.targetRedacted(); got != c.want || c.o.Target.Name() != c.name {
			t.Errorf("%s target: %q (%s), want %q", c.name, got, c.o.Target.Name(), c.want)
		}
	}
}

// pgTarget is a PostgreSQL engine's settings, for the tests that verify it.
func pgTarget(e engines.Engine) config.Postgres {
	pg, _ := engines.PostgresOf(e)
	return pg
}
