package postgres

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/pipeline"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
)

func withPositions(txns []*model.Txn, from int) []*model.Txn {
	for i, t := range txns {
		t.End = pos(from + i)
		t.Timestamp = time.Unix(1700000000+int64(from+i), 0).UTC()
	}
	return txns
}

// TestApplyRandomWorkload applies random transactions (conflicting keys,
// primary and unique key changes, foreign keys, a keyless table with
// duplicates) with 6 workers and compares every table with the source.
func TestApplyRandomWorkload(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  func(*applyConfig)
	}{
		{"grouped", func(*applyConfig) {}},
		{"copy", func(c *applyConfig) { c.Sink.CopyRows = 2 }},
		{"no-compact-small-groups", func(c *applyConfig) { c.NoCompact = true; c.GroupRows = 3 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, 6)
			w := newWorkload(f.db, 42, 40)
			f.exec(w.targetDDL()...)
			txns := withPositions(w.txns(1500, 6), 1)
			cfg := f.config(6)
			tc.cfg(&cfg)
			stats, err := f.runStats(cfg, txns)
			if err != nil {
				t.Fatal(err)
			}
			w.check(f)
			// A valid source sequence never needs the one-by-one retry:
			// grouping, compaction and reordering must keep every
			// constraint (foreign keys included) satisfied by themselves.
			if stats.Retried != 0 {
				t.Errorf("%d groups were refused by PostgreSQL and retried one transaction at a time", stats.Retried)
			}
			st := f.checkpoint()
			if st == nil || st.Position != pos(1500) {
				t.Fatalf("checkpoint %+v, want position %v", st, pos(1500))
			}
			if !st.SourceTime.Equal(txns[len(txns)-1].Timestamp) {
				t.Fatalf("checkpoint source time %v, want %v", st.SourceTime, txns[len(txns)-1].Timestamp)
			}
			if n := f.appliedRows(); n != 0 {
				t.Fatalf("%d applied rows left although the checkpoint covers everything", n)
			}
		})
	}
}

// TestApplyRestartExactlyOnce cancels the applier at random moments and
// restarts it from the checkpoint with the stream as a real restart would
// deliver it (everything after the checkpoint, renumbered from Seq 1).
// Already applied transactions above the checkpoint must be skipped: a
// replayed insert would fail on the keys, a replayed keyless change would
// duplicate or lose a row in bag.
func TestApplyRestartExactlyOnce(t *testing.T) {
	f := newFixture(t, 4)
	w := newWorkload(f.db, 7, 40)
	f.exec(w.targetDDL()...)
	txns := withPositions(w.txns(2000, 5), 1)
	skippedTotal := int64(0)
	for attempt := 0; ; attempt++ {
		st := f.checkpoint()
		rest := txns
		if st != nil {
			i := 0
			for i < len(txns) && txns[i].End.Compare(st.Position) <= 0 {
				i++
			}
			rest = txns[i:]
		}
		if attempt > 0 && len(rest) == 0 {
			break
		}
		cfg := f.config(4)
		cfg.GroupRows = 50
		a, err := newApplier(cfg, f.pool)
		if err != nil {
			t.Fatal(err)
		}
		in := make(chan *model.Txn)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- a.Run(ctx, in) }()
		stopAt := len(rest)
		if attempt < 8 {
			stopAt = len(rest) / 3 // cancel a third of the way in
		}
	feed:
		for i, tx := range rest {
			tx.Seq = uint64(i + 1)
			if i == stopAt {
				break
			}
			select {
			case in <- tx:
			case err := <-done:
				t.Fatalf("attempt %d: Run ended early: %v", attempt, err)
				break feed
			}
		}
		if stopAt < len(rest) {
			cancel()
			if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
				t.Fatalf("attempt %d: %v", attempt, err)
			}
		} else {
			close(in)
			if err := <-done; err != nil {
				t.Fatalf("attempt %d: %v", attempt, err)
			}
		}
		cancel()
		skippedTotal += a.Stats().Skipped
		if attempt > 20 {
			t.Fatal("no progress after 20 restarts")
		}
	}
	w.check(f)
	if st := f.checkpoint(); st.Position != pos(2000) {
		t.Fatalf("final checkpoint %v, want %v", st.Position, pos(2000))
	}
	t.Logf("transactions skipped as already applied across restarts: %d", skippedTotal)

	// A stream that starts before the checkpoint (the whole input again):
	// everything is covered, nothing is applied twice, the checkpoint stays.
	a, err := newApplier(f.config(4), f.pool)
	if err != nil {
		t.Fatal(err)
	}
	st, err := a.Open(context.Background())
	if err != nil || st == nil || st.Position != pos(2000) {
		t.Fatalf("Open: state %+v, error %v; want position %v", st, err, pos(2000))
	}
	in := make(chan *model.Txn, len(txns))
	for i, tx := range txns {
		tx.Seq = uint64(i + 1)
		in <- tx
	}
	close(in)
	if err := a.Run(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	if a.Stats().Skipped != int64(len(txns)) || a.Stats().Txns != 0 {
		t.Fatalf("replay from the start: skipped %d applied %d, want %d and 0", a.Stats().Skipped, a.Stats().Txns, len(txns))
	}
	w.check(f)
	if st := f.checkpoint(); st.Position != pos(2000) {
		t.Fatalf("checkpoint moved to %v", st.Position)
	}
}

