package realworld

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sluice-db/sluice/internal/cutover"
	"github.com/sluice-db/sluice/internal/testenv"
)

// lowerArgs are the naming options of the --identifiers lower runs.
var lowerArgs = []string{"--identifiers", "lower"}

// pgSQL is an application statement for the PostgreSQL target as written for
// m's naming: under --identifiers lower every double-quoted identifier is
// lower-cased (what the application's SQL says after the move to unquoted,
// lower-case names); string literals are left alone.
func (m migrated) pgSQL(q string) string {
	if !m.lower() {
		return q
	}
	var b strings.Builder
	inStr, inIdent := false, false
	for _, r := range q {
		switch {
		case inStr:
			inStr = r != '\''
		case inIdent:
			inIdent = r != '"'
			if inIdent {
				r = []rune(strings.ToLower(string(r)))[0]
			}
		case r == '\'':
			inStr = true
		case r == '"':
			inIdent = true
		}
		b.WriteRune(r)
	}
	return b.String()
}

// namedTx runs an application's statements under m's naming (pgSQL).
type namedTx struct {
	pgx.Tx
	m migrated
}

func (tx namedTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	return tx.Tx.Exec(ctx, tx.m.pgSQL(sql), args...)
}

func (tx namedTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	return tx.Tx.Query(ctx, tx.m.pgSQL(sql), args...)
}

func (tx namedTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return tx.Tx.QueryRow(ctx, tx.m.pgSQL(sql), args...)
}

// TestLowerNamesShop runs the shop (tables "OrderItems" and "price history",
// columns "SKU" and "Größe", reserved words) with --identifiers lower into
// PostgreSQL: migrate under the load, verify, every value compared under the
// lower-cased names, damage repaired, then the cut-over and the way back
// with the application's writes on the lower-cased schema.
func TestLowerNamesShop(t *testing.T) {
	t.Parallel()
	s := shopScenario(testenv.Get(t))
	s.prefix = "rw_lshop"
	s.extraArgs = lowerArgs
	m := s.run(t)
	requireLowerSchema(t, m)
	compareShop(t, m)
	if t.Failed() {
		return
	}
	repairShop(t, m)
	compareShop(t, m)
	wayBack(t, m, wayBackLoad{write: shopPGWrite, minWrites: 100, proof: "SELECT count(*) FROM `order` WHERE customer_email LIKE 'pg%'",
		prepare:  requireReverseNamingChecked,
		fallback: []string{"INSERT INTO `order` () VALUES ()", "INSERT INTO category (name) VALUES ('after fallback')"}})
	requireCutover(t, m, `INSERT INTO `+m.pgq("order")+` DEFAULT VALUES`, `INSERT INTO `+m.pgq("OrderItems")+
		` (order_id, line_no, sku, qty, price) SELECT max(order_id), 99, 'x', 1, 1 FROM `+m.pgq("order"))
}

// requireLowerSchema requires every table and column of the scenario's
// schema on PostgreSQL to be named in lower case, and the source to have
// upper-case names (the run's point).
func requireLowerSchema(t *testing.T, m migrated) {
	t.Helper()
	upper := testenv.PGTexts(t, m.pg, `SELECT table_name || '.' || column_name FROM information_schema.columns
		WHERE table_schema = $1 AND (table_name <> lower(table_name) OR column_name <> lower(column_name))`, m.db)
	for _, r := range upper {
		t.Errorf("not lower-cased on PostgreSQL: %s", *r[0])
	}
	if n := testenv.MySQLRows(t, m.my, `SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ?
		AND BINARY COLUMN_NAME <> BINARY LOWER(COLUMN_NAME)`, m.db); len(n) == 0 {
		t.Errorf("the source has no upper-case column names: the test lost its point")
	}
}

// TestLowerNamesNextcloud runs Nextcloud on MySQL 9.7 with --identifiers
// lower: the `Window` table of SQL quirks (reserved words and mixed case as
// column names, generated columns and DEFAULT expressions over them, ENUM
// with a quote) arrives lower-cased, every value compared, damage repaired,
// then the cut-over and the way back with Nextcloud's writes.
func TestLowerNamesNextcloud(t *testing.T) {
	t.Parallel()
	s := nextcloudScenario(testenv.GetFlavor(t, testenv.MySQL))
	s.prefix = "rw_lnc"
	s.extraArgs = lowerArgs
	m, ok := appPath(t, s, func(t *testing.T, m migrated) {
		requireLowerSchema(t, m)
		compareNextcloud(t, m)
	}, func(q func(string) string) ([]string, []string) {
		return []string{
			`UPDATE ` + q("Window") + ` SET "state" = 'it''s done', "Limit" = 0 WHERE "ID" = (SELECT min("ID") FROM ` + q("Window") + `)`,
			`DELETE FROM ` + q("oc_calendarobjects") + ` WHERE id = (SELECT min(id) FROM ` + q("oc_calendarobjects") + `)`,
		}, []string{"Window", "oc_calendarobjects"}
	}, wayBackLoad{write: nextcloudPGWrite, minWrites: 100, proof: "SELECT count(*) FROM oc_filecache WHERE path LIKE 'files/PG/%'",
		fallback: []string{"INSERT INTO `Window` (`Select`, `Price`) VALUES ('after fallback', 1)"}})
	if !ok {
		return
	}
	// The application's SQL after the move: unquoted names.
	requireCutover(t, m, `INSERT INTO `+m.db+`.window ("select", price) VALUES ('cut-over', 2.5)`)
	var n int
	if err := m.pg.QueryRow(t.Context(), `SELECT count(*) FROM `+m.db+`.window WHERE "select" = 'cut-over'
		AND "limit" = 100 AND total = 2.5 AND state = '' AND "group" = 'all' AND label = 'cut-over/'
		AND expires > LOCALTIMESTAMP + interval '23 hours' AND length(token) = 36`).Scan(&n); err != nil || n != 1 {
		t.Errorf("the lower-cased target's defaults and generated columns after a cut-over: %d rows (%v)", n, err)
	}
}

