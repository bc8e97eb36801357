package stream_test

import (
	"fmt"
	"testing"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/stream"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestStreamSnapshotLastMark: source.snapshot is "last" on the snapshot's
// last row and "true" on every other, also when the last chunks hold no
// row: table a has exactly two chunks' worth of rows (its last chunk is
// empty) and table z, copied last as the smallest, is empty.
func TestStreamSnapshotLastMark(t *testing.T) {
	env := testenv.Get(t)
	brokers := env.Kafka(t)
	dbName := env.NewDatabase(t, "klast")
	mustExec(t, env.MySQL(t, dbName), "CREATE TABLE a (id INT PRIMARY KEY, v INT)",
		"INSERT INTO a VALUES (1, 1), (2, 2), (3, 3), (4, 4)", "CREATE TABLE z (id INT PRIMARY KEY)", "ANALYZE TABLE a, z")
	o := stream.Options{Sources: []config.MySQL{source(t, env.SourceURL(dbName))}, Brokers: brokers, Prefix: dbName, ChunkRows: 2}
	if err := runStream(t, o); err != nil {
		t.Fatal(err)
	}
	marks := map[string]string{}
	for _, e := range consume(t, brokers, dbName+"."+dbName+".a", dbName+"."+dbName+".z") {
		if e.op() == "r" {
			marks[fmt.Sprint(e.image("after")["id"])] = fmt.Sprint(e.source()["snapshot"])
		}
	}
	want := map[string]string{"1": "true", "2": "true", "3": "true", "4": "last"}
	if fmt.Sprint(marks) != fmt.Sprint(want) {
		t.Errorf("source.snapshot of the r events by id: %v, want %v", marks, want)
	}
}