// TestApplyKeylessDuplicates: update and delete change exactly one of
// several identical rows, NULLs match NULLs, and float/json/bytea columns
// compare exactly.
func TestApplyKeylessDuplicates(t *testing.T) {
	f := newFixture(t, 2)
	f.exec(`CREATE TABLE $S.k (a int, r real, d double precision, j jsonb, b bytea, n numeric(10,2))`)
	c := func(name, typ string) schema.Column { return schema.Column{Name: name, DataType: typ, Nullable: true} }
	tbl := &schema.Table{TableID: schema.TableID{Database: f.db, Name: "k"},
		Columns: []schema.Column{c("a", "int"), c("r", "float"), c("d", "double"), c("j", "json"), c("b", "blob"), c("n", "decimal")}}
	r1 := []any{int32(1), float32(0.1), 0.1, `{"x": [1, 2]}`, []byte{0, 1}, "1.50"}
	r2 := []any{nil, float32(3.4e38), 1e-300, `{"y": null}`, nil, nil}
	ins := func(r []any) model.RowChange { return model.RowChange{Op: model.Insert, Table: tbl, After: r} }
	r1b := []any{int32(2), float32(0.1), 0.1, `{"x": [1, 2]}`, []byte{0, 1}, "1.50"}
	txns := withPositions([]*model.Txn{
		{Changes: []model.RowChange{ins(r1), ins(r1), ins(r1), ins(r2), ins(r2)}},
		{Changes: []model.RowChange{{Op: model.Update, Table: tbl, Before: r1, After: r1b}}},
		{Changes: []model.RowChange{{Op: model.Delete, Table: tbl, Before: r2}}},
		{Changes: []model.RowChange{{Op: model.Delete, Table: tbl, Before: r1}}},
	}, 1)
	if err := f.run(f.config(2), txns); err != nil {
		t.Fatal(err)
	}
	got := f.dump("k", "a, r::text, d::text, j::text, encode(b, 'hex'), n::text")
	want := []string{
		"1|0.1|0.1|{\"x\": [1, 2]}|0001|1.50",
		"2|0.1|0.1|{\"x\": [1, 2]}|0001|1.50",
		"<nil>|3.4e+38|1e-300|{\"y\": null}|<nil>|<nil>",
	}
	equalLists(t, "keyless table", got, want)
}

