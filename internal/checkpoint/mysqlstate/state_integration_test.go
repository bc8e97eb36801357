package mysqlstate

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/testenv"
)

func TestStateRoundTripsOnAMySQLTarget(t *testing.T) {
	tgt := testenv.Get(t).MySQLTarget(t)
	db := tgt.Admin(t)
	ctx := context.Background()
	if err := Ensure(ctx, db, ""); err != nil {
		t.Fatal(err)
	}
	if err := Ensure(ctx, db, "InnoDB"); err != nil { // idempotent
		t.Fatal(err)
	}
	stream := testenv.UniqueName("state")
	t.Cleanup(func() { _ = Delete(context.Background(), db, stream) })

	if st, err := Load(ctx, db, stream, binlogpos.Decode); err != nil || st != nil {
		t.Fatalf("a new stream: got %v, %v; want no state", st, err)
	}
	pos := binlogpos.Position{File: "mysql-bin.000042", Pos: 1234, GTIDSet: "0-1-99", Flavor: "mariadb"}
	src := time.Date(2026, 11, 26, 5, 0, 0, 123456000, time.UTC)
	if err := Save(ctx, db, stream, checkpoint.State{Position: pos, SchemaVersion: 3, SourceTime: src}); err != nil {
		t.Fatal(err)
	}
	st, err := Load(ctx, db, stream, binlogpos.Decode)
	if err != nil || st == nil {
		t.Fatalf("load: %v, %v", st, err)
	}
	if st.Position.Compare(pos) != 0 || st.Position.Encode() != pos.Encode() || st.SchemaVersion != 3 || !st.SourceTime.Equal(src) {
		t.Fatalf("loaded %+v (%s), want %s version 3 at %s", st, st.Position.Encode(), pos.Encode(), src)
	}

	a := &schema.Table{TableID: schema.TableID{Database: "app", Name: "a"}}
	b := &schema.Table{TableID: schema.TableID{Database: "app", Name: "b"}}
	if err := SaveSchema(ctx, db, stream, 1, pos, "", []*schema.Table{a, b}, nil); err != nil {
		t.Fatal(err)
	}
	if err := SaveSchema(ctx, db, stream, 2, pos, "DROP TABLE b", nil, []schema.TableID{b.TableID}); err != nil {
		t.Fatal(err)
	}
	for v, want := range map[int64]int{1: 2, 2: 1} {
		got, err := LoadSchema(ctx, db, stream, v)
		if err != nil || len(got) != want || got[a.TableID] == nil {
			t.Fatalf("schema version %d: %v tables (%v), want %d with app.a", v, len(got), err, want)
		}
	}

	p1 := binlogpos.Position{File: "mysql-bin.000042", Pos: 2000}
	p2 := binlogpos.Position{File: "mysql-bin.000042", Pos: 3000}
	if err := InsertApplied(ctx, db, stream, p2.Key(), []string{p1.Key(), p2.Key()}, pos.Key()); err != nil {
		t.Fatal(err)
	}
	rows, err := LoadApplied(ctx, db, stream, binlogpos.Decode)
	if err != nil || len(rows) != 1 || rows[0].Last.Key() != p2.Key() || len(rows[0].Ends) != 2 ||
		rows[0].Ends[0].Key() != p1.Key() || rows[0].Start.Key() != pos.Key() {
		t.Fatalf("applied: %+v, %v", rows, err)
	}
	if err := DeleteAppliedRows(ctx, db, stream, []model.Position{p2}); err != nil {
		t.Fatal(err)
	}
	if rows, err := LoadApplied(ctx, db, stream, binlogpos.Decode); err != nil || len(rows) != 0 {
		t.Fatalf("after delete: %+v, %v", rows, err)
	}
	if err := Delete(ctx, db, stream); err != nil {
		t.Fatal(err)
	}
	if st, err := Load(ctx, db, stream, binlogpos.Decode); err != nil || st != nil {
		t.Fatalf("after Delete: %v, %v", st, err)
	}
}

// TestStateTablesFitEveryEngine: every state table can be created on InnoDB
// and on MyRocks, whose keys are limited to 767 bytes (the state tables of a
// --target-engine ROCKSDB run use that engine), and a stream name longer
// than the tables hold is refused.
func TestStateTablesFitEveryEngine(t *testing.T) {
	tgt := testenv.Get(t).MySQLTarget(t)
	db := tgt.Admin(t)
	engines := []string{"InnoDB"}
	if tgt.HasRocksDB(t) {
		engines = append(engines, "ROCKSDB")
	} else if testenv.InCI() {
		t.Fatal("the sandbox's MySQL target has no ROCKSDB engine")
	}
	for _, engine := range engines {
		scratch := testenv.UniqueName("state_" + strings.ToLower(engine))
		tgt.NewDatabase(t, scratch)
		for _, tmpl := range allTables() {
			q := strings.Replace(fmt.Sprintf(tmpl, engine), "sluice.", "`"+scratch+"`.", 1)
			if _, err := db.Exec(q); err != nil {
				t.Errorf("%s: %v\n%s", engine, err, q)
			}
		}
	}
	if err := CheckStream(strings.Repeat("s", MaxStream)); err != nil {
		t.Errorf("a %d-byte stream name: %v", MaxStream, err)
	}
	if err := CheckStream(strings.Repeat("s", MaxStream+1)); err == nil || !strings.Contains(err.Error(), "--stream") {
		t.Errorf("a stream name over %d bytes: %v", MaxStream, err)
	}
}

// TestSnapshotLocksOfStreamsDifferingInCase: the snapshot locks of streams S
// and s are distinct on each target server (MySQL 9.7 compares GET_LOCK
// names without case: a snapshot of s waited for S's and was refused).
func TestSnapshotLocksOfStreamsDifferingInCase(t *testing.T) {
	env := testenv.Get(t)
	for _, f := range []testenv.Flavor{testenv.MariaDB, testenv.MySQL} {
		t.Run(string(f), func(t *testing.T) {
			db := env.WithMySQLTarget(f).MySQLTarget(t).Admin(t)
			ctx := context.Background()
			upper := strings.ToUpper(testenv.UniqueName("lock"))
			a, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			b, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			var got int
			if err := a.QueryRowContext(ctx, "SELECT GET_LOCK(?, 0)", SnapshotLockName(upper)).Scan(&got); err != nil || got != 1 {
				t.Fatalf("lock of %s: %d, %v", upper, got, err)
			}
			if err := b.QueryRowContext(ctx, "SELECT GET_LOCK(?, 0)", SnapshotLockName(strings.ToLower(upper))).Scan(&got); err != nil || got != 1 {
				t.Fatalf("lock of %s while %s holds its own: %d, %v", strings.ToLower(upper), upper, got, err)
			}
			if SnapshotLockName("shop") != "sluice snapshot shop" {
				t.Errorf("a lower-case stream's lock name changed: %s", SnapshotLockName("shop"))
			}
		})
	}
}
