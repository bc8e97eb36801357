package mysql

import (
	"context"
	"errors"
	"testing"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestApplyUpsertMode: a table in the upsert mode takes an insert over a
// present row (overwritten), an update of an absent row (its after image
// inserted), an update changing the key of a present and of an absent row,
// and a delete of an absent row (nothing), where the exact apply refuses
// each as a divergence; a table beside it, not in the mode, still refuses.
// On MariaDB (VALUES()) and MySQL 9.7 (the row alias).
func TestApplyUpsertMode(t *testing.T) { testenv.MariaDBAndMySQL9(t, testApplyUpsertMode) }

func testApplyUpsertMode(t *testing.T, env *testenv.Env) {
	f := newFixtureOn(t, env)
	ctx := context.Background()
	f.exec("CREATE TABLE `" + f.name + "`.t (id INT PRIMARY KEY, a INT, b INT)")
	f.exec("CREATE TABLE `" + f.name + "`.e (id INT PRIMARY KEY, a INT, b INT)")
	f.exec("INSERT INTO `" + f.name + "`.t VALUES (1, 10, 100), (4, 40, 400)")
	tv := table("id", "a", "b")
	ev := table("id", "a", "b")
	ev.TableID = schema.TableID{Database: "app", Name: "e"}
	ev.Name = "e"
	sess := f.session(ctx)
	sess.a.cfg.Upsert = &pipeline.UpsertTables{}
	sess.a.cfg.Upsert.Add(tv.TableID)
	row := func(v ...int32) []any { return []any{v[0], v[1], v[2]} }
	apply := func(pos uint32, chs ...model.RowChange) error {
		txn := &model.Txn{End: binlogpos.Position{File: "bin.000001", Pos: pos}, Changes: chs}
		g := &pipeline.Group{Txns: []*model.Txn{txn}}
		for _, ch := range chs {
			g.Changes = append(g.Changes, pipeline.Change{RowChange: ch, Txn: txn})
		}
		g.One = func(int) []pipeline.Change { return g.Changes }
		_, err := sess.ApplyGroup(ctx, g, binlogpos.Position{File: "bin.000001", Pos: 4})
		return err
	}
	if err := apply(100,
		model.RowChange{Op: model.Insert, Table: tv, After: row(1, 11, 111)},
		model.RowChange{Op: model.Update, Table: tv, Before: row(2, 0, 0), After: row(2, 22, 222)},
		model.RowChange{Op: model.Update, Table: tv, Before: row(4, 40, 400), After: row(5, 55, 555)},
		model.RowChange{Op: model.Update, Table: tv, Before: row(8, 0, 0), After: row(9, 99, 999)},
		model.RowChange{Op: model.Delete, Table: tv, Before: row(3, 0, 0)},
	); err != nil {
		t.Fatal(err)
	}
	f.wantRows("id, a, b", [][]int{{1, 11, 111}, {2, 22, 222}, {5, 55, 555}, {9, 99, 999}})

	for i, ch := range []model.RowChange{
		{Op: model.Update, Table: ev, Before: row(2, 0, 0), After: row(2, 1, 1)},
		{Op: model.Delete, Table: ev, Before: row(3, 0, 0)},
	} {
		if err := apply(uint32(200+i), ch); !errors.Is(err, errTargetDiverged) {
			t.Fatalf("%v of an absent row of a table not in the mode: want a divergence, got %v", ch.Op, err)
		}
	}
	if n := f.count("SELECT COUNT(*) FROM `" + f.name + "`.e"); n != 0 {
		t.Fatalf("table e: %d rows, want none", n)
	}
}