// TestLowerNamesWordPress runs WordPress with --identifiers lower plus a
// renamed table and column (--rename): the "ID" columns become id,
// wp_users is blog_users with display_name as public_name; migrate, verify,
// compare, repair, then the way back into the original names.
func TestLowerNamesWordPress(t *testing.T) {
	t.Parallel()
	s := wordpressScenario(testenv.Get(t))
	s.prefix = "rw_lwp"
	s.extraArgs = append(slices.Clone(lowerArgs), "--rename", "{db}.wp_users=blog_users", "--rename", "{db}.wp_users.display_name=public_name")
	// Not appPath: WordPress's zero-date defaults are dropped with a warning
	// (PostgreSQL has no zero dates; TestWordPress).
	m := s.run(t)
	requireLowerSchema(t, m)
	compareWordPress(t, m)
	if t.Failed() {
		return
	}
	q := m.pgq
	damageAndRepair(t, m, []string{
		`UPDATE ` + q("wp_comments") + ` SET comment_date_gmt = '-infinity'
			WHERE "comment_ID" = (SELECT max("comment_ID") FROM ` + q("wp_comments") + ` WHERE comment_date_gmt <> '-infinity')`,
		`UPDATE ` + q("wp_users") + ` SET public_name = 'X' WHERE id = (SELECT min(id) FROM ` + q("wp_users") + `)`,
	}, "wp_comments", "wp_users")
	compareWordPress(t, m)
	wayBack(t, m, wayBackLoad{write: wordpressPGWrite, minWrites: 100, proof: "SELECT count(*) FROM wp_posts WHERE post_content LIKE 'PG draft %'",
		fallback: []string{"INSERT INTO wp_options (option_name, option_value) VALUES ('after_fallback', 'x')"}})
	var n int
	if err := m.pg.QueryRow(t.Context(), `SELECT count(*) FROM `+m.db+`.blog_users WHERE public_name LIKE 'Ünïcode Üser %'`).Scan(&n); err != nil || n < 20 {
		t.Errorf("the renamed table and column: %d rows (%v)", n, err)
	}
	requireCutover(t, m, `INSERT INTO `+m.db+`.blog_users (user_login, public_name, user_registered) VALUES ('cutover', 'After Cut-over', now())`)
}

// requireReverseNamingChecked: after the cut-over, a reverse stream started
// without the forward stream's --identifiers lower is refused (exit 2)
// naming the option; it would not find "OrderItems" on PostgreSQL and would
// leave the table's writes behind.
func requireReverseNamingChecked(t *testing.T, m migrated) {
	t.Helper()
	bin := testenv.SluiceBinary(t)
	logPath := filepath.Join(t.TempDir(), "reverse-naming.log")
	code := runSluice(t, bin, logPath, "replicate", "--source", m.targetURL, "--target", m.sourceURL,
		"--stream", cutover.DefaultReverseStream(m.stream), "--until-caught-up", "--log-level", "warn")
	if out := tailFile(logPath, 20); code != 2 || !strings.Contains(out, "--identifiers (recorded lower, now preserve)") {
		t.Errorf("reverse stream under another naming: exit %d, want 2 naming --identifiers\n%s", code, out)
	}
}

