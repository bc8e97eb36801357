package objects_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/testenv"
)

func TestMain(m *testing.M) { testenv.MainWithSluiceBinary(m) }

// TestObjectsSQLCLI: `sluice snapshot --dry-run --objects-sql` writes the
// file and nothing else (no schema on the target), with an "objects" member
// in --json; the real snapshot then prints the objects with its report and
// the file runs under psql.
func TestObjectsSQLCLI(t *testing.T) {
	env := testenv.Get(t)
	ctx := context.Background()
	db := env.NewDatabase(t, "objcli")
	my := env.MySQL(t, db)
	for _, q := range []string{
		`CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(20), price DECIMAL(8,2))`,
		`INSERT INTO items VALUES (1, 'pen', 1.50), (2, NULL, 20.00)`,
		`CREATE VIEW v_items AS SELECT id, IFNULL(name, '?') AS name, price * 3 AS three FROM items`,
		`CREATE PROCEDURE p_noop() BEGIN END`,
	} {
		mustExec(t, my, q)
	}
	stream := testenv.UniqueName("st")
	pg := env.PG(t)
	t.Cleanup(func() {
		for _, tbl := range []string{"snapshot_chunk", "snapshot_table", "snapshot_run", "checkpoint", "schema_history"} {
			_, _ = pg.Exec(ctx, "DELETE FROM sluice."+tbl+" WHERE stream = $1", stream)
		}
	})
	file := filepath.Join(t.TempDir(), "objects.sql")
	run := func(args ...string) string {
		t.Helper()
		base := []string{"snapshot", "--source", env.SourceURL(db), "--target", env.TargetURL(), "--stream", stream,
			"--workers", "2", "--objects-sql", file}
		cmd := testenv.SluiceCommand(testenv.SluiceBinary(t), append(base, args...)...)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			t.Fatalf("sluice %s: %v\n%s\n%s", strings.Join(args, " "), err, out.String(), errOut.String())
		}
		return out.String()
	}

	out := run("--dry-run", "--json")
	var rep struct {
		Mode    string `json:"mode"`
		Objects struct {
			File       string   `json:"file"`
			Translated int      `json:"translated"`
			NeedHuman  int      `json:"need_human"`
			Checked    bool     `json:"checked_on_target"`
			Human      []string `json:"needs_human"`
		} `json:"objects"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json output: %v\n%s", err, out)
	}
	o := rep.Objects
	if rep.Mode != "dry-run" || o.File != file || o.Translated != 1 || o.NeedHuman != 1 || o.Checked ||
		len(o.Human) != 1 || !strings.HasPrefix(o.Human[0], "procedure "+db+".p_noop: ") {
		t.Errorf("dry run report: %+v\n%s", rep, out)
	}
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), "-- view "+db+".v_items: translated, review") || !strings.Contains(string(text), "not run on the target") {
		t.Errorf("dry run file:\n%s", text)
	}
	var schemas int
	if err := pg.QueryRow(ctx, `SELECT count(*) FROM pg_namespace WHERE nspname = $1`, db).Scan(&schemas); err != nil {
		t.Fatal(err)
	}
	if schemas != 0 {
		t.Errorf("the dry run created schema %s on the target", db)
	}

	out = run()
	for _, want := range []string{"snapshot complete", "objects for review in " + file + ": 1 translated, 1 need a human (checked on the target)",
		"needs a human: procedure " + db + ".p_noop: "} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if b, err := exec.CommandContext(ctx, "psql", env.TargetURL(), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", file).CombinedOutput(); err != nil {
		t.Fatalf("psql -f: %v\n%s", err, b)
	}
	got := testenv.PGRows(t, pg, `SELECT id, name, three::text FROM "`+db+`".v_items ORDER BY id`)
	want := testenv.MySQLRows(t, my, "SELECT id, name, three FROM v_items ORDER BY id")
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("v_items in PostgreSQL:\n%s\nin MySQL:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestObjectsSQLMigrate: migrate --objects-sql writes the file between its
// phases and reports it in the one JSON document of both phases.
func TestObjectsSQLMigrate(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	db := env.NewDatabase(t, "objmig")
	my := env.MySQL(t, db)
	mustExec(t, my, `CREATE TABLE t (id INT PRIMARY KEY, a INT)`)
	mustExec(t, my, `INSERT INTO t VALUES (1, 10), (2, NULL)`)
	mustExec(t, my, `CREATE VIEW v AS SELECT id, IFNULL(a, -1) AS a FROM t`)
	stream := testenv.UniqueName("st")
	pg := env.PG(t)
	t.Cleanup(func() {
		for _, tbl := range []string{"snapshot_chunk", "snapshot_table", "snapshot_run", "checkpoint", "schema_history", "applied", "policy_changes"} {
			_, _ = pg.Exec(context.Background(), "DELETE FROM sluice."+tbl+" WHERE stream = $1", stream)
		}
	})
	file := filepath.Join(t.TempDir(), "objects.sql")
	cmd := testenv.SluiceCommand(testenv.SluiceBinary(t), "migrate", "--source", env.SourceURL(db), "--target", env.TargetURL(),
		"--stream", stream, "--workers", "2", "--until-caught-up", "--json", "--log-level", "warn", "--objects-sql", file)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("sluice migrate: %v\n%s\n%s", err, out.String(), errOut.String())
	}
	var rep struct {
		Objects struct {
			Translated int  `json:"translated"`
			NeedHuman  int  `json:"need_human"`
			Checked    bool `json:"checked_on_target"`
		} `json:"objects"`
		Replicate struct {
			Result string `json:"result"`
		} `json:"replicate"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("not one JSON document: %v\n%s", err, out.String())
	}
	if rep.Objects.Translated != 1 || rep.Objects.NeedHuman != 0 || !rep.Objects.Checked || rep.Replicate.Result != "caught up" {
		t.Errorf("migrate --json: %+v\n%s", rep, out.String())
	}
	if b, err := exec.CommandContext(ctx, "psql", env.TargetURL(), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", file).CombinedOutput(); err != nil {
		t.Fatalf("psql -f: %v\n%s", err, b)
	}
	got := testenv.PGRows(t, pg, `SELECT id, a FROM "`+db+`".v ORDER BY id`)
	if strings.Join(got, ",") != "1|10,2|-1" {
		t.Errorf("view v in PostgreSQL: %v", got)
	}
}
