package realworld

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/cutover"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestSakila migrates a film-rental schema under a load of rentals,
// payments, films (whose trigger maintains film_text), primary key changes
// that cascade to children, deletes that cascade (and SET NULL) through two
// levels of foreign keys, REPLACE INTO a referenced row, unique key swaps and
// spatial updates, with DDL in the middle of the stream.
func TestSakila(t *testing.T) {
	t.Parallel()
	testenv.Flavors(t, testSakila)
}

func testSakila(t *testing.T, env *testenv.Env) {
	m := sakilaScenario(env).run(t)

	checkSakilaReport(t, m, false)
	compareSakila(t, m)
	if t.Failed() {
		return
	}
	// Damage in spatial, SET/ENUM/YEAR, composite-key and FULLTEXT tables;
	// verify must find it and --repair must undo it.
	q := m.pgq
	damageAndRepair(t, m, []string{
		`UPDATE ` + q("address") + ` SET location = location || '\x00'::bytea WHERE address_id = (SELECT min(address_id) FROM ` + q("address") + `)`,
		`UPDATE ` + q("film") + ` SET special_features = 'Trailers', rating = 'NC-17', release_year = NULL
			WHERE film_id = (SELECT min(film_id) FROM ` + q("film") + ` WHERE special_features IS DISTINCT FROM 'Trailers')`,
		`DELETE FROM ` + q("film_actor") + ` WHERE (actor_id, film_id) = (SELECT actor_id, film_id FROM ` + q("film_actor") + ` ORDER BY 1, 2 LIMIT 1)`,
		`UPDATE ` + q("payment") + ` SET amount = amount + 1 WHERE payment_id = (SELECT max(payment_id) FROM ` + q("payment") + `)`,
		`UPDATE ` + q("film_text") + ` SET description = NULL WHERE film_id = (SELECT min(film_id) FROM ` + q("film_text") + ` WHERE description IS NOT NULL)`,
	}, "address", "film", "film_actor", "payment", "film_text")
	compareSakila(t, m)
	wayBack(t, m, sakilaWayBack())
	requireCutover(t, m, `INSERT INTO `+pgx.Identifier{m.db, "actor"}.Sanitize()+` (first_name, last_name) VALUES ('CUT', 'OVER')`,
		`INSERT INTO `+pgx.Identifier{m.db, "category"}.Sanitize()+` (name) VALUES ('After cut-over')`)
	requireSakilaTriggers(t, m)
}

// sakilaScenario is the film-rental business under load with DDL, cascades
// and key changes mid-stream.
func sakilaScenario(env *testenv.Env) scenario {
	var seq atomic.Int64
	seq.Store(100000)
	return scenario{
		env:        env,
		prefix:     "rw_sakila",
		schemaFile: "sakila.sql",
		seed:       seedSakila,
		write:      func(my *sql.DB, rng *rand.Rand) error { return sakilaWrite(my, env, rng, seq.Add(1)) },
		midStream: []string{
			"ALTER TABLE film ADD COLUMN original_title VARCHAR(128) NOT NULL DEFAULT 'untitled' AFTER title",
			"ALTER TABLE rental ADD INDEX idx_return_date (return_date)",
			"CREATE OR REPLACE VIEW actor_names AS SELECT actor_id, CONCAT(first_name, ' ', last_name) AS name FROM actor",
			"DROP TRIGGER customer_create_date",
			// A parent delete whose children only InnoDB removes (not in the binlog).
			"DELETE FROM customer WHERE customer_id = 7",
			"UPDATE film SET original_title = CONCAT('orig ', title) WHERE film_id % 7 = 0",
			// New ENUM and SET members, then values that use them.
			"ALTER TABLE film MODIFY rating ENUM('G','PG','PG-13','R','NC-17','X') DEFAULT 'G'",
			"ALTER TABLE film MODIFY special_features SET('Trailers','Commentaries','Deleted Scenes','Behind the Scenes','Director''s Cut') DEFAULT NULL",
			"UPDATE film SET rating = 'X', special_features = CONCAT_WS(',', special_features, 'Director''s Cut') WHERE film_id % 10 = 0",
		},
	}
}