// TestLowerNamesCollisionMidStream: under --identifiers lower, a table
// created mid-stream whose name folds to an existing one (`Orders` beside
// `orders`, as an application's upgrade script may do) stops replication
// naming both tables and the ways on; nothing of it reaches the existing
// PostgreSQL table, and a replicate run that leaves the new table out
// (--exclude) carries the stream on.
func TestLowerNamesCollisionMidStream(t *testing.T) {
	t.Parallel()
	env := testenv.Get(t)
	db := env.NewDatabase(t, "rw_lcoll")
	my := openSource(t, env, db, "")
	if _, err := my.Exec("CREATE TABLE orders (id INT PRIMARY KEY, v VARCHAR(20)); INSERT INTO orders VALUES (1, 'a'), (2, 'b')"); err != nil {
		t.Fatal(err)
	}
	stream := testenv.UniqueName("rw")
	forgetStream(t, env, stream)
	bin := testenv.SluiceBinary(t)
	logPath := filepath.Join(t.TempDir(), "sluice.log")
	common := []string{"--source", env.SourceURL(db), "--target", env.TargetURL(), "--include", db, "--stream", stream,
		"--log-level", "warn", "--identifiers", "lower"}
	if code := runSluice(t, bin, logPath, append([]string{"migrate", "--until-caught-up"}, common...)...); code != 0 {
		t.Fatalf("migrate: exit %d\n%s", code, tailFile(logPath, 40))
	}
	if _, err := my.Exec("CREATE TABLE `Orders` (id INT PRIMARY KEY, w INT); INSERT INTO `Orders` VALUES (1, 100), (3, 300); " +
		"UPDATE orders SET v = 'after' WHERE id = 2"); err != nil {
		t.Skipf("the source folds table names: %v", err)
	}
	code := runSluice(t, bin, logPath, append([]string{"replicate", "--until-caught-up"}, common...)...)
	out := tailFile(logPath, 30)
	if code != 2 || !strings.Contains(out, db+".Orders") || !strings.Contains(out, "--exclude") {
		t.Fatalf("a colliding table mid-stream: exit %d, want an error naming %s.Orders and --rename\n%s", code, db, out)
	}
	pg := env.PG(t)
	if got := testenv.PGRows(t, pg, "SELECT id, v FROM "+db+".orders ORDER BY id"); strings.Join(got, ",") != "1|a,2|b" {
		t.Errorf("orders on PostgreSQL after the refusal: %v", got)
	}
	// The way on the error names: the table that came later left out.
	excluded := append(slices.Clone(common), "--exclude", db+".Orders")
	if code := runSluice(t, bin, logPath, append([]string{"replicate", "--until-caught-up"}, excluded...)...); code != 0 {
		t.Fatalf("replicate with the new table excluded: exit %d\n%s", code, tailFile(logPath, 20))
	}
	if got := testenv.PGRows(t, pg, "SELECT id, v FROM "+db+".orders ORDER BY id"); strings.Join(got, ",") != "1|a,2|after" {
		t.Errorf("orders on PostgreSQL after replicate with the new table excluded: %v", got)
	}
}

// TestLowerNamesMagento runs Magento 2 with --identifiers lower (its index
// and foreign key names are upper case, many over 63 bytes with the table's
// name) and --exclude-columns for the customers' password reset tokens:
// migrate, verify, every kept value compared, damage repaired, the cut-over;
// then the way back is refused up front (the excluded column has no value to
// carry back), naming --exclude-columns.
func TestLowerNamesMagento(t *testing.T) {
	t.Parallel()
	s := magentoScenario(testenv.Get(t))
	s.prefix = "rw_lmage"
	s.extraArgs = append(slices.Clone(lowerArgs), "--exclude-columns", "{db}.customer_entity.rp_token")
	m := s.run(t)
	requireNoWarningsAbout(t, m, "default", "generated column expression", "not created")
	compareMagento(t, m)
	if n := testenv.PGTexts(t, m.pg, `SELECT count(*)::text FROM pg_indexes WHERE schemaname = $1 AND indexname <> lower(indexname)`, m.db); *n[0][0] != "0" {
		t.Errorf("%s indexes not lower-cased", *n[0][0])
	}
	if n := testenv.PGTexts(t, m.pg, `SELECT count(*)::text FROM information_schema.columns WHERE table_schema = $1 AND column_name = 'rp_token'`, m.db); *n[0][0] != "0" {
		t.Errorf("the excluded column is on the target")
	}
	if t.Failed() {
		return
	}
	q := m.pgq
	damageAndRepair(t, m, []string{
		`UPDATE ` + q("customer_entity") + ` SET lastname = 'X' WHERE entity_id = (SELECT min(entity_id) FROM ` + q("customer_entity") + `)`,
	}, "customer_entity")
	bin := testenv.SluiceBinary(t)
	logPath := filepath.Join(t.TempDir(), "cutover.log")
	rev := cutover.DefaultReverseStream(m.stream)
	forgetWayBack(t, m, rev)
	if code := runSluice(t, bin, logPath, append([]string{"cutover", "--source", m.sourceURL, "--target", m.targetURL,
		"--include", m.db, "--stream", m.stream, "--quiet-for", "1s", "--log-level", "warn"}, m.naming...)...); code != 0 {
		t.Fatalf("cutover: exit %d\n%s", code, tailFile(logPath, 40))
	}
	code := runSluice(t, bin, logPath, append([]string{"replicate", "--source", m.targetURL, "--target", m.sourceURL,
		"--stream", rev, "--until-caught-up", "--log-level", "warn"}, m.naming...)...)
	if out := tailFile(logPath, 10); code != 2 || !strings.Contains(out, "--exclude-columns does not apply to the reverse stream") {
		t.Errorf("the way back with an excluded column: exit %d, want 2 naming --exclude-columns\n%s", code, out)
	}
	requireCutover(t, m, `INSERT INTO `+q("customer_entity")+` (email, firstname) VALUES ('after@example.com', 'After')`)
}