// TestApplyDDLBarrier: rows, then ALTER TABLE ADD COLUMN with the new table
// version, then rows of the new version; the DDL's schema history and the
// checkpoint with its version commit together.
func TestApplyDDLBarrier(t *testing.T) {
	f := newFixture(t, 3)
	f.exec(`CREATE TABLE $S.t (id bigint PRIMARY KEY, v text)`)
	c := func(name, typ string) schema.Column {
		return schema.Column{Name: name, DataType: typ, Nullable: name != "id"}
	}
	v1 := &schema.Table{TableID: schema.TableID{Database: f.db, Name: "t"},
		Columns: []schema.Column{c("id", "bigint"), c("v", "text")}, PrimaryKey: []string{"id"}}
	v2 := &schema.Table{TableID: v1.TableID,
		Columns: []schema.Column{c("id", "bigint"), c("v", "text"), c("w", "int")}, PrimaryKey: []string{"id"}}
	var txns []*model.Txn
	for i := int64(0); i < 200; i++ {
		txns = append(txns, &model.Txn{Changes: []model.RowChange{{Op: model.Insert, Table: v1, After: []any{i, "a"}}}})
	}
	txns = append(txns, &model.Txn{DDL: &model.DDL{Database: f.db, Statement: "ALTER TABLE t ADD COLUMN w int",
		PG: []string{`ALTER TABLE "` + f.db + `"."t" ADD COLUMN w integer`}, Version: 2, Tables: []*schema.Table{v2}}})
	for i := int64(0); i < 200; i++ {
		txns = append(txns, &model.Txn{Changes: []model.RowChange{
			{Op: model.Update, Table: v2, Before: []any{i, "a", nil}, After: []any{i, "b", int32(i)}}}})
	}
	withPositions(txns, 1)
	if err := f.run(f.config(3), txns); err != nil {
		t.Fatal(err)
	}
	var n, sum int64
	if err := f.pool.QueryRow(context.Background(),
		`SELECT count(*), sum(w) FROM "`+f.db+`".t WHERE v = 'b'`).Scan(&n, &sum); err != nil {
		t.Fatal(err)
	}
	if n != 200 || sum != 199*200/2 {
		t.Fatalf("after DDL: %d rows updated with w sum %d, want 200 and %d", n, sum, 199*200/2)
	}
	st := f.checkpoint()
	if st.SchemaVersion != 2 || st.Position != pos(401) {
		t.Fatalf("checkpoint %+v, want version 2 at %v", st, pos(401))
	}
	var ddl string
	if err := f.pool.QueryRow(context.Background(), `SELECT ddl FROM sluice.schema_history
		WHERE stream = $1 AND version = 2 AND table_name = 't'`, f.stream).Scan(&ddl); err != nil {
		t.Fatalf("schema history of version 2: %v", err)
	}
}