// TestSakilaIntoMySQL runs the Sakila scenario into a MariaDB target on
// InnoDB (its foreign keys cascade there as on the source): every table byte
// for byte, then damage in spatial, SET/ENUM/YEAR, composite-key and FULLTEXT
// tables found and repaired; MySQL 9.7 → MySQL 9.7 too.
func TestSakilaIntoMySQL(t *testing.T) {
	t.Parallel()
	testenv.MySQLTargetFlavors(t, testSakilaIntoMySQL)
}

func testSakilaIntoMySQL(t *testing.T, env *testenv.Env) {
	s := sakilaScenario(env)
	s.into = intoMySQL("InnoDB")
	m := s.run(t)
	checkSakilaReport(t, m, true)
	compareBytes(t, m)
	if t.Failed() {
		return
	}
	damageAndRepair(t, m, []string{
		"UPDATE " + m.q("address") + " SET location = ST_GeomFromText('POINT(1.5 2.5)', 4326) ORDER BY address_id LIMIT 1",
		"UPDATE " + m.q("film") + " SET special_features = 'Trailers', rating = 'NC-17', release_year = NULL WHERE NOT special_features <=> 'Trailers' ORDER BY film_id LIMIT 1",
		"DELETE FROM " + m.q("film_actor") + " ORDER BY actor_id, film_id LIMIT 1",
		"UPDATE " + m.q("payment") + " SET amount = amount + 1 ORDER BY payment_id DESC LIMIT 1",
		"UPDATE " + m.q("film_text") + " SET description = NULL WHERE description IS NOT NULL ORDER BY film_id LIMIT 1",
	}, "address", "film", "film_actor", "payment", "film_text")
	compareBytes(t, m)
	requireCutover(t, m, "INSERT INTO "+m.q("actor")+" (first_name, last_name) VALUES ('CUT', 'OVER')",
		"INSERT INTO "+m.q("category")+" (name) VALUES ('After cut-over')")
	requireSakilaTriggers(t, m)
}

// checkSakilaReport requires migrate's report to say replication caught up
// and to list the views, triggers and routines as not migrated — into a
// MySQL target the views and routines as created there, the triggers as not
// migrated.
func checkSakilaReport(t *testing.T, m migrated, mysqlTarget bool) {
	t.Helper()
	var rep struct {
		Snapshot struct {
			NotMigrated []string `json:"not_migrated"`
			Created     []string `json:"created"`
		} `json:"snapshot"`
		Replicate struct {
			Result string `json:"result"`
		} `json:"replicate"`
	}
	if err := json.Unmarshal([]byte(m.report), &rep); err != nil {
		t.Fatalf("migrate report: %v\n%s", err, m.report)
	}
	if rep.Replicate.Result != "caught up" {
		t.Errorf("migrate --json: replication %q, want caught up", rep.Replicate.Result)
	}
	listed := strings.Join(rep.Snapshot.NotMigrated, "\n")
	notMigrated := []string{"film_in_stock", "get_customer_balance", "film_list", "customer_list", "ins_film", "customer_create_date"}
	if mysqlTarget {
		created := strings.Join(rep.Snapshot.Created, "\n")
		for _, obj := range notMigrated[:4] {
			if !strings.Contains(created, "."+obj) {
				t.Errorf("report's created does not name %s:\n%s", obj, created)
			}
		}
		notMigrated = notMigrated[4:]
	}
	for _, obj := range notMigrated {
		if !strings.Contains(listed, obj) {
			t.Errorf("report's not_migrated does not name %s:\n%s", obj, listed)
		}
	}

}

// requireSakilaTriggers checks the source's triggers ran (the test's point).
func requireSakilaTriggers(t *testing.T, m migrated) {
	t.Helper()
	if n := count(t, m.my, "film_text"); n != count(t, m.my, "film") {
		t.Errorf("source film_text has %d rows, film %d: the triggers did not run", n, count(t, m.my, "film"))
	}
}

