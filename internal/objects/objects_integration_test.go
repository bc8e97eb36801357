package objects_test

import (
	"context"
	"database/sql"
	pgsink "github.com/sluice-db/sluice/internal/sink/postgres"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/objects"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/snapshot"
	"github.com/sluice-db/sluice/internal/testenv"
)

// fixture is a source database with tables, rows and every kind of object.
var fixture = []string{
	`CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(50) NOT NULL, nick VARCHAR(20), email VARCHAR(100),
		born DATE, vip TINYINT NOT NULL DEFAULT 0, balance DECIMAL(10,2),
		label VARCHAR(80) AS (CONCAT_WS(' ', name, nick)) VIRTUAL,
		name_len INT AS (CHAR_LENGTH(name)) STORED)`,
	`CREATE TABLE orders (id INT PRIMARY KEY, customer_id INT NOT NULL, amount DECIMAL(10,2) NOT NULL,
		placed DATETIME NOT NULL, note VARCHAR(50))`,
	`CREATE TABLE audit (id INT AUTO_INCREMENT PRIMARY KEY, order_id INT, old_amount DECIMAL(10,2))`,
	`INSERT INTO customers (id, name, nick, email, born, vip, balance) VALUES
		(1, 'Ada', 'ada', 'ada@mail.example.com', '1815-12-10', 1, 10.50),
		(2, 'Bob', NULL, 'bob@example.org', '1990-01-01', 0, NULL),
		(3, 'Cy', 'cy', NULL, NULL, 2, 3.25),
		(4, 'Dee', NULL, 'no-at-sign', '2000-02-29', 0, 0.00)`,
	`INSERT INTO orders VALUES
		(10, 1, 12.00, '2024-01-02 03:04:05', 'gift'),
		(11, 1, 30.50, '2024-02-03 13:14:15', NULL),
		(12, 2, 4.99, '2024-03-04 23:59:59', 'rush'),
		(13, 3, 7.00, '2024-12-31 00:00:00', 'gift'),
		(14, 2, 99.00, '2025-06-07 08:09:10', 'bulk')`,
	`CREATE VIEW v_contact AS SELECT id, IFNULL(nick, '(none)') AS nick, CONCAT_WS(' / ', name, nick, email) AS contact,
		CONCAT(name, ' <', email, '>') AS addr, SUBSTRING_INDEX(email, '@', -1) AS domain,
		SUBSTRING_INDEX(email, '.', 2) AS head, SUBSTRING_INDEX(email, '.', -2) AS tail,
		SUBSTRING_INDEX(email, '@', 1) AS local_part,
		DATE_FORMAT(born, '%d/%m/%Y (%W, %M %e, %a %b %D) %j') AS born_text,
		IF(vip, 'vip', 'regular') AS tier, vip > 0 AS is_vip, UPPER(name) AS shout, balance FROM customers`,
	`CREATE VIEW v_orders AS SELECT c.id AS customer_id, c.name, o.id AS order_id, o.amount,
		DATE_FORMAT(o.placed, '%Y-%m-%d %H:%i:%s %p %h') AS placed_at, o.amount * 2 AS twice,
		YEAR(o.placed) AS y, DATE(o.placed) + INTERVAL 1 MONTH AS next_month,
		CASE WHEN o.amount >= 30 THEN 'big' WHEN o.amount >= 10 THEN 'mid' ELSE 'small' END AS size
		FROM customers c JOIN orders o ON o.customer_id = c.id WHERE o.amount > 5`,
	`CREATE VIEW v_totals AS SELECT c.id AS customer_id, c.name, COUNT(o.id) AS n, SUM(o.amount) AS total,
		GROUP_CONCAT(o.id ORDER BY o.id SEPARATOR ';') AS order_ids, GROUP_CONCAT(DISTINCT o.note ORDER BY o.note) AS notes,
		AVG(o.amount) AS mean
		FROM customers c LEFT JOIN orders o ON o.customer_id = c.id GROUP BY c.id, c.name`,
	`CREATE VIEW v_big AS SELECT customer_id, name, total FROM v_totals WHERE total > 20 ORDER BY total DESC LIMIT 2`,
	`CREATE VIEW v_union AS SELECT id, name FROM customers WHERE vip = 1 UNION SELECT id, name FROM customers WHERE balance IS NULL`,
	`CREATE VIEW v_derived AS SELECT d.cid, d.cnt FROM (SELECT customer_id AS cid, COUNT(*) AS cnt FROM orders GROUP BY customer_id) d
		WHERE d.cnt > 1`,
	`CREATE VIEW v_sub AS SELECT c.id, c.name, (SELECT MAX(amount) FROM orders o WHERE o.customer_id = c.id) AS max_amount,
		EXISTS (SELECT 1 FROM orders o2 WHERE o2.customer_id = c.id AND o2.note = 'gift') AS has_gift
		FROM customers c WHERE c.id IN (SELECT customer_id FROM orders)`,
	`CREATE VIEW v_misc AS SELECT id, LEFT(name, 2) AS l, LPAD(id, 4, '0') AS p, REPLACE(email, '.', '_') AS r,
		LOCATE('@', email) AS at_pos, ROUND(balance, 1) AS rb, DATEDIFF('2025-01-01', born) AS age_days, LENGTH(name) AS len,
		MONTHNAME(born) AS mn, DAYOFWEEK(born) AS dw, born BETWEEN '1900-01-01' AND '2000-01-01' AS bt,
		name LIKE 'a%' AS starts_a, balance / 4 AS q, id DIV 2 AS half, id % 3 AS m3, TRIM(BOTH 'x' FROM 'xxaxx') AS t,
		CAST(balance AS SIGNED) AS bi, CAST(id AS CHAR) AS s, born + INTERVAL 10 DAY AS later FROM customers`,
	`CREATE VIEW v_cte AS WITH big AS (SELECT customer_id, amount FROM orders WHERE amount > 10)
		SELECT customer_id, SUM(amount) AS s, COUNT(*) AS n FROM big GROUP BY customer_id`,
	`CREATE TABLE gone (id INT)`,
	`CREATE VIEW v_broken AS SELECT id FROM gone`,
	`DROP TABLE gone`,
	`CREATE FUNCTION f_tax(x DECIMAL(10,2)) RETURNS DECIMAL(10,2) DETERMINISTIC RETURN x * 1.2`,
	`CREATE PROCEDURE p_purge(IN days INT) BEGIN DELETE FROM orders WHERE placed < NOW() - INTERVAL days DAY; END`,
	`CREATE VIEW v_taxed AS SELECT id, f_tax(amount) AS gross FROM orders`,
	`CREATE VIEW v_taxed_big AS SELECT id FROM v_taxed WHERE gross > 10`,
	`CREATE VIEW v_week AS SELECT id, DATE_FORMAT(placed, '%U') AS wk FROM orders`,
	`CREATE TRIGGER t_note BEFORE INSERT ON orders FOR EACH ROW SET NEW.note = IFNULL(NEW.note, CONCAT('order ', NEW.id))`,
	`CREATE TRIGGER t_audit AFTER UPDATE ON orders FOR EACH ROW BEGIN
		IF NEW.amount <> OLD.amount THEN INSERT INTO audit (order_id, old_amount) VALUES (OLD.id, OLD.amount); END IF;
	END`,
	`CREATE EVENT e_purge ON SCHEDULE EVERY 1 DAY DISABLE DO CALL p_purge(365)`,
}

