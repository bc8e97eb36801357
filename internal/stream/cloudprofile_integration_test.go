package stream_test

import (
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/stream"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestStreamCloudUser: stream (snapshot, then the binlog) with only a
// managed service's privileges (testenv.CloudUser) gives the source's rows,
// before and after changes; without REPLICATION SLAVE it refuses, exit 2,
// naming the grant.
func TestStreamCloudUser(t *testing.T) { testenv.Flavors(t, testStreamCloudUser) }

func testStreamCloudUser(t *testing.T, env *testenv.Env) {
	brokers := env.Kafka(t)
	name := env.NewDatabase(t, "kcloud")
	db := env.MySQL(t, name)
	mustExec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, n INT NOT NULL, s VARCHAR(40))", "INSERT INTO t VALUES "+seedRows(50))

	user, noSlave := env.CloudUser(t, db, name, []string{env.ReplicationClient()}, "LOCK TABLES")
	o := stream.Options{Sources: []config.MySQL{source(t, noSlave)}, Brokers: brokers, Prefix: name + "_no"}
	err := runStream(t, o)
	if fix := "GRANT REPLICATION SLAVE ON *.* TO '" + user + "'"; exitcode.Of(err) != exitcode.Config || err == nil || !strings.Contains(err.Error(), fix) {
		t.Errorf("stream without REPLICATION SLAVE: want exit 2 naming %q, got %v", fix, err)
	}

	global, extra := env.CloudGrants()
	_, cloud := env.CloudUser(t, db, name, global, extra...)
	o = stream.Options{Sources: []config.MySQL{source(t, cloud)}, Brokers: brokers, Prefix: name, MinBinlogRetention: time.Hour}
	if err := runStream(t, o); err != nil {
		t.Fatalf("stream as a cloud user: %v", err)
	}
	mustExec(t, db, "UPDATE t SET n = n + 1, s = 'changed' WHERE id <= 10", "DELETE FROM t WHERE id > 45",
		"INSERT INTO t VALUES (100, 1, 'new')")
	if err := runStream(t, o); err != nil {
		t.Fatalf("stream as a cloud user, continued: %v", err)
	}
	topic := name + "." + name + ".t"
	compareRows(t, "the cloud user's stream", rebuild(t, consume(t, brokers, topic), topic, 0), sourceRows(t, db, "t"))
}