// compareSakila compares the rental business's tables value by value.
func compareSakila(t *testing.T, m migrated) {
	t.Helper()
	compareTable(t, m, "film", 400, plain("film_id"), plain("title"), plain("original_title"),
		plain("description"), plain("release_year"), plain("language_id"), plain("original_language_id"),
		plain("rental_rate"), plain("length"), plain("rating"), plain("special_features"), ts("last_update"))
	compareTable(t, m, "film_text", 400, plain("film_id"), plain("title"), plain("description"))
	compareTable(t, m, "film_actor", 800, plain("actor_id"), plain("film_id"), ts("last_update"))
	compareTable(t, m, "film_category", 100, plain("film_id"), plain("category_id"), ts("last_update"))
	compareTable(t, m, "actor", 150, plain("actor_id"), plain("first_name"), plain("last_name"), ts("last_update"))
	compareTable(t, m, "address", 300, plain("address_id"), plain("city_id"), hexed("location"), ts("last_update"))
	compareTable(t, m, "customer", 250, plain("customer_id"), plain("email"), plain("active"),
		datetime("create_date"), ts("last_update"))
	compareTable(t, m, "rental", 1500, plain("rental_id"), datetime("rental_date"), plain("inventory_id"),
		plain("customer_id"), datetime("return_date"))
	compareTable(t, m, "payment", 1500, plain("payment_id"), plain("customer_id"), plain("rental_id"),
		plain("amount"), datetime("payment_date"))
	compareTable(t, m, "city", 100, plain("city_id"), plain("country_id"))
}

func seedSakila(t *testing.T, my flavorDB) {
	t.Helper()
	// The trigger customer_create_date replaces a zero create_date; MySQL's
	// strict mode refuses the zero date before it runs, not NULL.
	noDate := "0"
	if my.env.IsMySQL() {
		noDate = "NULL"
	}
	_, err := my.Exec(`
INSERT INTO country (country) SELECT CONCAT('Country ', seq) FROM seq_1_to_20;
INSERT INTO city (city, country_id) SELECT CONCAT('City ', seq), 1 + seq % 20 FROM seq_1_to_100;
INSERT INTO address (address, address2, district, city_id, postal_code, phone, location)
  SELECT CONCAT(seq, ' Main Street'), IF(seq % 3 = 0, NULL, ''), 'Alberta', 1 + seq % 100, LPAD(seq, 5, '0'),
         CONCAT('+1-555-', seq), ST_GeomFromText(CONCAT('POINT(', seq % 180 - 90.25, ' ', seq % 90 - 45.5, ')'), 4326)
  FROM seq_1_to_300;
INSERT INTO language (name) VALUES ('English'), ('Italian'), ('Japanese'), ('Mandarin'), ('French'), ('German');
INSERT INTO category (name) VALUES ('Action'), ('Animation'), ('Children'), ('Classics'), ('Comedy'),
  ('Documentary'), ('Drama'), ('Family'), ('Foreign'), ('Games'), ('Horror'), ('Music'), ('New'),
  ('Sci-Fi'), ('Sports'), ('Travel');
INSERT INTO actor (first_name, last_name) SELECT CONCAT('FIRST', seq), ELT(1 + seq % 5, 'GUINESS', 'WAHLBERG', 'CHASE', 'DAVIS', 'LOLLOBRIGIDA') FROM seq_1_to_200;
INSERT INTO film (title, description, release_year, language_id, original_language_id, rental_duration, rental_rate,
                  length, replacement_cost, rating, special_features)
  SELECT CONCAT('FILM ', seq), IF(seq % 11 = 0, NULL, CONCAT('A Epic Drama of a Feminist And a Mad Scientist #', seq)),
         IF(seq % 13 = 0, NULL, 1990 + seq % 30), 1 + seq % 6, IF(seq % 4 = 0, 1 + (seq + 1) % 6, NULL),
         3 + seq % 5, ELT(1 + seq % 3, 0.99, 2.99, 4.99), 46 + seq % 140, 9.99 + seq % 20,
         ELT(1 + seq % 5, 'G', 'PG', 'PG-13', 'R', 'NC-17'),
         ELT(1 + seq % 6, NULL, '', 'Trailers', 'Trailers,Deleted Scenes', 'Commentaries,Behind the Scenes',
             'Trailers,Commentaries,Deleted Scenes,Behind the Scenes')
  FROM seq_1_to_500;
INSERT INTO film_actor (actor_id, film_id) SELECT 1 + seq % 200, 1 + (seq * 7) % 500 FROM seq_1_to_1500
  ON DUPLICATE KEY UPDATE film_actor.actor_id = film_actor.actor_id;
INSERT INTO film_category (film_id, category_id) SELECT seq, 1 + seq % 16 FROM seq_1_to_500;
INSERT INTO store (manager_name, address_id) VALUES ('Mike Hillyer', 1), ('Jon Stephens', 2);
INSERT INTO customer (store_id, first_name, last_name, email, address_id, active, create_date)
  SELECT 1 + seq % 2, CONCAT('First', seq), CONCAT('Last', seq), IF(seq % 10 = 0, NULL, CONCAT('c', seq, '@example.org')),
         3 + seq % 290, seq % 9 <> 0, ` + noDate + ` FROM seq_1_to_400;
INSERT INTO inventory (film_id, store_id) SELECT 1 + seq % 450, 1 + seq % 2 FROM seq_1_to_1500;
INSERT INTO rental (rental_date, inventory_id, customer_id, return_date)
  SELECT '2005-05-24 22:53:30' + INTERVAL seq HOUR, 1 + seq % 1500, 1 + seq % 400,
         IF(seq % 5 = 0, NULL, '2005-05-24 22:53:30' + INTERVAL seq HOUR + INTERVAL 3 DAY) FROM seq_1_to_2000;
INSERT INTO payment (customer_id, rental_id, amount, payment_date)
  SELECT r.customer_id, r.rental_id, 0.99 + r.rental_id % 10, r.rental_date FROM rental r;`)
	if err != nil {
		t.Fatalf("seed: %v", err)
	}
}

