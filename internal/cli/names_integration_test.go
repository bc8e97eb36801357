package cli

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/testenv"
)

// background runs a sluice command until stop is called; stop returns its
// exit code and stderr.
func background(args ...string) (stop func() (int, string)) {
	ctx, cancel := context.WithCancel(context.Background())
	type res struct {
		code int
		err  string
	}
	done := make(chan res, 1)
	go func() {
		code, _, errOut := runCLI(ctx, args...)
		done <- res{code, errOut}
	}()
	return func() (int, string) {
		cancel()
		r := <-done
		return r.code, r.err
	}
}

// writeLoad runs inserts, updates and deletes of table (id, <col> text) in
// two goroutines until stop; update is the SET clause of the updates.
func writeLoad(t *testing.T, my *sql.DB, table, insertCols, update string, nextID *atomic.Int64) (stop func()) {
	var halt atomic.Bool
	var wg sync.WaitGroup
	var loadErr atomic.Value
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, 11))
			for !halt.Load() {
				id := nextID.Add(1)
				_, err := my.Exec(fmt.Sprintf("INSERT INTO %s %s VALUES (?, ?, ?)", table, insertCols), id, fmt.Sprint("w", id), id%7)
				if err == nil {
					_, err = my.Exec(fmt.Sprintf("UPDATE %s SET %s WHERE `Id` = ?", table, update), rng.IntN(int(id))+1)
				}
				if err == nil && rng.IntN(5) == 0 {
					_, err = my.Exec(fmt.Sprintf("DELETE FROM %s WHERE `Id` = ?", table), rng.IntN(int(id))+1)
				}
				if err != nil && !strings.Contains(err.Error(), "Deadlock") {
					loadErr.Store(err)
					return
				}
				time.Sleep(2 * time.Millisecond)
			}
		}(uint64(w))
	}
	return func() {
		halt.Store(true)
		wg.Wait()
		if err, _ := loadErr.Load().(error); err != nil {
			t.Fatalf("write load: %v", err)
		}
	}
}

// waitEqual polls until the source and target queries return the same rows.
func waitEqual(t *testing.T, env *testenv.Env, my *sql.DB, srcQ, pgQ string) {
	t.Helper()
	pg := env.PG(t)
	var src, dst []string
	for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		if _, err := pg.Exec(context.Background(), pgQ); err != nil {
			continue // the DDL that makes the query valid is not replicated yet
		}
		src = testenv.MySQLRows(t, my, srcQ)
		dst = testenv.PGRows(t, pg, pgQ)
		if reflect.DeepEqual(src, dst) {
			return
		}
	}
	t.Fatalf("target never equal to the source:\n%s: %d rows\n%s: %d rows", srcQ, len(src), pgQ, len(dst))
}

func forgetNaming(t *testing.T, env *testenv.Env, stream string) {
	forgetStream(t, env, stream)
	pg := env.PG(t)
	t.Cleanup(func() {
		_, _ = pg.Exec(context.Background(), "DELETE FROM sluice.stream_naming WHERE stream = $1", stream)
	})
}

// TestIdentifiersLower: a snapshot and a replicator under a write load with
// --identifiers lower over mixed-case tables, columns and indexes, with DDL
// mid-stream; the target is usable from unquoted SQL and equal to the
// source; verify agrees, finds damage and repairs it; a later run under
// another mapping is refused.
func TestIdentifiersLower(t *testing.T) { testenv.Flavors(t, testIdentifiersLower) }

