package verify

import (
	"context"
	"testing"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/testenv"
	"github.com/sluice-db/sluice/internal/typemap"
)

// TestRepairTriggersDoNotFire: the repaired rows are the source's, so a
// trigger of the target (the application's, ported) must not fire on the
// repair's deletes and upserts: they run with the replica role.
func TestRepairTriggersDoNotFire(t *testing.T) {
	env := testenv.Get(t)
	s := newSide(t, env, "rtrg")
	s.mustMy(t, `CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10));
		INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')`)
	s.snapshot(t, typemap.DefaultOptions(), "t")
	q := `"` + s.pgSchm + `".`
	s.mustPG(t, `CREATE TABLE `+q+`audit (op text)`)
	s.mustPG(t, `GRANT ALL ON `+q+`audit TO PUBLIC`)
	s.mustPG(t, `CREATE FUNCTION `+q+`audit_row() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO `+q+
		`audit VALUES (TG_OP); RETURN NULL; END $$`)
	s.mustPG(t, `CREATE TRIGGER audit_t AFTER INSERT OR UPDATE OR DELETE ON `+q+`t FOR EACH ROW EXECUTE FUNCTION `+q+`audit_row()`)
	// Damage as the application would: its trigger fires on these three.
	s.mustPG(t, `DELETE FROM `+q+`t WHERE id = 1; UPDATE `+q+`t SET v = 'x' WHERE id = 2; INSERT INTO `+q+`t VALUES (9, 'z')`)
	s.mustPG(t, `DELETE FROM `+q+`audit`)
	tables := []*schema.Table{loadTable(t, s.my, s.db, "t")}
	wantTables(t, "repair", s.runVerify(t, tables, func(o *Options) { o.Repair = true }), ResultRepaired)
	wantResult(t, "after the repair", s.runVerify(t, tables, nil), ResultEqual)
	var fired int
	if err := s.pg.QueryRow(context.Background(), `SELECT count(*) FROM `+q+`audit`).Scan(&fired); err != nil || fired != 0 {
		t.Errorf("the target's trigger fired %d times on the repair's writes (%v)", fired, err)
	}
}