// sakilaWrite runs one transaction of a rental business; n is unique per call.
func sakilaWrite(my *sql.DB, env *testenv.Env, rng *rand.Rand, n int64) error {
	switch rng.IntN(12) {
	case 0, 1: // a rental and its payment
		return inTxn(my, func(tx *sql.Tx) error {
			res, err := tx.Exec(`INSERT INTO rental (rental_date, inventory_id, customer_id)
				SELECT '2026-01-01' + INTERVAL ? SECOND, ?, customer_id FROM customer ORDER BY customer_id LIMIT 1 OFFSET ?`,
				n, 1+rng.IntN(1500), rng.IntN(300))
			if err != nil {
				return err
			}
			id, _ := res.LastInsertId()
			_, err = tx.Exec(`INSERT INTO payment (customer_id, rental_id, amount, payment_date)
				SELECT customer_id, rental_id, ?, rental_date FROM rental WHERE rental_id = ?`, fmt.Sprintf("%d.%02d", rng.IntN(10), rng.IntN(100)), id)
			return err
		})
	case 2: // a return
		_, err := my.Exec(`UPDATE rental SET return_date = rental_date + INTERVAL 2 DAY WHERE return_date IS NULL
			ORDER BY rental_id LIMIT 1`)
		return err
	case 3: // a new film with actors and a category: the trigger writes film_text
		return inTxn(my, func(tx *sql.Tx) error {
			res, err := tx.Exec(`INSERT INTO film (title, description, release_year, language_id, rating, special_features)
				VALUES (?, ?, ?, 1, 'PG-13', 'Trailers,Behind the Scenes')`, fmt.Sprint("NEW FILM ", n), fmt.Sprint("about ", n), 2000+rng.IntN(27))
			if err != nil {
				return err
			}
			id, _ := res.LastInsertId()
			_, err = tx.Exec(`INSERT INTO film_actor (actor_id, film_id) SELECT actor_id, ? FROM actor ORDER BY actor_id LIMIT 3`, id)
			if err == nil {
				_, err = tx.Exec(`INSERT INTO film_category (film_id, category_id) SELECT ?, category_id FROM category ORDER BY category_id LIMIT 1`, id)
			}
			return err
		})
	case 4: // a retitled film: the trigger updates film_text
		_, err := my.Exec(`UPDATE film SET title = CONCAT(title, '!'), description = CONCAT(IFNULL(description, ''), ' Again.')
			WHERE film_id = ?`, 1+rng.IntN(500))
		return err
	case 5: // a film without inventory goes: cascades to film_actor and film_category, trigger to film_text
		_, err := my.Exec(`DELETE FROM film WHERE film_id = (SELECT f FROM (SELECT MAX(f.film_id) AS f FROM film f
			LEFT JOIN inventory i ON i.film_id = f.film_id WHERE i.inventory_id IS NULL AND f.film_id % 3 = ?) AS x)`, rng.IntN(3))
		return err
	case 6: // a customer leaves: rentals and payments cascade, payments of its rentals get NULL first
		_, err := my.Exec(`DELETE FROM customer WHERE customer_id = ?`, 1+rng.IntN(1200)) // often none
		return err
	case 7: // an actor's primary key changes: film_actor follows by ON UPDATE CASCADE
		_, err := my.Exec(`UPDATE actor SET actor_id = ? WHERE actor_id = (SELECT a FROM (SELECT MIN(actor_id) AS a FROM actor WHERE actor_id < 1000) x)`, 1000+n%60000)
		return err
	case 8: // REPLACE of a referenced category: MySQL deletes (cascading film_category) and inserts
		if rng.IntN(4) == 0 {
			_, err := my.Exec(`REPLACE INTO category (category_id, name) VALUES (?, ?)`, 1+rng.IntN(16), fmt.Sprint("Category ", n))
			return err
		}
		// an upsert by the unique name: inserts new genres, touches known ones
		_, err := my.Exec(`INSERT INTO category (name) VALUES (?) ON DUPLICATE KEY UPDATE last_update = last_update + INTERVAL 1 SECOND`,
			fmt.Sprint("Genre ", rng.IntN(40)))
		return err
	case 9: // upsert on a composite primary key
		_, err := my.Exec(`INSERT INTO film_category (film_id, category_id) VALUES (?, ?)
			ON DUPLICATE KEY UPDATE last_update = last_update + INTERVAL 1 SECOND`, 1+rng.IntN(500), 1+rng.IntN(16))
		if me := mysqlErrNumber(err); me == 1452 { // the film or category is gone
			return nil
		}
		return err
	case 10: // two customers swap e-mail addresses (a unique key)
		a, b := 1+rng.IntN(400), 1+rng.IntN(400)
		return inTxn(my, func(tx *sql.Tx) error {
			var ea, eb sql.NullString
			_ = tx.QueryRow("SELECT email FROM customer WHERE customer_id = ?", a).Scan(&ea)
			_ = tx.QueryRow("SELECT email FROM customer WHERE customer_id = ?", b).Scan(&eb)
			if a == b || !ea.Valid || !eb.Valid {
				return nil
			}
			_, err := tx.Exec("UPDATE customer SET email = NULL WHERE customer_id = ?", a)
			if err == nil {
				_, err = tx.Exec("UPDATE customer SET email = ? WHERE customer_id = ?", ea, b)
			}
			if err == nil {
				_, err = tx.Exec("UPDATE customer SET email = ? WHERE customer_id = ?", eb, a)
			}
			return err
		})
	default: // spatial update and a country key change cascading to city
		return inTxn(my, func(tx *sql.Tx) error {
			_, err := tx.Exec(flavorSQL(env, `UPDATE address SET location = ST_GeomFromText(?, 4326) WHERE address_id = ?`),
				fmt.Sprintf("POINT(%d.125 %d.5)", rng.IntN(180)-90, rng.IntN(90)-45), 1+rng.IntN(300))
			if err == nil && rng.IntN(4) == 0 {
				_, err = tx.Exec(`UPDATE country SET country_id = ? WHERE country_id = (SELECT c FROM (SELECT MIN(country_id) AS c FROM country) x)`, 100+n%60000)
			}
			return err
		})
	}
}

