package replicate

import (
	"context"
	mysink "github.com/sluice-db/sluice/internal/sink/mysql"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/snapshot"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestMySQLTargetRefusesTriggers: MySQL has no session setting that keeps
// triggers from firing on the rows sluice writes, so a trigger in the
// target database (an AFTER INSERT copying into another table) would add
// rows the source does not have. Replicate and snapshot into it are refused
// with exit code 2, naming the trigger and how to save and drop it, as the
// way back does; once dropped, the stream runs and the target equals the source.
func TestMySQLTargetRefusesTriggers(t *testing.T) {
	testenv.MySQLTargetFlavors(t, testMySQLTargetRefusesTriggers)
}

func testMySQLTargetRefusesTriggers(t *testing.T, env *testenv.Env) {
	g := newMyRig(t, env, "mt_trig", "")
	g.exec("CREATE TABLE f (id INT PRIMARY KEY, title VARCHAR(20))")
	g.catchUp()
	for _, s := range []string{
		"CREATE TABLE `" + g.tdb + "`.ft (id INT PRIMARY KEY, title VARCHAR(20))",
		"CREATE TRIGGER `" + g.tdb + "`.ins_f AFTER INSERT ON `" + g.tdb + "`.f FOR EACH ROW INSERT INTO `" + g.tdb + "`.ft VALUES (new.id, new.title)",
	} {
		if _, err := g.tgt.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	g.exec("INSERT INTO f VALUES (1, 'one'), (2, 'two')")
	want := []string{g.tdb + ".f: ins_f (AFTER INSERT)", "DROP TRIGGER `" + g.tdb + "`.`ins_f`", "SHOW CREATE TRIGGER"}
	check := func(what string, err error) {
		t.Helper()
		if err == nil || exitcode.Of(err) != exitcode.Config {
			t.Fatalf("%s: want a refusal with exit code 2, got %v", what, err)
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: the refusal does not say %q: %v", what, w, err)
			}
		}
	}
	o := g.options()
	o.UntilCaughtUp = true
	check("replicate", Run(context.Background(), o))
	_, err := snapshot.Run(context.Background(), snapshot.Options{Source: g.src, Target: mysink.NewEngine(g.dst, ""), Include: []string{g.db},
		Stream: testenv.UniqueName("mts"), Workers: 1, Log: testenv.Logger()})
	check("snapshot", err)
	if n := g.tableCount("SELECT COUNT(*) FROM `" + g.tdb + "`.ft"); n != 0 {
		t.Errorf("the trigger's table has %d rows, want 0", n)
	}

	if _, err := g.tgt.Exec("DROP TRIGGER `" + g.tdb + "`.ins_f"); err != nil {
		t.Fatal(err)
	}
	g.catchUp()
	g.compare()
	if n := g.count("f"); n != 2 {
		t.Errorf("f has %d rows, want 2", n)
	}
}
