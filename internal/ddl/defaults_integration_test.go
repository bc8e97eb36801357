package ddl_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/testenv"
)

// exprDefaultsFixture has the expression defaults applications use (expiry
// times with compound INTERVAL units, CURRENT_TIMESTAMP(3), uuid(), JSON
// documents, random numbers, concatenations), in MySQL 8+/MariaDB 10.2+
// parenthesized syntax.
const exprDefaultsFixture = `CREATE TABLE d (id INT PRIMARY KEY,
 hm DATETIME DEFAULT (now() + INTERVAL '1:30' HOUR_MINUTE),
 ds DATETIME(6) DEFAULT (now() + INTERVAL '1 2:3:4' DAY_SECOND),
 ym DATE DEFAULT (curdate() + INTERVAL '1-2' YEAR_MONTH),
 us DATETIME(6) DEFAULT (now(6) + INTERVAL 5 MICROSECOND),
 sus DATETIME(6) DEFAULT (now(6) - INTERVAL '1.5' SECOND_MICROSECOND),
 ts3 DATETIME(3) DEFAULT CURRENT_TIMESTAMP(3),
 tz3 TIMESTAMP(3) NULL DEFAULT CURRENT_TIMESTAMP(3),
 tzi TIMESTAMP NULL DEFAULT (now() + INTERVAL '2 12' DAY_HOUR),
 uid VARCHAR(36) DEFAULT (uuid()),
 today DATE DEFAULT (curdate()),
 obj JSON DEFAULT (json_object()),
 arr JSON DEFAULT (json_array()),
 objkv JSON DEFAULT (json_object('a', 1, 'b', 'x')),
 rnd DOUBLE DEFAULT (rand()),
 cat VARCHAR(50) DEFAULT (concat('a', 'b', 'c')),
 sum3 INT DEFAULT (1 + 2),
 up VARCHAR(10) DEFAULT (upper('abc'))
)`

// TestExpressionDefaultsOnPostgres loads the expression defaults from each
// source flavor, creates the table on PostgreSQL and inserts a row relying on
// every default: each default is translated to the value MySQL gives, or
// dropped with a warning naming it (never silently).
func TestExpressionDefaultsOnPostgres(t *testing.T) {
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		ctx := context.Background()
		made := createOnPostgres(t, env, "ddl_exprdef", exprDefaultsFixture, func(w string) { t.Errorf("warning: %s", w) })
		dbName, n, pg := made.db, made.naming, made.pg
		tbl := n.QTable(schema.TableID{Database: dbName, Name: "d"})
		run(t, pg, `SET TIME ZONE 'UTC'`)
		run(t, pg, `INSERT INTO `+tbl+` (id) VALUES (1)`)
		// Each check is true when the default gave MySQL's value (times
		// within a minute of the expected moment).
		checks := []string{
			`hm BETWEEN LOCALTIMESTAMP + interval '89 minutes' AND LOCALTIMESTAMP + interval '91 minutes'`,
			`ds BETWEEN LOCALTIMESTAMP + interval '1 day 2 hours 2 minutes' AND LOCALTIMESTAMP + interval '1 day 2 hours 4 minutes'`,
			`ym = (CURRENT_DATE + interval '14 months')::date`,
			`us BETWEEN LOCALTIMESTAMP - interval '1 minute' AND LOCALTIMESTAMP + interval '1 minute'`,
			`sus BETWEEN LOCALTIMESTAMP - interval '1 minute' AND LOCALTIMESTAMP`,
			`ts3 BETWEEN LOCALTIMESTAMP - interval '1 minute' AND LOCALTIMESTAMP`,
			`tz3 BETWEEN now() - interval '1 minute' AND now()`,
			`tzi BETWEEN now() + interval '59 hours' AND now() + interval '61 hours'`,
			`uid ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'`,
			`today = CURRENT_DATE`,
			`obj = '{}'::jsonb`,
			`arr = '[]'::jsonb`,
			`objkv = '{"a": 1, "b": "x"}'::jsonb`,
			`rnd >= 0 AND rnd < 1`,
			`cat = 'abc'`,
			`sum3 = 3`,
			`up = 'ABC'`,
		}
		for _, c := range checks {
			var ok *bool
			if err := pg.QueryRow(ctx, `SELECT `+c+` FROM `+tbl+` WHERE id = 1`).Scan(&ok); err != nil || ok == nil || !*ok {
				var row string
				_ = pg.QueryRow(ctx, `SELECT row_to_json(d)::text FROM `+tbl+` d WHERE id = 1`).Scan(&row)
				col, _, _ := strings.Cut(c, " ")
				t.Errorf("%s: default gave the wrong value (%v, %v): %s", col, ok, err, row)
			}
		}
	})
}