// sakilaWayBack is Sakila's application after the cut-over, with the DBA's
// part for its triggers: the reverse stream refuses to start while MySQL's
// film triggers exist (they would fire on the rows it writes); they are
// saved and dropped on MySQL, ported to PostgreSQL (film_text kept there,
// its rows come back), and created again on MySQL after the fallback.
func sakilaWayBack() wayBackLoad {
	var saved []string
	return wayBackLoad{
		write:     sakilaPGWrite,
		minWrites: 100,
		proof:     "SELECT count(*) FROM film_text WHERE title LIKE 'PG film %'",
		prepare: func(t *testing.T, m migrated) {
			bin := testenv.SluiceBinary(t)
			logPath := filepath.Join(t.TempDir(), "refused.log")
			if code := runSluice(t, bin, logPath, "replicate", "--source", m.targetURL, "--target", m.sourceURL,
				"--stream", cutover.DefaultReverseStream(m.stream), "--until-caught-up", "--log-level", "warn"); code != 2 ||
				!strings.Contains(tailFile(logPath, 20), m.db+".film: ins_film (AFTER INSERT)") {
				t.Fatalf("the reverse stream with MySQL's triggers: exit %d, want 2 naming them\n%s", code, tailFile(logPath, 20))
			}
			for _, name := range testenv.MySQLRows(t, m.my, "SELECT TRIGGER_NAME FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = ?", m.db) {
				// SHOW CREATE TRIGGER's third column is the statement (MySQL
				// has one column more than MariaDB after it).
				saved = append(saved, testenv.MySQLTexts(t, m.my, "SHOW CREATE TRIGGER `"+name+"`")[0][2].String)
				if _, err := m.my.Exec("DROP TRIGGER `" + name + "`"); err != nil {
					t.Fatal(err)
				}
			}
			admin, err := pgx.Connect(t.Context(), m.env.PGAdminURL())
			if err != nil {
				t.Fatal(err)
			}
			defer admin.Close(t.Context())
			s := pgx.Identifier{m.db}.Sanitize()
			if _, err := admin.Exec(t.Context(), `CREATE FUNCTION `+s+`.film_text_sync() RETURNS trigger LANGUAGE plpgsql AS $$
				BEGIN
					IF TG_OP = 'INSERT' THEN
						INSERT INTO `+s+`.film_text (film_id, title, description) VALUES (NEW.film_id, NEW.title, NEW.description);
					ELSIF TG_OP = 'UPDATE' THEN
						IF OLD.title <> NEW.title OR OLD.description IS DISTINCT FROM NEW.description OR OLD.film_id <> NEW.film_id THEN
							UPDATE `+s+`.film_text SET title = NEW.title, description = NEW.description, film_id = NEW.film_id
							WHERE film_id = OLD.film_id;
						END IF;
					ELSE
						DELETE FROM `+s+`.film_text WHERE film_id = OLD.film_id;
					END IF;
					RETURN NULL;
				END $$;
				CREATE TRIGGER film_text_sync AFTER INSERT OR UPDATE OR DELETE ON `+s+`.film FOR EACH ROW EXECUTE FUNCTION `+s+`.film_text_sync()`); err != nil {
				t.Fatal(err)
			}
		},
		restore: func(t *testing.T, m migrated) {
			for _, def := range saved {
				if _, err := m.my.Exec(def); err != nil {
					t.Fatalf("%s: %v", def, err)
				}
			}
		},
		fallback: []string{"INSERT INTO film (title, language_id) VALUES ('After fallback', 1)",
			"INSERT INTO actor (first_name, last_name) VALUES ('FALL', 'BACK')"},
	}
}