// TestApplyLargeTransaction streams a transaction in fragments into one
// target transaction (COPY for the insert runs) and checks it commits
// atomically with the checkpoint.
func TestApplyLargeTransaction(t *testing.T) {
	f := newFixture(t, 2)
	f.exec(`CREATE TABLE $S.big (id bigint PRIMARY KEY, payload text)`)
	tbl := &schema.Table{TableID: schema.TableID{Database: f.db, Name: "big"},
		Columns:    []schema.Column{{Name: "id", DataType: "bigint"}, {Name: "payload", DataType: "text", Nullable: true}},
		PrimaryKey: []string{"id"}}
	var txns []*model.Txn
	txns = append(txns, &model.Txn{Changes: []model.RowChange{{Op: model.Insert, Table: tbl, After: []any{int64(-1), "before"}}}})
	const frags, per = 5, 3000
	id := int64(0)
	for fr := 0; fr < frags; fr++ {
		t := &model.Txn{Partial: fr < frags-1}
		for i := 0; i < per; i++ {
			t.Changes = append(t.Changes, model.RowChange{Op: model.Insert, Table: tbl, After: []any{id, strings.Repeat("x", 100)}})
			id++
		}
		// An update and a delete inside the last fragment, of rows inserted earlier.
		if fr == frags-1 {
			t.Changes = append(t.Changes,
				model.RowChange{Op: model.Update, Table: tbl, Before: []any{int64(0), strings.Repeat("x", 100)}, After: []any{int64(0), "changed"}},
				model.RowChange{Op: model.Delete, Table: tbl, Before: []any{int64(1), strings.Repeat("x", 100)}})
		}
		txns = append(txns, t)
	}
	txns = append(txns, &model.Txn{Changes: []model.RowChange{{Op: model.Insert, Table: tbl, After: []any{int64(-2), "after"}}}})
	// Fragments share one Seq and only the last has an End.
	in := make(chan *model.Txn, 4)
	go func() {
		defer close(in)
		seq := uint64(0)
		for i, tx := range txns {
			if i == 0 || !txns[i-1].Partial {
				seq++
			}
			tx.Seq = seq
			if !tx.Partial {
				tx.End = pos(int(seq))
			}
			in <- tx
		}
	}()
	a, err := newApplier(f.config(2), f.pool)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Run(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	var n int64
	var changed string
	if err := f.pool.QueryRow(context.Background(), `SELECT count(*), (SELECT payload FROM "`+f.db+`".big WHERE id = 0)
		FROM "`+f.db+`".big`).Scan(&n, &changed); err != nil {
		t.Fatal(err)
	}
	if n != frags*per+2-1 || changed != "changed" {
		t.Fatalf("rows %d (want %d), row 0 payload %q", n, frags*per+1, changed)
	}
	if a.Stats().Large != 1 {
		t.Fatalf("large transactions: %d, want 1", a.Stats().Large)
	}
	if st := f.checkpoint(); st.Position != pos(3) {
		t.Fatalf("checkpoint %v, want %v", st.Position, pos(3))
	}
}

// TestApplyErrorNamesTheChange: a duplicate key on the target stops apply
// with the source position, table, key, SQL and PostgreSQL's error, also
// when the failing change is inside a group of many transactions.
func TestApplyErrorNamesTheChange(t *testing.T) {
	f := newFixture(t, 2)
	f.exec(`CREATE TABLE $S.t (id bigint PRIMARY KEY, v text)`, `INSERT INTO $S.t VALUES (77, 'already there')`)
	tbl := &schema.Table{TableID: schema.TableID{Database: f.db, Name: "t"},
		Columns:    []schema.Column{{Name: "id", DataType: "bigint"}, {Name: "v", DataType: "text", Nullable: true}},
		PrimaryKey: []string{"id"}}
	var txns []*model.Txn
	for i := int64(0); i < 100; i++ {
		txns = append(txns, &model.Txn{GTID: "0-1-" + string(rune('a'+i%26)),
			Changes: []model.RowChange{{Op: model.Insert, Table: tbl, After: []any{i, "new"}}}})
	}
	withPositions(txns, 1)
	err := f.run(f.config(2), txns)
	var ae *pipeline.Error
	if !errors.As(err, &ae) {
		t.Fatalf("want *apply.Error, got %v", err)
	}
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "23505" {
		t.Fatalf("want unique violation inside, got %v", err)
	}
	if ae.Position != pos(78) || ae.Table != tbl.TableID || ae.Key != "id=77" || !strings.HasPrefix(ae.SQL, "INSERT INTO") {
		t.Fatalf("error names position %v table %v key %q SQL %q; want %v, %v, id=77, INSERT", ae.Position, ae.Table, ae.Key, ae.SQL, pos(78), tbl.TableID)
	}
	msg := err.Error()
	for _, want := range []string{"mysql-bin.000007:8800", f.db + ".t", "id=77", "duplicate key", "SQLSTATE 23505"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q: %s", want, msg)
		}
	}
}

// TestApplyMissingRowIsAnError: an update of a row the target lacks is a
// divergence, never silently ignored.
func TestApplyMissingRowIsAnError(t *testing.T) {
	f := newFixture(t, 1)
	f.exec(`CREATE TABLE $S.t (id bigint PRIMARY KEY, v text)`)
	tbl := &schema.Table{TableID: schema.TableID{Database: f.db, Name: "t"},
		Columns:    []schema.Column{{Name: "id", DataType: "bigint"}, {Name: "v", DataType: "text", Nullable: true}},
		PrimaryKey: []string{"id"}}
	txns := withPositions([]*model.Txn{{Changes: []model.RowChange{
		{Op: model.Update, Table: tbl, Before: []any{int64(5), "x"}, After: []any{int64(5), "y"}}}}}, 1)
	err := f.run(f.config(1), txns)
	if !errors.Is(err, errTargetDiverged) || !strings.Contains(err.Error(), "id=5") {
		t.Fatalf("want a divergence error naming id=5, got %v", err)
	}
}

// TestApplyGeneratedColumnsAreNotWritten: a column generated in the target
// is left out of INSERT and UPDATE.
func TestApplyGeneratedColumnsAreNotWritten(t *testing.T) {
	f := newFixture(t, 1)
	f.exec(`CREATE TABLE $S.g (id bigint PRIMARY KEY, a int, twice int GENERATED ALWAYS AS (a * 2) STORED)`)
	tbl := &schema.Table{TableID: schema.TableID{Database: f.db, Name: "g"},
		Columns: []schema.Column{{Name: "id", DataType: "bigint"}, {Name: "a", DataType: "int", Nullable: true},
			{Name: "twice", DataType: "int", Nullable: true, GenerationExpr: "a * 2", GeneratedStored: true}},
		PrimaryKey: []string{"id"}}
	txns := withPositions([]*model.Txn{
		{Changes: []model.RowChange{{Op: model.Insert, Table: tbl, After: []any{int64(1), int32(5), int32(10)}}}},
		{Changes: []model.RowChange{{Op: model.Update, Table: tbl, Before: []any{int64(1), int32(5), int32(10)}, After: []any{int64(1), int32(7), int32(14)}}}},
	}, 1)
	if err := f.run(f.config(1), txns); err != nil {
		t.Fatal(err)
	}
	equalLists(t, "g", f.dump("g", "id, a, twice"), []string{"1|7|14"})
}

