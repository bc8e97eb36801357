package snapshot

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestDryRunWritesNothing: --dry-run reports every table in scope with its
// estimates and complete DDL, and the target gets nothing — no schema, no
// state of the stream.
func TestDryRunWritesNothing(t *testing.T) {
	env := testenv.Get(t)
	db := env.NewDatabase(t, "dryrun")
	my := env.MySQL(t, db)
	if _, err := my.Exec(`CREATE TABLE parent (id INT PRIMARY KEY, name VARCHAR(20) NOT NULL, UNIQUE KEY u (name));
		CREATE TABLE child (id BIGINT AUTO_INCREMENT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES parent (id));
		INSERT INTO parent VALUES (1, 'a'), (2, 'b')`); err != nil {
		t.Fatal(err)
	}
	opts := testOptions(t, env, db)
	opts.DryRun = true
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := rep.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{"dry run: 2 tables in scope", "CREATE TABLE \"" + db + "\".\"parent\"", "CREATE TABLE \"" + db + "\".\"child\"",
		"PRIMARY KEY", "FOREIGN KEY", "nothing was written"} {
		if !strings.Contains(text, want) {
			t.Errorf("dry run output lacks %q:\n%s", want, text)
		}
	}
	pg := env.PG(t)
	var schemas, state int
	if err := pg.QueryRow(context.Background(), `SELECT count(*) FROM pg_namespace WHERE nspname = $1`, db).Scan(&schemas); err != nil {
		t.Fatal(err)
	}
	_ = pg.QueryRow(context.Background(), `SELECT count(*) FROM sluice.snapshot_run WHERE stream = $1`, opts.Stream).Scan(&state)
	if schemas != 0 || state != 0 {
		t.Errorf("the dry run wrote to the target: %d schemas %q, %d state rows", schemas, db, state)
	}
}