func testIdentifiersLower(t *testing.T, env *testenv.Env) {
	db := env.NewDatabase(t, "names_lower")
	my := env.MySQL(t, db)
	if _, err := my.Exec(env.SQL("CREATE TABLE `Mixed` (`Id` INT PRIMARY KEY, `FooBar` VARCHAR(20), `Qty` INT NOT NULL, KEY `IxFoo` (`FooBar`));" +
		"INSERT INTO `Mixed` SELECT seq, CONCAT('r', seq), seq % 10 FROM seq_1_to_2000")); err != nil {
		t.Fatal(err)
	}
	if _, err := my.Exec("CREATE VIEW `MixedView` AS SELECT `Id`, `FooBar` FROM `Mixed` WHERE `Qty` > 2"); err != nil {
		t.Fatal(err)
	}
	stream := testenv.UniqueName("lower")
	forgetNaming(t, env, stream)
	src, tgt := env.SourceURL(db), env.TargetURL()
	common := []string{"--source", src, "--target", tgt, "--stream", stream, "--identifiers", "lower", "--log-level", "error"}

	var nextID atomic.Int64
	nextID.Store(2000)
	stopLoad := writeLoad(t, my, "`Mixed`", "(`Id`, `FooBar`, `Qty`)", "`Qty` = `Qty` + 1", &nextID)
	time.Sleep(200 * time.Millisecond)
	objectsSQL := filepath.Join(t.TempDir(), "objects.sql")
	if code, out, errOut := runCLI(context.Background(), append([]string{"snapshot", "--chunk-rows", "300", "--objects-sql", objectsSQL}, common...)...); code != 0 {
		stopLoad()
		t.Fatalf("snapshot: exit %d\n%s\n%s", code, out, errOut)
	}
	if b, err := os.ReadFile(objectsSQL); err != nil {
		t.Error(err)
	} else if want := `CREATE OR REPLACE VIEW "` + db + `"."mixedview" ("id", "foobar") AS`; !strings.Contains(string(b), want) ||
		!strings.Contains(string(b), `FROM "`+db+`"."mixed"`) {
		t.Errorf("--objects-sql lacks %s ... FROM %q.\"mixed\":\n%s", want, db, b)
	}
	stopRepl := background(append([]string{"replicate"}, common...)...)
	time.Sleep(time.Second)
	// DDL mid-stream, under the load.
	if _, err := my.Exec("ALTER TABLE `Mixed` ADD COLUMN `NewCol` INT DEFAULT 7, ADD INDEX `IxNew` (`NewCol`)"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	stopLoad()
	for _, s := range []string{"ALTER TABLE `Mixed` CHANGE `Qty` `Quantity` INT NOT NULL",
		"UPDATE `Mixed` SET `NewCol` = `Id` % 5, `Quantity` = `Quantity` * 2 WHERE `Id` % 3 = 0"} {
		if _, err := my.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	// Unquoted SQL on the target: the names are lower case.
	srcQ := "SELECT `Id`, `FooBar`, `Quantity`, `NewCol` FROM `Mixed` ORDER BY `Id`"
	pgQ := "SELECT id, foobar, quantity, newcol FROM " + db + ".mixed ORDER BY id"
	waitEqual(t, env, my, srcQ, pgQ)
	if code, errOut := stopRepl(); code != 0 && code != exitcode.OK {
		t.Fatalf("replicate: exit %d\n%s", code, errOut)
	}
	pg := env.PG(t)
	ix := testenv.PGRows(t, pg, "SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = 'mixed' ORDER BY 1", db)
	if want := []string{"mixed_ixfoo", "mixed_ixnew", "mixed_pkey"}; !reflect.DeepEqual(ix, want) {
		t.Errorf("target indexes %v, want %v", ix, want)
	}

	verifyArgs := []string{"verify", "--source", src, "--target", tgt, "--stream", stream, "--identifiers", "lower", "--log-level", "error"}
	if code, out, errOut := runCLI(context.Background(), verifyArgs...); code != 0 {
		t.Fatalf("verify: exit %d\n%s\n%s", code, out, errOut)
	}
	rows := testenv.MySQLRows(t, my, "SELECT `Id` FROM `Mixed` ORDER BY `Id` LIMIT 2")
	if _, err := pg.Exec(context.Background(), "UPDATE "+db+".mixed SET foobar = 'damaged' WHERE id = $1", rows[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := pg.Exec(context.Background(), "DELETE FROM "+db+".mixed WHERE id = $1", rows[1]); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := runCLI(context.Background(), verifyArgs...); code != exitcode.Failure {
		t.Fatalf("verify of a damaged target: exit %d\n%s", code, out)
	}
	repairSQL := filepath.Join(t.TempDir(), "repair.sql")
	if code, out, errOut := runCLI(context.Background(), append(verifyArgs, "--repair-sql", repairSQL)...); code != exitcode.Failure {
		t.Fatalf("verify --repair-sql: exit %d\n%s\n%s", code, out, errOut)
	}
	if b, err := os.ReadFile(repairSQL); err != nil {
		t.Error(err)
	} else if sqlText := string(b); !strings.Contains(sqlText, `"`+db+`"."mixed"`) || !strings.Contains(sqlText, `"foobar"`) ||
		strings.Contains(sqlText, "Mixed") || strings.Contains(sqlText, "FooBar") {
		t.Errorf("--repair-sql does not use the target's names:\n%s", sqlText)
	}
	if code, out, errOut := runCLI(context.Background(), append(verifyArgs, "--repair")...); code != 0 && code != exitcode.Failure {
		t.Fatalf("verify --repair: exit %d\n%s\n%s", code, out, errOut)
	}
	if code, out, errOut := runCLI(context.Background(), verifyArgs...); code != 0 {
		t.Fatalf("verify after repair: exit %d\n%s\n%s", code, out, errOut)
	}
	waitEqual(t, env, my, srcQ, pgQ)

	// Another mapping for the same stream is refused, naming the option.
	for _, cmd := range [][]string{
		{"replicate", "--source", src, "--target", tgt, "--stream", stream, "--until-caught-up"},
		{"verify", "--source", src, "--target", tgt, "--stream", stream},
	} {
		code, _, errOut := runCLI(context.Background(), cmd...)
		if code != exitcode.Config || !strings.Contains(errOut, "--identifiers (recorded lower, now preserve)") {
			t.Errorf("%s under another mapping: exit %d\n%s", cmd[0], code, errOut)
		}
	}
}

// TestIdentifiersLowerCollision: two tables that fold to one name are
// refused before anything is written, naming both and --rename; with a
// --rename of one of them the snapshot runs.
func TestIdentifiersLowerCollision(t *testing.T) {
	env := testenv.Get(t)
	db := env.NewDatabase(t, "names_coll")
	my := env.MySQL(t, db)
	if _, err := my.Exec("CREATE TABLE `Dup` (id INT PRIMARY KEY, v INT)"); err != nil {
		t.Fatal(err)
	}
	if _, err := my.Exec("CREATE TABLE `dup` (id INT PRIMARY KEY, w INT)"); err != nil {
		t.Skipf("the source folds table names (lower_case_table_names): %v", err)
	}
	if _, err := my.Exec("INSERT INTO `Dup` VALUES (1, 10), (2, 20)"); err != nil {
		t.Fatal(err)
	}
	stream := testenv.UniqueName("coll")
	forgetNaming(t, env, stream)
	args := []string{"snapshot", "--source", env.SourceURL(db), "--target", env.TargetURL(), "--stream", stream,
		"--log-level", "error"}
	t.Setenv("SLUICE_IDENTIFIERS", "lower") // the environment, as every flag
	code, _, errOut := runCLI(context.Background(), args...)
	if code != exitcode.Config {
		t.Fatalf("colliding names: exit %d\n%s", code, errOut)
	}
	for _, want := range []string{db + ".Dup", db + ".dup", "--rename"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("error lacks %q:\n%s", want, errOut)
		}
	}
	var n int
	_ = env.PG(t).QueryRow(context.Background(), "SELECT count(*) FROM pg_namespace WHERE nspname = $1", db).Scan(&n)
	if n != 0 {
		t.Errorf("the refused snapshot created schema %s", db)
	}
	// The YAML file, as every flag.
	cfg := filepath.Join(t.TempDir(), "sluice.yaml")
	if err := os.WriteFile(cfg, []byte("rename:\n  - "+db+".Dup=dup_upper\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runCLI(context.Background(), append(args, "--config", cfg)...); code != 0 {
		t.Fatalf("with --rename: exit %d\n%s\n%s", code, out, errOut)
	}
	got := testenv.PGRows(t, env.PG(t), "SELECT id, v FROM "+db+".dup_upper ORDER BY id")
	if want := []string{"1|10", "2|20"}; !reflect.DeepEqual(got, want) {
		t.Errorf("dup_upper: %v, want %v", got, want)
	}
}

// TestRenameLongTableAndColumn: a table whose name is 70 bytes is refused
// without --rename (naming it and the flag); with --rename of the table and
// of a column, snapshot, replication (rows and DDL) and verify use the new
// names.
func TestRenameLongTableAndColumn(t *testing.T) {
	env := testenv.Get(t)
	db := env.NewDatabase(t, "names_ren")
	my := env.MySQL(t, db)
	long := "t_" + strings.Repeat("é", 34) // 36 characters, 70 bytes
	if _, err := my.Exec("CREATE TABLE `" + long + "` (`Id` INT PRIMARY KEY, c VARCHAR(20), q INT, KEY kc (c))"); err != nil {
		t.Fatal(err)
	}
	if _, err := my.Exec("INSERT INTO `" + long + "` VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3)"); err != nil {
		t.Fatal(err)
	}
	stream := testenv.UniqueName("ren")
	forgetNaming(t, env, stream)
	src, tgt := env.SourceURL(db), env.TargetURL()
	base := []string{"--source", src, "--target", tgt, "--stream", stream, "--log-level", "error"}
	code, _, errOut := runCLI(context.Background(), append([]string{"snapshot"}, base...)...)
	if code != exitcode.Config || !strings.Contains(errOut, "--rename "+db+"."+long+"=") || !strings.Contains(errOut, "70 bytes") {
		t.Fatalf("70-byte table name without --rename: exit %d\n%s", code, errOut)
	}
	naming := []string{"--rename", db + "." + long + "=short_t", "--rename", db + "." + long + ".c=renamed_c"}
	common := append(append([]string{}, base...), naming...)
	if code, out, errOut := runCLI(context.Background(), append([]string{"snapshot"}, common...)...); code != 0 {
		t.Fatalf("snapshot: exit %d\n%s\n%s", code, out, errOut)
	}
	stop := background(append([]string{"replicate"}, common...)...)
	for _, s := range []string{
		"INSERT INTO `" + long + "` VALUES (4, 'd', 4)",
		"UPDATE `" + long + "` SET c = 'bb', q = 20 WHERE `Id` = 2",
		"DELETE FROM `" + long + "` WHERE `Id` = 1",
		"ALTER TABLE `" + long + "` MODIFY c VARCHAR(50), ADD COLUMN extra INT DEFAULT 5",
		"INSERT INTO `" + long + "` VALUES (5, 'a longer value than twenty', 5, 9)",
	} {
		if _, err := my.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	waitEqual(t, env, my, "SELECT `Id`, c, q, extra FROM `"+long+"` ORDER BY `Id`",
		`SELECT "Id", renamed_c, q, extra FROM `+db+".short_t ORDER BY 1")
	if code, errOut := stop(); code != 0 {
		t.Fatalf("replicate: exit %d\n%s", code, errOut)
	}
	ix := testenv.PGRows(t, env.PG(t), "SELECT indexname FROM pg_indexes WHERE schemaname = $1 ORDER BY 1", db)
	if want := []string{"short_t_kc", "short_t_pkey"}; !reflect.DeepEqual(ix, want) {
		t.Errorf("target indexes %v, want %v", ix, want)
	}
	if code, out, errOut := runCLI(context.Background(), append([]string{"verify"}, common...)...); code != 0 {
		t.Fatalf("verify: exit %d\n%s\n%s", code, out, errOut)
	}
	if code, out, errOut := runCLI(context.Background(), "status", "--target", tgt, "--stream", stream); code != 0 ||
		!strings.Contains(out, "names:") || !strings.Contains(out, db+"."+long+"=short_t") {
		t.Errorf("status does not show the stream's names: exit %d\n%s\n%s", code, out, errOut)
	}
	// Without the column rename the stream is refused.
	code, _, errOut = runCLI(context.Background(), append(append([]string{"replicate", "--until-caught-up"}, base...),
		"--rename", db+"."+long+"=short_t")...)
	if code != exitcode.Config || !strings.Contains(errOut, "--rename (recorded") {
		t.Errorf("replicate with another --rename: exit %d\n%s", code, errOut)
	}
}

// TestExcludeColumns: an excluded column does not exist on the target; the
// snapshot does not copy it, replication of inserts, updates and deletes
// leaves its values out, DDL on it changes nothing on the target, a column
// added later under its own --exclude-columns entry is not added, verify
// compares the other columns; excluding a key column is refused.
func TestExcludeColumns(t *testing.T) { testenv.Flavors(t, testExcludeColumns) }

func testExcludeColumns(t *testing.T, env *testenv.Env) {
	db := env.NewDatabase(t, "names_excl")
	my := env.MySQL(t, db)
	if _, err := my.Exec(env.SQL("CREATE TABLE acct (`Id` INT PRIMARY KEY, keep VARCHAR(20), secret VARCHAR(20), KEY ks (secret));" +
		"INSERT INTO acct SELECT seq, CONCAT('k', seq), CONCAT('s', seq) FROM seq_1_to_500")); err != nil {
		t.Fatal(err)
	}
	stream := testenv.UniqueName("excl")
	forgetNaming(t, env, stream)
	src, tgt := env.SourceURL(db), env.TargetURL()
	base := []string{"--source", src, "--target", tgt, "--stream", stream, "--log-level", "error"}
	code, _, errOut := runCLI(context.Background(), append(append([]string{"snapshot"}, base...), "--exclude-columns", db+".acct.Id")...)
	if code != exitcode.Config || !strings.Contains(errOut, "primary key") {
		t.Fatalf("excluding the primary key: exit %d\n%s", code, errOut)
	}
	common := append(append([]string{}, base...), "--exclude-columns", db+".acct.secret", "--exclude-columns", db+".acct.later")
	var nextID atomic.Int64
	nextID.Store(500)
	stopLoad := writeLoad(t, my, "acct", "(`Id`, keep, secret)", "keep = CONCAT(keep, 'u'), secret = 'changed'", &nextID)
	if code, out, errOut := runCLI(context.Background(), append([]string{"snapshot", "--chunk-rows", "100"}, common...)...); code != 0 {
		stopLoad()
		t.Fatalf("snapshot: exit %d\n%s\n%s", code, out, errOut)
	}
	stop := background(append([]string{"replicate"}, common...)...)
	time.Sleep(500 * time.Millisecond)
	stopLoad()
	for _, s := range []string{
		"ALTER TABLE acct MODIFY secret VARCHAR(200)",
		"UPDATE acct SET secret = REPEAT('x', 150) WHERE `Id` < 10",
		"ALTER TABLE acct ADD COLUMN later INT DEFAULT 3",
		"UPDATE acct SET later = 4, keep = 'after' WHERE `Id` % 7 = 0",
		"ALTER TABLE acct DROP COLUMN secret",
		"INSERT INTO acct (`Id`, keep, later) VALUES (100000, 'last', 1)",
		"DELETE FROM acct WHERE `Id` % 11 = 0",
	} {
		if _, err := my.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	waitEqual(t, env, my, "SELECT `Id`, keep FROM acct ORDER BY `Id`", "SELECT \"Id\", keep FROM "+db+".acct ORDER BY 1")
	if code, errOut := stop(); code != 0 {
		t.Fatalf("replicate: exit %d\n%s", code, errOut)
	}
	cols := testenv.PGRows(t, env.PG(t), "SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'acct' ORDER BY ordinal_position", db)
	if want := []string{"Id", "keep"}; !reflect.DeepEqual(cols, want) {
		t.Errorf("target columns %v, want %v", cols, want)
	}
	if code, out, errOut := runCLI(context.Background(), append([]string{"verify"}, common...)...); code != 0 {
		t.Fatalf("verify: exit %d\n%s\n%s", code, out, errOut)
	}
	code, _, errOut = runCLI(context.Background(), append([]string{"verify"}, base...)...)
	if code != exitcode.Config || !strings.Contains(errOut, "--exclude-columns (recorded") {
		t.Errorf("verify without --exclude-columns: exit %d\n%s", code, errOut)
	}
}

// TestNamingOptionsRefusedForMySQLTarget: a MySQL target keeps the source's
// names; --identifiers lower, --rename and --exclude-columns are refused.
func TestNamingOptionsRefusedForMySQLTarget(t *testing.T) {
	env := testenv.Get(t)
	db := env.NewDatabase(t, "names_my")
	my := env.MySQL(t, db)
	if _, err := my.Exec("CREATE TABLE t (id INT PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	mt := env.MySQLTarget(t)
	tdb := testenv.UniqueName("names_mytgt")
	mt.NewDatabase(t, tdb)
	for _, opt := range [][]string{{"--identifiers", "lower"}, {"--rename", db + ".t=u"}, {"--exclude-columns", db + ".t.id"}} {
		code, _, errOut := runCLI(context.Background(), append([]string{"snapshot", "--source", env.SourceURL(db),
			"--target", mt.URL(tdb), "--stream", testenv.UniqueName("namesmy"), "--log-level", "error"}, opt...)...)
		if code != exitcode.Config || !strings.Contains(errOut, "not supported for a MySQL target") {
			t.Errorf("%v: exit %d\n%s", opt, code, errOut)
		}
	}
}

// TestIdentifiersLowerForeignKeys: foreign keys (and their actions, which
// the binlog does not carry) follow --identifiers lower: the constraint is
// created between the lower-cased tables and columns, and a parent deleted
// on the source takes its children on the target.
func TestIdentifiersLowerForeignKeys(t *testing.T) {
	env := testenv.Get(t)
	db := env.NewDatabase(t, "names_fk")
	my := env.MySQL(t, db)
	for _, s := range []string{
		"CREATE TABLE `Parent` (`PId` INT PRIMARY KEY, `Label` VARCHAR(10))",
		"CREATE TABLE `Child` (`CId` INT PRIMARY KEY, `ParentId` INT, CONSTRAINT `FkParent` FOREIGN KEY (`ParentId`) REFERENCES `Parent` (`PId`) ON DELETE CASCADE)",
		"INSERT INTO `Parent` VALUES (1, 'a'), (2, 'b'), (3, 'c')",
		"INSERT INTO `Child` VALUES (10, 1), (11, 1), (20, 2), (30, 3)",
	} {
		if _, err := my.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	stream := testenv.UniqueName("fk")
	forgetNaming(t, env, stream)
	common := []string{"--source", env.SourceURL(db), "--target", env.TargetURL(), "--stream", stream,
		"--identifiers", "lower", "--log-level", "error"}
	if code, out, errOut := runCLI(context.Background(), append([]string{"snapshot"}, common...)...); code != 0 {
		t.Fatalf("snapshot: exit %d\n%s\n%s", code, out, errOut)
	}
	fks := testenv.PGRows(t, env.PG(t), `SELECT conname::text, pg_get_constraintdef(oid) FROM pg_constraint
		WHERE contype = 'f' AND connamespace = $1::regnamespace`, db)
	if want := "fkparent|FOREIGN KEY (parentid) REFERENCES " + db + ".parent(pid)"; len(fks) != 1 ||
		!strings.HasPrefix(fks[0], want) || !strings.Contains(fks[0], "ON DELETE CASCADE") {
		t.Errorf("target foreign keys %v, want %s ... ON DELETE CASCADE", fks, want)
	}
	stop := background(append([]string{"replicate"}, common...)...)
	for _, s := range []string{"DELETE FROM `Parent` WHERE `PId` = 1", "INSERT INTO `Child` VALUES (31, 3)",
		"UPDATE `Parent` SET `Label` = 'cc' WHERE `PId` = 3"} {
		if _, err := my.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	waitEqual(t, env, my, "SELECT `CId`, `ParentId` FROM `Child` ORDER BY 1", "SELECT cid, parentid FROM "+db+".child ORDER BY 1")
	waitEqual(t, env, my, "SELECT `PId`, `Label` FROM `Parent` ORDER BY 1", "SELECT pid, label FROM "+db+".parent ORDER BY 1")
	if code, errOut := stop(); code != 0 {
		t.Fatalf("replicate: exit %d\n%s", code, errOut)
	}
}