// TestApplyFenceRefusesASecondApplier: while one applier runs a stream, a
// second one on the same stream is refused at once, naming the running
// sluice (pid and host); once the first has stopped, the second starts.
func TestApplyFenceRefusesASecondApplier(t *testing.T) {
	f := newFixture(t, 2)
	first, err := newApplier(f.config(2), f.pool)
	if err != nil {
		t.Fatal(err)
	}
	in := make(chan *model.Txn)
	done := make(chan error, 1)
	if _, err := first.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	go func() { done <- first.Run(context.Background(), in) }()

	cfg := f.config(2)
	cfg.Sink.FenceTimeout = 500 * time.Millisecond
	second, err := newApplier(cfg, f.pool)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = second.Open(context.Background())
	if err == nil || !strings.Contains(err.Error(), "is being replicated into this target by sluice pid "+strconv.Itoa(os.Getpid())) ||
		exitcode.Of(err) != exitcode.Config {
		t.Fatalf("second applier on a running stream: want a configuration error naming the running sluice, got %v", err)
	}
	if d := time.Since(start); d > 400*time.Millisecond {
		t.Errorf("the refusal took %s: a running replicator must be refused at once, not after the fence timeout", d)
	}
	close(in)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	third, err := newApplier(cfg, f.pool)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := third.Open(context.Background()); err != nil {
		t.Fatalf("after the first stopped: %v", err)
	}
	third.Close()
}

// TestApplyIgnoresAppliedRowsOfAnotherHistory: applied records left by a run
// that started beyond the current checkpoint (the stream was re-snapshotted
// after the source's binary log was reset, so positions repeat) must not make
// apply skip the new transactions at those positions.
func TestApplyIgnoresAppliedRowsOfAnotherHistory(t *testing.T) {
	f := newFixture(t, 2)
	f.exec(`CREATE TABLE $S.t (id bigint PRIMARY KEY)`)
	tbl := &schema.Table{TableID: schema.TableID{Database: f.db, Name: "t"},
		Columns: []schema.Column{{Name: "id", DataType: "bigint"}}, PrimaryKey: []string{"id"}}
	ctx := context.Background()
	// The old history: a run started at mysql-bin.000050:4 applied pos(2) and pos(3).
	if err := checkpoint.Ensure(ctx, f.pool); err != nil {
		t.Fatal(err)
	}
	if err := checkpoint.EnsureApplied(ctx, f.pool); err != nil {
		t.Fatal(err)
	}
	if _, err := f.pool.Exec(ctx, checkpoint.InsertAppliedSQL, f.stream, pos(3).Key(),
		[]string{pos(2).Key(), pos(3).Key()}, "mysql-bin.000050:4"); err != nil {
		t.Fatal(err)
	}
	// The new history: a snapshot left the checkpoint at pos(0) of a reset binlog.
	if err := pgx.BeginFunc(ctx, f.pool, func(tx pgx.Tx) error {
		return checkpoint.Save(ctx, tx, f.stream, checkpoint.State{Position: pos(0), SchemaVersion: 1})
	}); err != nil {
		t.Fatal(err)
	}
	var txns []*model.Txn
	for i := int64(1); i <= 4; i++ {
		txns = append(txns, &model.Txn{Changes: []model.RowChange{{Op: model.Insert, Table: tbl, After: []any{i}}}})
	}
	if err := f.run(f.config(2), withPositions(txns, 1)); err != nil {
		t.Fatal(err)
	}
	equalLists(t, "t", f.dump("t", "id"), []string{"1", "2", "3", "4"})
	if n := f.appliedRows(); n != 0 {
		t.Fatalf("%d applied rows left, want the stale one deleted", n)
	}
}
