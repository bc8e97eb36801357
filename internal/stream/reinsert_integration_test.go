package stream_test

import (
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/stream"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestStreamDeleteReinsert: a row deleted and inserted again with the same
// key in one transaction (sysbench's oltp_write_only does it in every
// transaction) is a delete, its tombstone and a create, as Debezium emits
// them, on MySQL 9 too, where the replicator folds the pair into one UPDATE
// for targets with foreign keys (source/mysql/binlog/replace.go).
func TestStreamDeleteReinsert(t *testing.T) {
	testenv.Flavors(t, testStreamDeleteReinsert)
}

func testStreamDeleteReinsert(t *testing.T, env *testenv.Env) {
	brokers := env.Kafka(t)
	name := env.NewDatabase(t, "kreins")
	db := env.MySQL(t, name)
	mustExec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, k INT NOT NULL, s VARCHAR(20), KEY (k))",
		"INSERT INTO t VALUES (1, 1, 'a'), (2, 2, 'b')")
	o := stream.Options{Sources: []config.MySQL{source(t, env.SourceURL(name))}, Brokers: brokers, Prefix: name}
	if err := runStream(t, o); err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, "BEGIN; UPDATE t SET k = k + 1 WHERE id = 1; DELETE FROM t WHERE id = 2; "+
		"INSERT INTO t VALUES (2, 5, 'z'); COMMIT")
	if err := runStream(t, o); err != nil {
		t.Fatal(err)
	}
	topic := name + "." + name + ".t"
	var ops []string
	for _, e := range consume(t, brokers, topic) {
		if string(e.Key) != `{"id":2}` {
			continue
		}
		op := e.op()
		if e.Value == nil {
			op = "tombstone"
		}
		ops = append(ops, op)
	}
	if got := strings.Join(ops, " "); got != "r d tombstone c" {
		t.Errorf("events of key {\"id\":2}: %s, want r d tombstone c", got)
	}
	got := rebuild(t, consume(t, brokers, topic), topic, 0)
	if r := fmtRow(got[`{"id":2}`]); r != "map[id:2 k:5 s:z]" {
		t.Errorf("row 2 rebuilt from the events: %s, want map[id:2 k:5 s:z]", r)
	}
}