// TestObjectsSQL: views, triggers, routines, an event and generated
// columns of MariaDB and of MySQL; the file runs twice under psql, each
// translated view returns MySQL's rows value for value, the translated
// trigger computes what MySQL's does, and every object that is not
// translated says why.
func TestObjectsSQL(t *testing.T) { testenv.Flavors(t, testObjectsSQL) }

func testObjectsSQL(t *testing.T, env *testenv.Env) {
	ctx := context.Background()
	db := env.NewDatabase(t, "objs")
	my := env.MySQL(t, db)
	for _, q := range fixture {
		if _, err := my.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	src, err := config.ParseSource(env.SourceURL(db))
	if err != nil {
		t.Fatal(err)
	}
	dst, err := config.ParseTarget(env.TargetURL())
	if err != nil {
		t.Fatal(err)
	}
	snapshotInto(t, env, src, dst, db)

	file := filepath.Join(t.TempDir(), "objects.sql")
	res, err := objects.Run(ctx, objects.Options{Source: src, Target: &dst, Include: []string{db}, File: file, Log: testenv.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("objects file:\n%s", text)

	want := map[string]string{ // object → "" translated, else a part of the reason
		"view " + db + ".v_contact":                   "",
		"view " + db + ".v_orders":                    "",
		"view " + db + ".v_totals":                    "",
		"view " + db + ".v_big":                       "",
		"view " + db + ".v_union":                     "",
		"view " + db + ".v_derived":                   "",
		"view " + db + ".v_sub":                       "",
		"view " + db + ".v_misc":                      "",
		"view " + db + ".v_cte":                       "",
		"view " + db + ".v_broken":                    "gone",
		"view " + db + ".v_taxed":                     "stored function",
		"view " + db + ".v_taxed_big":                 "reads view " + db + ".v_taxed",
		"view " + db + ".v_week":                      "%U",
		"trigger " + db + ".t_note":                   "",
		"trigger " + db + ".t_audit":                  "AFTER trigger",
		"function " + db + ".f_tax":                   "PL/pgSQL",
		"procedure " + db + ".p_purge":                "PL/pgSQL",
		"event " + db + ".e_purge":                    "pg_cron",
		"generated column " + db + ".customers.label": "plain column",
	}
	got := map[string]*objects.Object{}
	for _, o := range res.Objects {
		got[o.ID()] = o
	}
	for id, why := range want {
		o := got[id]
		switch {
		case o == nil:
			t.Errorf("%s: missing from the result", id)
		case why == "" && !o.Translated():
			t.Errorf("%s: needs a human (%s), want translated", id, o.Human)
		case why != "" && !strings.Contains(o.Human, why):
			t.Errorf("%s: needs human %q, want a reason containing %q", id, o.Human, why)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d objects, want %d", len(got), len(want))
	}
	for id, why := range want {
		header := "-- " + id + ": translated, review"
		if why != "" {
			header = "-- " + id + ": NEEDS A HUMAN: "
		}
		if !strings.Contains(string(text), header) {
			t.Errorf("file lacks %q", header)
		}
	}
	if s := res.Summary(file); s.Translated != 10 || s.NeedHuman != 9 || !s.Checked {
		t.Errorf("summary %+v, want 10 translated, 9 need a human, checked", s)
	}

	// The file runs as it is, twice (CREATE OR REPLACE).
	for i := 0; i < 2; i++ {
		out, err := exec.CommandContext(ctx, "psql", env.TargetURL(), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", file).CombinedOutput()
		if err != nil {
			t.Fatalf("psql -f %s: %v\n%s", file, err, out)
		}
	}

	// Every translated view returns what MySQL's returns, value for value.
	pg := env.PG(t)
	for _, v := range []string{"v_contact", "v_orders", "v_totals", "v_big", "v_union", "v_derived", "v_sub", "v_misc", "v_cte"} {
		order := " ORDER BY 1, 3"
		if v == "v_union" || v == "v_derived" {
			order = " ORDER BY 1"
		}
		myRows, cols := mysqlTexts(t, my, "SELECT * FROM `"+v+"`"+order)
		sel := make([]string, len(cols))
		for i, c := range cols {
			sel[i] = schema.QuoteIdent(c) + "::text"
		}
		pgRows := testenv.PGTexts(t, pg, "SELECT "+strings.Join(sel, ", ")+" FROM "+schema.QuoteIdent(db)+"."+
			schema.QuoteIdent(v)+order)
		if len(pgRows) != len(myRows) || len(myRows) == 0 {
			t.Errorf("%s: %d rows in PostgreSQL, %d in MySQL", v, len(pgRows), len(myRows))
			continue
		}
		for r := range myRows {
			for c := range cols {
				m, p := myRows[r][c], pgRows[r][c]
				if m.Valid != (p != nil) || (p != nil && m.String != *p) {
					t.Errorf("%s row %d column %s: PostgreSQL %s, MySQL %s", v, r, cols[c], show(p), showNull(m))
				}
			}
		}
	}

	// The translated trigger is created disabled; enabled, it computes what MySQL's does.
	var enabled string
	if err := pg.QueryRow(ctx, `SELECT tgenabled::text FROM pg_trigger WHERE tgname = 't_note' AND tgrelid = $1::regclass`,
		schema.QuoteIdent(db)+".orders").Scan(&enabled); err != nil || enabled != "D" {
		t.Errorf("trigger t_note: tgenabled %q (%v), want D (disabled)", enabled, err)
	}
	if _, err := pg.Exec(ctx, `ALTER TABLE `+schema.QuoteIdent(db)+`.orders ENABLE TRIGGER t_note`); err != nil {
		t.Fatal(err)
	}
	mustExec(t, my, "INSERT INTO orders (id, customer_id, amount, placed) VALUES (20, 4, 1.00, '2025-01-01 00:00:00')")
	if _, err := pg.Exec(ctx, `INSERT INTO `+schema.QuoteIdent(db)+`.orders (id, customer_id, amount, placed)
		VALUES (20, 4, 1.00, '2025-01-01 00:00:00')`); err != nil {
		t.Fatal(err)
	}
	var myNote, pgNote string
	if err := my.QueryRowContext(ctx, "SELECT note FROM orders WHERE id = 20").Scan(&myNote); err != nil {
		t.Fatal(err)
	}
	if err := pg.QueryRow(ctx, `SELECT note FROM `+schema.QuoteIdent(db)+`.orders WHERE id = 20`).Scan(&pgNote); err != nil {
		t.Fatal(err)
	}
	if myNote != pgNote || myNote != "order 20" {
		t.Errorf("trigger t_note: PostgreSQL set %q, MySQL %q", pgNote, myNote)
	}
}

func snapshotInto(t *testing.T, env *testenv.Env, src config.MySQL, dst config.Postgres, db string) {
	t.Helper()
	ctx := context.Background()
	stream := testenv.UniqueName("st")
	pg := env.PG(t)
	t.Cleanup(func() {
		for _, tbl := range []string{"snapshot_chunk", "snapshot_table", "snapshot_run", "checkpoint", "schema_history"} {
			_, _ = pg.Exec(ctx, "DELETE FROM sluice."+tbl+" WHERE stream = $1", stream)
		}
	})
	_, err := snapshot.Run(ctx, snapshot.Options{Source: src, Target: pgsink.NewEngine(dst), Include: []string{db}, Stream: stream,
		Workers: 2, Log: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
}

func mysqlTexts(t *testing.T, db *sql.DB, q string) ([][]sql.NullString, []string) {
	t.Helper()
	rows, err := db.QueryContext(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	cols, err := rows.Columns()
	rows.Close()
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return testenv.MySQLTexts(t, db, q), cols
}

func mustExec(t *testing.T, db *sql.DB, q string) {
	t.Helper()
	if _, err := db.ExecContext(context.Background(), q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func show(p *string) string {
	if p == nil {
		return "NULL"
	}
	return "'" + *p + "'"
}

func showNull(s sql.NullString) string {
	if !s.Valid {
		return "NULL"
	}
	return "'" + s.String + "'"
}
