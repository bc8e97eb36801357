package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestReplicateIntoMySQLTargetAndStatus replicates from --start-position
// into a MySQL target database holding the table already (as a user who
// copied it would have it), reads the checkpoint back with `sluice status`,
// and refuses a scope of two source databases for one target database.
func TestReplicateIntoMySQLTargetAndStatus(t *testing.T) {
	env := testenv.Get(t)
	tgt := env.MySQLTarget(t)
	db := env.NewDatabase(t, "cli_mt")
	tdb := db + "_r"
	tgt.NewDatabase(t, tdb)
	admin := tgt.Admin(t)
	stream := testenv.UniqueName("clmt")
	t.Cleanup(func() { _ = mysqlstate.Delete(context.Background(), admin, stream) })
	my := env.MySQL(t, db)
	for _, q := range []string{"CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))"} {
		if _, err := my.Exec(q); err != nil {
			t.Fatal(err)
		}
		if _, err := admin.Exec("CREATE TABLE `" + tdb + "`.t (id INT PRIMARY KEY, v VARCHAR(10))"); err != nil {
			t.Fatal(err)
		}
	}
	status := testenv.MySQLTexts(t, my, env.BinlogStatusSQL())
	if len(status) != 1 {
		t.Fatalf("%s: %v", env.BinlogStatusSQL(), status)
	}
	start := status[0][0].String + ":" + status[0][1].String
	if _, err := my.Exec("INSERT INTO t VALUES (1, 'a'), (2, 'ü')"); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCLI(context.Background(), "replicate", "--source", env.SourceURL(db), "--target", tgt.URL(tdb),
		"--stream", stream, "--start-position", start, "--target-engine", "InnoDB", "--until-caught-up", "--log-level", "error")
	if code != 0 {
		t.Fatalf("replicate into a MySQL target: exit %d\n%s", code, errOut)
	}
	var n int
	if err := admin.QueryRow("SELECT COUNT(*) FROM `" + tdb + "`.t WHERE (id = 1 AND v = 'a') OR (id = 2 AND HEX(v) = 'C3BC')").Scan(&n); err != nil || n != 2 {
		t.Errorf("target rows: %d (%v), want both", n, err)
	}
	code, out, errOut := runCLI(context.Background(), "status", "--target", tgt.URL(tdb), "--stream", stream, "--json")
	if code != 0 {
		t.Fatalf("status of a MySQL target: exit %d\n%s", code, errOut)
	}
	var st struct {
		Position      map[string]any `json:"position"`
		SchemaVersion int64          `json:"schema_version"`
		Replicator    string         `json:"replicator"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil || st.SchemaVersion != 1 || st.Replicator != "" || st.Position == nil {
		t.Errorf("status: %+v (%v)\n%s", st, err, out)
	}

	other := env.NewDatabase(t, "cli_mt2")
	code, _, errOut = runCLI(context.Background(), "replicate", "--source", env.SourceURL(db), "--target", tgt.URL(tdb),
		"--include", db+".*,"+other+".*", "--stream", testenv.UniqueName("clmt2"), "--start-position", start, "--log-level", "error")
	if code != exitcode.Config || !strings.Contains(errOut, "one source database") {
		t.Errorf("two source databases into one target database: exit %d\n%s", code, errOut)
	}
}
