package verify

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/testenv"
	"github.com/sluice-db/sluice/internal/typemap"
)

// TestRepairFollowsForeignKeys: a parent row deleted on the target took its
// children with it (ON DELETE CASCADE), and a child row the source no longer
// has keeps a parent the source deleted. One repair run must fix all of it
// whatever order the tables finish in — parents inserted before children,
// children deleted before parents — and the --repair-sql file must run
// cleanly under psql -v ON_ERROR_STOP=1.
func TestRepairFollowsForeignKeys(t *testing.T) {
	for _, mode := range []string{"applied", "sql"} {
		t.Run(mode, func(t *testing.T) {
			env := testenv.Get(t)
			s := newSide(t, env, "rfk")
			s.mustMy(t, `CREATE TABLE parent (id INT PRIMARY KEY, name VARCHAR(10));
				CREATE TABLE child (id INT PRIMARY KEY, pid INT NOT NULL, FOREIGN KEY (pid) REFERENCES parent (id) ON DELETE CASCADE);
				CREATE TABLE grandchild (id INT PRIMARY KEY, cid INT NOT NULL, FOREIGN KEY (cid) REFERENCES child (id) ON DELETE CASCADE);
				INSERT INTO parent VALUES (1, 'a'), (2, 'b'), (3, 'c');
				INSERT INTO child VALUES (10, 1), (11, 1), (20, 2);
				INSERT INTO grandchild VALUES (100, 10), (101, 11)`)
			s.snapshot(t, typemap.DefaultOptions(), "parent", "child", "grandchild")
			// Target damage: parent 1 and its subtree gone; source: parent 3 and
			// child 20's parent 2 deleted, so the target must delete them too.
			s.mustPG(t, `DELETE FROM "`+s.pgSchm+`".parent WHERE id = 1`)
			s.mustMy(t, `DELETE FROM child WHERE id = 20; DELETE FROM parent WHERE id IN (2, 3)`)
			tables := []*schema.Table{loadTable(t, s.my, s.db, "parent"), loadTable(t, s.my, s.db, "child"), loadTable(t, s.my, s.db, "grandchild")}
			var sqlOut bytes.Buffer
			rep := s.runVerify(t, tables, func(o *Options) {
				o.Repair = mode == "applied"
				if mode == "sql" {
					o.RepairSQL = &sqlOut
				}
				o.Workers = 3
			})
			for _, tr := range rep.Tables {
				if tr.Error != "" {
					t.Fatalf("%s: %s", tr.Table, tr.Error)
				}
			}
			if mode == "sql" {
				path := filepath.Join(t.TempDir(), "repair.sql")
				if err := os.WriteFile(path, sqlOut.Bytes(), 0o600); err != nil {
					t.Fatal(err)
				}
				cmd := exec.Command("/usr/lib/postgresql/15/bin/psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", path, env.PGAdminURL())
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("psql -v ON_ERROR_STOP=1 -f repair.sql: %v\n%s\n--- file:\n%s", err, out, sqlOut.String())
				}
			}
			again := s.runVerify(t, tables, nil)
			for _, tr := range again.Tables {
				if tr.Result != ResultEqual {
					t.Errorf("after the repair %s is %s", tr.Table, tr.Result)
				}
			}
			got := testenv.PGRows(t, s.pg, `SELECT (SELECT string_agg(id::text, ',' ORDER BY id) FROM "`+s.pgSchm+`".parent),
				(SELECT string_agg(id::text, ',' ORDER BY id) FROM "`+s.pgSchm+`".child),
				(SELECT string_agg(id::text, ',' ORDER BY id) FROM "`+s.pgSchm+`".grandchild)`)
			if strings.Join(got, "") != "1|10,11|100,101" {
				t.Errorf("target after the repair: %v", got)
			}
		})
	}
}
