package cli

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestMigrateGIPKIntoMySQL9: a MySQL 9.7 source whose keyless table got a
// generated invisible primary key (sql_generate_invisible_primary_key) is
// migrated into a MySQL 9.7 target with the key kept invisible, rows equal
// (my_row_id included), then replicated (multi-row UPDATE and DELETE in
// compressed transactions) and verified equal. A VECTOR column goes along
// byte for byte, and verify finds and repairs a changed VECTOR value.
func TestMigrateGIPKIntoMySQL9(t *testing.T) {
	testenv.MySQLToMySQL9(t, func(t *testing.T, env *testenv.Env) {
		tgt := env.MySQLTarget(t)
		db := env.NewDatabase(t, "cli_gipk")
		tdb := db + "_copy"
		tgt.DropAtEnd(t, tdb)
		admin := tgt.Admin(t)
		stream := testenv.UniqueName("gipk")
		t.Cleanup(func() { _ = mysqlstate.Delete(context.Background(), admin, stream) })
		my := env.MySQL(t, db)
		if _, err := my.Exec(`SET SESSION sql_generate_invisible_primary_key = ON;
			CREATE TABLE k (a INT, b VARCHAR(10), j JSON);
			SET SESSION sql_generate_invisible_primary_key = OFF;
			INSERT INTO k (a, b, j) VALUES (1, 'x', '{"n": 1.5}'), (1, 'x', NULL), (2, 'y', '[1, 2]'), (3, NULL, '{}');
			CREATE TABLE v (id INT PRIMARY KEY, v VECTOR(3));
			INSERT INTO v VALUES (1, TO_VECTOR('[1, 2.5, -3]')), (2, NULL)`); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		code, _, errOut := runCLI(ctx, "migrate", "--source", env.SourceURL(db), "--target", tgt.URL(tdb), "--stream", stream,
			"--until-caught-up", "--log-level", "warn")
		if code != 0 {
			t.Fatalf("migrate: exit %d\n%s", code, errOut)
		}
		// Compressed in the binlog (TRANSACTION_PAYLOAD_EVENT), as a server
		// with binlog_transaction_compression=ON writes them.
		if _, err := my.Exec(`SET SESSION binlog_transaction_compression = ON; UPDATE k SET b = 'z' WHERE a = 1; DELETE FROM k WHERE a = 2; INSERT INTO k (a) VALUES (4), (5);
			INSERT INTO v VALUES (3, TO_VECTOR('[0.1, 0, 1e10]')); UPDATE v SET v = TO_VECTOR('[9, 8, 7]') WHERE id = 1`); err != nil {
			t.Fatal(err)
		}
		if code, _, errOut = runCLI(ctx, "replicate", "--source", env.SourceURL(db), "--target", tgt.URL(tdb), "--stream", stream,
			"--until-caught-up", "--log-level", "warn"); code != 0 {
			t.Fatalf("replicate: exit %d\n%s", code, errOut)
		}
		verify := func(extra ...string) (int, string) {
			code, out, errOut := runCLI(ctx, append([]string{"verify", "--source", env.SourceURL(db), "--target", tgt.URL(tdb), "--log-level", "warn"}, extra...)...)
			return code, out + errOut
		}
		if code, out := verify(); code != 0 {
			t.Fatalf("verify: exit %d\n%s", code, out)
		}
		// A VECTOR value changed on the target is found and repaired by its bytes.
		if _, err := admin.Exec("UPDATE `" + tdb + "`.v SET v = TO_VECTOR('[9, 8, 7.0001]') WHERE id = 1"); err != nil {
			t.Fatal(err)
		}
		if code, out := verify(); code != 1 || !strings.Contains(out, "id=1") {
			t.Fatalf("verify of a changed VECTOR: exit %d, want 1 naming id=1\n%s", code, out)
		}
		if code, out := verify("--repair"); code != 0 && code != 1 {
			t.Fatalf("verify --repair: exit %d\n%s", code, out)
		}
		if code, out := verify(); code != 0 {
			t.Fatalf("verify after the repair: exit %d\n%s", code, out)
		}
		q := "SELECT my_row_id, a, b, j FROM %s.k ORDER BY my_row_id"
		src := testenv.MySQLRows(t, my, fmt.Sprintf(q, "`"+db+"`"))
		dst := testenv.MySQLRows(t, admin, fmt.Sprintf(q, "`"+tdb+"`"))
		if fmt.Sprint(src) != fmt.Sprint(dst) || len(src) != 5 {
			t.Errorf("rows differ:\n source %v\n target %v", src, dst)
		}
		vq := "SELECT id, HEX(v) FROM %s.v ORDER BY id"
		if src, dst := testenv.MySQLRows(t, my, fmt.Sprintf(vq, "`"+db+"`")), testenv.MySQLRows(t, admin, fmt.Sprintf(vq, "`"+tdb+"`")); fmt.Sprint(src) != fmt.Sprint(dst) || len(src) != 3 {
			t.Errorf("VECTOR rows differ:\n source %v\n target %v", src, dst)
		}
		var extra string
		if err := admin.QueryRow(`SELECT EXTRA FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'k' AND COLUMN_NAME = 'my_row_id'`, tdb).Scan(&extra); err != nil || !strings.Contains(extra, "INVISIBLE") {
			t.Errorf("target my_row_id EXTRA %q (%v), want INVISIBLE", extra, err)
		}
	})
}
