package binlog

import (
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestReplaceOfReferencedRow: a REPLACE of rows that children reference with
// ON DELETE SET NULL / CASCADE. MySQL 9 (foreign keys in the SQL layer) runs
// no action and logs DELETE + INSERT of each row: the stream hands on one
// UPDATE per replaced row (a row the REPLACE only inserts stays an INSERT),
// so no target runs its own action. MariaDB runs the actions without logging
// them: DELETE and INSERT stay, the target's foreign keys repeat the actions.
func TestReplaceOfReferencedRow(t *testing.T) {
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		f := newFixtureOn(t, env, "bl_replace", `
			CREATE TABLE p (id INT PRIMARY KEY, v VARCHAR(10));
			CREATE TABLE c (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p (id) ON DELETE SET NULL);
			CREATE TABLE c2 (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p (id) ON DELETE CASCADE);
			INSERT INTO p VALUES (1, 'a'), (2, 'b');
			INSERT INTO c VALUES (10, 1), (11, 2);
			INSERT INTO c2 VALUES (20, 1)`)
		start := f.position()
		r := startStream(t, f.config(start, ignoreOthers(f.db)))
		f.exec(`REPLACE INTO p VALUES (1, 'a2'), (2, 'b2'), (3, 'c3')`)
		txn := r.next(20 * time.Second)
		if txn == nil {
			t.Fatal("no transaction")
		}
		var got []string
		for _, c := range txn.Changes {
			got = append(got, c.Table.Name+" "+c.Op.String())
		}
		want := []string{"p update", "p update", "p insert"}
		if !f.info.SQLForeignKeys {
			want = []string{"p delete", "p insert", "p delete", "p insert", "p insert"}
		}
		if env.IsMySQL() != f.info.SQLForeignKeys {
			t.Errorf("SQLForeignKeys = %v on %s", f.info.SQLForeignKeys, f.info.Version)
		}
		if len(got) != len(want) {
			t.Fatalf("changes %v, want %v", got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("changes %v, want %v", got, want)
			}
		}
		if f.info.SQLForeignKeys {
			u := txn.Changes[0]
			if u.Before[0] != int32(1) || u.Before[1] != "a" || u.After[0] != int32(1) || u.After[1] != "a2" {
				t.Errorf("first update %v → %v, want [1 a] → [1 a2]", u.Before, u.After)
			}
		}
		// What the source did to the children: nothing on MySQL 9, the
		// actions on MariaDB.
		var c, c2 int
		if err := f.my.QueryRow(`SELECT (SELECT count(*) FROM c WHERE pid IS NOT NULL), (SELECT count(*) FROM c2)`).Scan(&c, &c2); err != nil {
			t.Fatal(err)
		}
		if f.info.SQLForeignKeys && (c != 2 || c2 != 1) || !f.info.SQLForeignKeys && (c != 0 || c2 != 0) {
			t.Errorf("children after REPLACE: %d with a parent, %d cascaded rows left", c, c2)
		}
		if err := r.stop(); err != nil {
			t.Fatal(err)
		}
	})
}
