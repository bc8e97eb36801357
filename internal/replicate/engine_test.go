package replicate

import (
	"testing"

	"github.com/sluice-db/sluice/internal/config"
	kafkasink "github.com/sluice-db/sluice/internal/sink/kafka"
)

// TestTargetRedactedPerEngine: the target's name in logs, from which the
// default server id is derived (binlog.DefaultServerID), is what it was
// before the engine seam for each of the Options' target fields: a changed
// name would give a running stream another replica id.
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
		{Options{Target: pg}, "postgres://sluice:xxxxx@pg1:5433/shop", "postgres"},
		{Options{MySQLTarget: &my, TargetEngine: "ROCKSDB"}, "mysql://root:xxxxx@db2:3307/replica", "mysql"},
		{Options{Kafka: &kafkasink.Config{Brokers: []string{"k1:9092", "k2:9092"}, Prefix: "shop/eu"}},
			"kafka://k1:9092,k2:9092/shop%2Feu", "kafka"},
	} {
		if got := c.o.targetRedacted(); got != c.want || c.o.engine().Name() != c.name {
			t.Errorf("%s target: %q (%s), want %q", c.name, got, c.o.engine().Name(), c.want)
		}
	}
}
