package verify

import (
	"testing"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/testenv"
	"github.com/sluice-db/sluice/internal/typemap"
)

// TestRepairLatin1Key: rows of a table whose key is latin1 text (read as
// raw bytes, looked up again by them for the repair) are repaired on a
// PostgreSQL target; the lookup once failed with an illegal mix of
// collations.
func TestRepairLatin1Key(t *testing.T) {
	s := newSide(t, testenv.Get(t), "vlat")
	s.mustMy(t, `CREATE TABLE l (k VARCHAR(10) CHARACTER SET latin1 PRIMARY KEY, v INT);
		INSERT INTO l VALUES ('é1', 1), ('é2', 2), ('ÿ3', 3), ('a4', 4)`)
	s.snapshot(t, typemap.DefaultOptions(), "l")
	tb := []*schema.Table{loadTable(t, s.my, s.db, "l")}
	s.mustPG(t, `UPDATE "`+s.pgSchm+`".l SET v = 20 WHERE k = 'é2'`)
	s.mustPG(t, `DELETE FROM "`+s.pgSchm+`".l WHERE k = 'ÿ3'`)
	rep := s.runVerify(t, tb, func(o *Options) { o.Repair = true })
	sameLines(t, "differences", found(rep), []string{`l differs k="é2" v`, `l only_in_source k="ÿ3"`})
	if rep.Tables[0].Result != ResultRepaired {
		t.Fatalf("repair: %s %s", rep.Tables[0].Result, rep.Tables[0].Error)
	}
	if again := s.runVerify(t, tb, nil); again.Result != ResultEqual {
		t.Errorf("after the repair: %s", again.Result)
	}
}