// sakilaPGWrite is one transaction of the rental business on PostgreSQL
// after the cut-over: rentals with payments (identity ids), returns, films
// with SET, ENUM and YEAR values and their actors (film_text by the ported
// trigger), film key changes cascading to their children, customers deleted
// (rentals cascade, payments cascade and SET NULL), spatial updates.
func sakilaPGWrite(ctx context.Context, tx pgx.Tx, q func(string) string, rng *rand.Rand) error {
	switch rng.IntN(6) {
	case 0, 1: // a rental and its payment
		var id int64
		err := tx.QueryRow(ctx, "INSERT INTO "+q("rental")+` (rental_date, inventory_id, customer_id)
			SELECT timestamp '2027-01-01' + $1 * interval '1 second', inventory_id, (SELECT min(customer_id) FROM `+q("customer")+`)
			FROM `+q("inventory")+` ORDER BY inventory_id LIMIT 1 OFFSET $2 RETURNING rental_id`, rng.IntN(1e9), rng.IntN(1000)).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		return pgExecs(ctx, tx, "INSERT INTO "+q("payment")+` (customer_id, rental_id, amount, payment_date)
			SELECT customer_id, rental_id, $1, rental_date FROM `+q("rental")+" WHERE rental_id = $2",
			[]any{fmt.Sprintf("%d.%02d", rng.IntN(1000), rng.IntN(100)), id})
	case 2: // a return
		return pgExecs(ctx, tx, "UPDATE "+q("rental")+" SET return_date = localtimestamp(0) WHERE rental_id = (SELECT min(rental_id) FROM "+
			q("rental")+" WHERE return_date IS NULL)", []any{})
	case 3: // a new film and its cast; or a film's features changed
		if rng.IntN(2) == 0 {
			return pgExecs(ctx, tx, "UPDATE "+q("film")+` SET special_features = $1, rating = $2, release_year = $3, description = $4
				WHERE film_id = (SELECT film_id FROM `+q("film")+" ORDER BY film_id LIMIT 1 OFFSET $5)",
				[]any{[]string{"", "Trailers,Director's Cut", "Commentaries,Deleted Scenes,Behind the Scenes"}[rng.IntN(3)],
					[]any{nil, "X", "NC-17"}[rng.IntN(3)], []int{1901, 2155, 2027}[rng.IntN(3)], fmt.Sprintf("Réécrit 🎬 %d", rng.IntN(1e6)), rng.IntN(300)})
		}
		var id int64
		if err := tx.QueryRow(ctx, "INSERT INTO "+q("film")+` (title, original_title, description, release_year, language_id, rental_rate, length, rating, special_features)
			VALUES ($1, 'Titre original 😀', 'Une histoire — “quoted”', 2155, 1, 99.99, 65535, 'X', 'Trailers,Director''s Cut') RETURNING film_id`,
			fmt.Sprintf("PG film %d", rng.IntN(1e9))).Scan(&id); err != nil {
			return err
		}
		return pgExecs(ctx, tx, "INSERT INTO "+q("film_actor")+" (actor_id, film_id) SELECT actor_id, $1 FROM "+q("actor")+" ORDER BY actor_id LIMIT 3", []any{id})
	case 4: // a film renumbered: cast, categories and inventory follow (film_text by the trigger)
		return pgExecs(ctx, tx, "UPDATE "+q("film")+" SET film_id = film_id + 30000 WHERE film_id = (SELECT min(film_id) FROM "+q("film")+")", []any{})
	default: // a customer leaves (rentals cascade, payments go), or an address moves
		if rng.IntN(2) == 0 {
			return pgExecs(ctx, tx, "UPDATE "+q("address")+" SET location = (SELECT location FROM "+q("address")+" WHERE address_id = $1), phone = '+33 1 23 45 67 89' WHERE address_id = $2",
				[]any{1 + rng.IntN(300), 1 + rng.IntN(300)})
		}
		return pgExecs(ctx, tx, "DELETE FROM "+q("customer")+" WHERE customer_id = (SELECT max(customer_id) FROM "+q("customer")+")", []any{})
	}
}
