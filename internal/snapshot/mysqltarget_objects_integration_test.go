package snapshot

import (
	"context"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestMySQLTargetCopiesViewsAndRoutines: views (one on another, one naming
// the source database explicitly), a procedure and a function are created
// in the target database without the source's DEFINER; a trigger and an
// event are not (they would act on a replica) and the report says why.
func TestMySQLTargetCopiesViewsAndRoutines(t *testing.T) {
	env := testenv.Get(t)
	db := env.NewDatabase(t, "mysnap_obj")
	my := env.MySQL(t, db)
	mustExec(t, my, `CREATE TABLE t (id INT PRIMARY KEY, v INT);
		INSERT INTO t VALUES (1, 10), (2, 20), (3, 30);
		CREATE TABLE audit (id INT AUTO_INCREMENT PRIMARY KEY, note VARCHAR(20));
		CREATE VIEW big AS SELECT id, v FROM `+"`"+db+"`"+`.t WHERE v > 10;
		CREATE VIEW big_sum AS SELECT SUM(v) AS s FROM big;
		CREATE FUNCTION twice(x INT) RETURNS INT DETERMINISTIC RETURN x * 2;
		CREATE PROCEDURE bump() UPDATE t SET v = v + 1;
		CREATE TRIGGER t_ai AFTER INSERT ON t FOR EACH ROW INSERT INTO audit (note) VALUES ('ins');
		CREATE EVENT nightly ON SCHEDULE EVERY 1 DAY DISABLE DO DELETE FROM audit`)
	dst := testenv.UniqueName("mysnap_obj_dst")
	opts, admin := myTestOptions(t, env, db, dst)
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	created := strings.Join(rep.Created, "\n")
	for _, want := range []string{"view " + dst + ".big", "view " + dst + ".big_sum", "function " + dst + ".twice", "procedure " + dst + ".bump"} {
		if !strings.Contains(created, want) {
			t.Errorf("report.Created lacks %q: %v", want, rep.Created)
		}
	}
	notMigrated := strings.Join(rep.NotMigrated, "\n")
	if !strings.Contains(notMigrated, "trigger "+db+".t_ai (not created on a replica") || !strings.Contains(notMigrated, "event "+db+".nightly (not created on a replica") {
		t.Errorf("not migrated: %v", rep.NotMigrated)
	}
	var sum, tw int
	if err := admin.QueryRow("SELECT s FROM `" + dst + "`.big_sum").Scan(&sum); err != nil || sum != 50 {
		t.Errorf("target view big_sum: %d, %v; want 50", sum, err)
	}
	if err := admin.QueryRow("SELECT `" + dst + "`.twice(21)").Scan(&tw); err != nil || tw != 42 {
		t.Errorf("target function twice(21): %d, %v", tw, err)
	}
	var def string
	if err := admin.QueryRow("SELECT VIEW_DEFINITION FROM information_schema.VIEWS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'big'", dst).Scan(&def); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(def, "`"+db+"`") {
		t.Errorf("the target view still reads the source database: %s", def)
	}
	var triggers, events int
	_ = admin.QueryRow("SELECT COUNT(*) FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = ?", dst).Scan(&triggers)
	_ = admin.QueryRow("SELECT COUNT(*) FROM information_schema.EVENTS WHERE EVENT_SCHEMA = ?", dst).Scan(&events)
	if triggers != 0 || events != 0 {
		t.Errorf("target has %d triggers and %d events, want none", triggers, events)
	}
}
