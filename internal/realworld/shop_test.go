package realworld

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestShop migrates an e-commerce schema under an order load: orders with
// items in one transaction, state changes and JSON edits, cancellations that
// cascade to items, order key changes that cascade, SKU swaps (unique key),
// REPLACE of a product referenced by items (ON DELETE SET NULL), counters at
// the unsigned maxima, duplicate rows of a keyless table changed one at a
// time, and DDL mid-stream.
func TestShop(t *testing.T) {
	t.Parallel()
	// Its load REPLACEs products: MariaDB runs the items' ON DELETE SET NULL
	// without logging it (the target's foreign key repeats it), MySQL 9
	// (foreign keys in the SQL layer) runs no action, and the stream makes the
	// logged DELETE + INSERT one UPDATE (docs/mysql8.md).
	testenv.Flavors(t, testShop)
}

func testShop(t *testing.T, env *testenv.Env) {
	m := shopScenario(env).run(t)

	compareShop(t, m)
	if t.Failed() {
		return
	}
	repairShop(t, m)
	compareShop(t, m)

	wayBack(t, m, wayBackLoad{write: shopPGWrite, minWrites: 100, proof: "SELECT count(*) FROM `order` WHERE customer_email LIKE 'pg%'",
		fallback: []string{"INSERT INTO `order` () VALUES ()", "INSERT INTO category (name) VALUES ('after fallback')"}})
	requireCutover(t, m, `INSERT INTO `+pgx.Identifier{m.db, "order"}.Sanitize()+` DEFAULT VALUES`,
		`INSERT INTO `+pgx.Identifier{m.db, "category"}.Sanitize()+` (name) VALUES ('after cut-over')`)
	var dups int
	if err := m.my.QueryRow("SELECT count(*) FROM (SELECT 1 FROM `price history` GROUP BY `product id`, price, `changed on`, note HAVING count(*) > 1) d").Scan(&dups); err != nil || dups == 0 {
		t.Errorf("price history has %d duplicated rows (%v): the test lost its point", dups, err)
	}
}

// shopScenario is the e-commerce shop under an order load, with DDL,
// charset conversions and cascades mid-stream.
func shopScenario(env *testenv.Env) scenario {
	var seq atomic.Int64
	return scenario{
		env:        env,
		prefix:     "rw_shop",
		schemaFile: "shop.sql",
		seed:       seedShop,
		write:      func(my *sql.DB, rng *rand.Rand) error { return shopWrite(my, rng, seq.Add(1)) },
		midStream: []string{
			"ALTER TABLE product ADD COLUMN meta_title VARCHAR(255) CHARACTER SET latin1 DEFAULT 'Café €5'",
			"ALTER TABLE `OrderItems` ADD INDEX idx_product (product_id)",
			"ALTER TABLE `price history` ADD COLUMN `currency code` CHAR(3) NOT NULL DEFAULT 'EUR'",
			"UPDATE `group` SET `key` = 'shoes-v2' WHERE `key` = 'shoes'", // cascades to product.group
			"DELETE FROM `group` WHERE `key` = 'bags'",                    // SET NULL on product.group
			// The classic charset upgrade: latin1 to utf8mb4, then text latin1 cannot hold.
			"ALTER TABLE category CONVERT TO CHARACTER SET utf8mb4",
			"UPDATE category SET name = CONCAT(name, ' 😀') WHERE category_id % 5 = 0",
			"ALTER TABLE `group` MODIFY `desc` VARCHAR(255) CHARACTER SET utf8mb4 NOT NULL DEFAULT ''",
			"UPDATE `group` SET `desc` = CONCAT(`desc`, ' Ελληνικά 😀') WHERE `key` <> 'misc'",
			"ALTER TABLE `price history` MODIFY note VARCHAR(80) CHARACTER SET utf8mb4 DEFAULT NULL",
			"INSERT INTO `price history` (`product id`, price, `changed on`, note) VALUES (1, 1.5, '2026-01-01', 'remise 🎁 über'), (1, 1.5, '2026-01-01', 'remise 🎁 über')",
			// A column in the middle of product goes; later row images are shorter.
			"ALTER TABLE product DROP COLUMN special_price",
			"ALTER TABLE `order` ADD COLUMN coupon VARCHAR(32) CHARACTER SET latin1 DEFAULT NULL AFTER state",
			"UPDATE `order` SET coupon = CONCAT('SOLDÉ', order_id % 10) WHERE order_id % 3 = 0",
		},
	}
}

// TestShopIntoMySQL runs the shop scenario into a MariaDB target on InnoDB:
// every table byte for byte (latin1 and utf8mb4 text, BIT, JSON, floats,
// unsigned maxima, generated columns, keyless duplicates), then damage in
// every awkward table found and repaired.
func TestShopIntoMySQL(t *testing.T) {
	t.Parallel()
	intoMySQLFlavors(t, testShopIntoMySQL)
}

func testShopIntoMySQL(t *testing.T, env *testenv.Env) {
	s := shopScenario(env)
	s.into = intoMySQL("InnoDB")
	m := s.run(t)
	compareBytes(t, m)
	if t.Failed() {
		return
	}
	damageAndRepair(t, m, []string{
		"DELETE FROM " + m.q("price history") + " WHERE (`product id`, price, `changed on`, note) IN (SELECT * FROM (SELECT `product id`, price, `changed on`, note FROM " +
			m.q("price history") + " WHERE note IS NOT NULL GROUP BY 1, 2, 3, 4 HAVING count(*) > 1) d) LIMIT 1",
		"UPDATE " + m.q("product") + " SET `Größe` = 'zz', attributes = '{\"x\": 1}', is_active = is_active ^ 1, name = 'X' ORDER BY product_id LIMIT 1",
		"DELETE FROM " + m.q("OrderItems") + " ORDER BY order_id DESC, line_no LIMIT 1",
		"UPDATE " + m.q("order") + " SET `desc` = 'tampered', is_gift = b'1', payload = '[]' ORDER BY order_id DESC LIMIT 1",
		"UPDATE " + m.q("category") + " SET weight = weight + 1, lead_time = NULL ORDER BY category_id DESC LIMIT 1",
		"DELETE FROM " + m.q("key") + " WHERE INSTR(`key`, x'00ff') > 0 ORDER BY `key` LIMIT 1",
		"INSERT INTO " + m.q("newsletter_subscriber") + " (store_id, subscriber_email, status) VALUES (9, NULL, 9)",
	}, "price history", "product", "OrderItems", "order", "category", "key", "newsletter_subscriber")
	compareBytes(t, m)
	requireCutover(t, m, "INSERT INTO "+m.q("order")+" () VALUES ()", "INSERT INTO "+m.q("category")+" (name) VALUES ('after cut-over')")
}

// compareShop compares the shop's tables value by value.
func compareShop(t *testing.T, m migrated) {
	t.Helper()
	compareTable(t, m, "product", 900, plain("product_id"), plain("SKU"), plain("name"), plain("slug"),
		plain("ean"), plain("group"), plain("price"), plain("qty_tiny"), plain("qty_small"),
		plain("qty_medium"), plain("qty"), plain("views"), plain("balance"), bit("is_active"), bit("flags"),
		jsonCol("attributes"), plain("name_lower"), plain("price_incl_tax"), hexed("sku_hash"), plain("Größe"),
		datetime("created_at"), ts("updated_at"), plain("meta_title"))
	compareTable(t, m, "order", 500, plain("order_id"), plain("increment_id"), plain("customer_email"),
		plain("state"), plain("grand_total"), plain("currency"), plain("desc"), jsonCol("payload"), bit("is_gift"),
		ts("created_at"), plain("coupon"))
	compareTable(t, m, "OrderItems", 1000, plain("order_id"), plain("line_no"), plain("SKU"),
		plain("product_id"), plain("qty"), plain("price"), plain("discount_pct"), plain("row_total"), plain("row_total_net"))
	compareTable(t, m, "price history", 500, plain("product id"), plain("price"),
		plain("changed on"), plain("note"), plain("currency code"))
	compareTable(t, m, "newsletter_subscriber", 100,
		plain("store_id"), plain("subscriber_email"), plain("status"), plain("confirm_code"))
	compareTable(t, m, "key", 50, hexed("key"), plain("value"), plain("desc"))
	compareTable(t, m, "category", 50, plain("category_id"), plain("parent_id"), plain("name"), float("weight"),
		float("score"), plain("lead_time"), plain("since"), plain("is_anchor"), plain("display_mode"))
	compareTable(t, m, "coupon", 100, plain("code"), plain("user"), plain("limit"), plain("offset"), datetime("end"),
		plain("select"), plain("discount"))
	compareTable(t, m, "customer_login", 150, plain("login_id"), plain("email"), plain("email_ci"))
	compareTable(t, m, "group", 3, plain("key"), plain("desc"), plain("order"))

}

// repairShop damages the target the way a bad manual fix would, in every
// awkward table, and requires verify to find it and --repair to undo it:
// verify and repair must handle reserved-word and spaced names, keyless
// duplicates, binary keys, BIT, JSON, floats and generated columns.
func repairShop(t *testing.T, m migrated) {
	t.Helper()
	q := m.pgq
	damage := []string{
		`DELETE FROM ` + q("price history") + ` WHERE ctid = (SELECT ctid FROM ` + q("price history") +
			` h WHERE (SELECT count(*) FROM ` + q("price history") + ` d WHERE d."product id" = h."product id" AND d.price = h.price
			AND d."changed on" = h."changed on" AND d.note IS NOT DISTINCT FROM h.note) > 1 LIMIT 1)`,
		`UPDATE ` + q("product") + ` SET "Größe" = 'zz', attributes = '{"x": 1}', is_active = ~is_active, name = 'X' WHERE product_id = (SELECT min(product_id) FROM ` + q("product") + `)`,
		`DELETE FROM ` + q("OrderItems") + ` WHERE (order_id, line_no) = (SELECT order_id, line_no FROM ` + q("OrderItems") + ` ORDER BY order_id DESC LIMIT 1)`,
		`UPDATE ` + q("order") + ` SET "desc" = 'tampered', is_gift = B'1', payload = '[]' WHERE order_id = (SELECT max(order_id) FROM ` + q("order") + `)`,
		`UPDATE ` + q("category") + ` SET weight = weight + 1, lead_time = NULL WHERE category_id = (SELECT max(category_id) FROM ` + q("category") + `)`,
		`DELETE FROM ` + q("key") + ` WHERE position('\x00ff'::bytea in "key") > 0 AND ctid = (SELECT min(ctid) FROM ` + q("key") + ` WHERE position('\x00ff'::bytea in "key") > 0)`,
		`INSERT INTO ` + q("newsletter_subscriber") + ` (store_id, subscriber_email, status) VALUES (9, NULL, 9)`,
	}
	damageAndRepair(t, m, damage, "price history", "product", "OrderItems", "order", "category", "key", "newsletter_subscriber")
}

func seedShop(t *testing.T, my flavorDB) {
	t.Helper()
	_, err := my.Exec(`
INSERT INTO ` + "`group`" + ` VALUES ('shoes', 'Chaussures à talons', 1), ('bags', 'Sacs et accessoires', 2), ('hats', 'Hüte', 3), ('misc', '', 0);
INSERT INTO product (SKU, name, slug, ean, ` + "`group`" + `, price, special_price, qty_tiny, qty_small, qty_medium, qty,
                     views, balance, is_active, flags, attributes, sku_hash, ` + "`Größe`" + `, created_at)
  SELECT CONCAT('SKU-', LPAD(seq, 6, '0'), ELT(1 + seq % 4, '', 'é', '€', 'ÿ')),
         CONCAT(ELT(1 + seq % 6, 'Chaussure', 'ÉCHARPE', 'Straße Schuh', 'ΣΑΣ bag', 'İstanbul hat', 'plain'), ' #', seq),
         CONCAT('slug-', seq, ELT(1 + seq % 3, '', '-Upper', '-ü')),
         IF(seq % 3 = 0, NULL, CONCAT('40', LPAD(seq, 11, '0'))),
         ELT(1 + seq % 5, NULL, 'shoes', 'bags', 'hats', 'misc'),
         ELT(1 + seq % 5, 0.000001, 19.990000, 9999999999999.999999, 1234.5, 0),
         IF(seq % 4 = 0, NULL, 9.99),
         IF(seq % 10 = 0, 255, seq % 256), IF(seq % 10 = 0, 65535, seq), IF(seq % 10 = 0, 16777215, seq * 7),
         IF(seq % 10 = 0, 4294967295, seq * 100),
         IF(seq % 10 = 0, 18446744073709551615, IF(seq % 10 = 1, 9223372036854775808, seq)),
         IF(seq % 10 = 0, -9223372036854775808, IF(seq % 10 = 1, 9223372036854775807, -seq)),
         seq % 2, seq % 256,
         IF(seq % 5 = 0, NULL, JSON_OBJECT('color', ELT(1 + seq % 3, 'red', 'grün', 'blue "navy"'), 'size', seq % 50,
                                           'tags', JSON_ARRAY('a', seq, 1.5, TRUE, NULL), 'big', 12345678901234567890)),
         UNHEX(LEFT(SHA2(seq, 256), 32)), IF(seq % 2 = 0, NULL, ELT(1 + seq % 3, 'XL', 'M', '42½')),
         '2024-02-29 23:59:59.999999' - INTERVAL seq MINUTE
  FROM seq_1_to_1000;
INSERT INTO ` + "`order`" + ` (increment_id, customer_email, state, grand_total, currency, ` + "`desc`" + `, payload, is_gift, created_at)
  SELECT IF(seq % 7 = 0, NULL, CONCAT('10000', seq)), IF(seq % 9 = 0, NULL, CONCAT('buyer', seq % 300, '@example.com')),
         ELT(1 + seq % 5, 'new', 'processing', 'complete', 'canceled', 'closed'), seq * 3.141593,
         ELT(1 + seq % 3, 'EUR', 'USD', 'GBP'), IF(seq % 4 = 0, NULL, CONCAT('Livraison à domicile, ', seq, ' €')),
         IF(seq % 3 = 0, NULL, JSON_OBJECT('ip', CONCAT('10.0.', seq % 256, '.1'), 'items', seq % 5)),
         IF(seq % 5 = 0, NULL, seq % 2), '2023-01-01 00:00:00' + INTERVAL seq * 37 MINUTE
  FROM seq_1_to_1000;
INSERT INTO ` + "`OrderItems`" + ` (order_id, line_no, SKU, product_id, qty, price, discount_pct)
  SELECT o.order_id, l.seq, p.SKU, p.product_id, l.seq + 0.5, p.price, (o.order_id + l.seq) % 30
  FROM ` + "`order`" + ` o JOIN seq_1_to_3 l JOIN product p ON p.product_id = 1 + (o.order_id * 3 + l.seq) % 1000
  WHERE o.order_id % 4 <> 0 OR l.seq = 1;
INSERT INTO ` + "`price history`" + ` SELECT 1 + seq % 300, 10 + seq % 7, '2024-01-01' + INTERVAL seq % 20 DAY,
  IF(seq % 3 = 0, NULL, 'réduction') FROM seq_1_to_1200;
INSERT INTO newsletter_subscriber (store_id, subscriber_email, status, confirm_code)
  SELECT seq % 3, IF(seq % 3 = 0, NULL, CONCAT('sub', seq, '@example.net')), seq % 4, IF(seq % 2 = 0, NULL, LEFT(SHA2(seq, 256), 32))
  FROM seq_1_to_300;
INSERT INTO ` + "`key`" + ` SELECT CONCAT('counter/', seq, IF(seq % 2 = 0, X'00FF', '')),
  ELT(1 + seq % 3, 18446744073709551615, 0, seq), IF(seq % 2 = 0, NULL, CONCAT('Desc ', seq)) FROM seq_1_to_60;
INSERT INTO coupon (code, ` + "`user`" + `, ` + "`limit`" + `, ` + "`offset`" + `, ` + "`end`" + `, discount)
  SELECT CONCAT('SAVE', seq), IF(seq % 2 = 0, NULL, CONCAT('u', seq)), 10 + seq % 5, seq % 3, '2027-01-01' + INTERVAL seq DAY, 5 + seq % 50
  FROM seq_1_to_100;
INSERT INTO customer_login (email) SELECT CONCAT('Login', seq, '@Example.com') FROM seq_1_to_200;
SET SESSION sql_mode = '';
INSERT INTO category (parent_id, name, weight, score, lead_time, since, is_anchor, display_mode)
  SELECT IF(seq <= 10, NULL, 1 + (seq - 1) DIV 10 - 1 + IF(seq <= 20, 1, 0)), CONCAT('Catégorie ', seq),
         ELT(1 + seq % 6, NULL, 0.1, 1e-7, 3.4e38, -2.5, 16777217), seq / 7, ELT(1 + seq % 5, NULL, '-01:30:00', '838:59:59', '00:00:00.5', '25:00:01'),
         ELT(1 + seq % 4, NULL, 0, 1901, 2155), ELT(1 + seq % 4, 0, 1, 2, -1), ELT(1 + seq % 4, 'PAGE', 'bogus', 'PRODUCTS', '')
  FROM seq_1_to_200;
SET SESSION sql_mode = DEFAULT;`)
	if err != nil {
		t.Fatalf("seed: %v", err)
	}
}

// shopWrite runs one transaction of an online shop; n is unique per call.
func shopWrite(my *sql.DB, rng *rand.Rand, n int64) error {
	product := 1 + rng.IntN(1000)
	switch rng.IntN(14) {
	case 0, 1: // an order with items, stock decremented
		return inTxn(my, func(tx *sql.Tx) error {
			var inc any
			if rng.IntN(4) > 0 {
				inc = fmt.Sprint("20000", n)
			}
			res, err := tx.Exec("INSERT INTO `order` (increment_id, customer_email, grand_total, `desc`, payload, is_gift) VALUES (?, ?, 0, ?, ?, ?)",
				inc, fmt.Sprintf("buyer%d@example.com", rng.IntN(300)), "Commande passée à 10h — ça marche",
				fmt.Sprintf(`{"ip": "10.1.%d.2", "note": "naïve \"quoted\"", "n": %d}`, rng.IntN(256), n), rng.IntN(2))
			if err != nil {
				return err
			}
			id, _ := res.LastInsertId()
			for line := 1; line <= 1+rng.IntN(3); line++ {
				p := 1 + rng.IntN(1000)
				if _, err := tx.Exec("INSERT INTO `OrderItems` (order_id, line_no, SKU, product_id, qty, price, discount_pct) "+
					"SELECT ?, ?, SKU, product_id, ?, price, ? FROM product WHERE product_id = ?",
					id, line, fmt.Sprintf("%d.%04d", 1+rng.IntN(5), rng.IntN(10000)), rng.IntN(50), p); err != nil {
					return err
				}
				if _, err := tx.Exec("UPDATE product SET qty = qty - 1, views = views + 1 WHERE product_id = ? AND qty > 0 AND views < 18446744073709551615", p); err != nil {
					return err
				}
			}
			_, err = tx.Exec("UPDATE `order` SET grand_total = (SELECT IFNULL(SUM(row_total_net), 0) FROM `OrderItems` WHERE order_id = ?) WHERE order_id = ?", id, id)
			return err
		})
	case 2: // an order moves on; its JSON payload records it
		_, err := my.Exec("UPDATE `order` SET state = ELT(1 + ? % 5, 'new', 'processing', 'complete', 'canceled', 'closed'), "+
			"payload = JSON_SET(IFNULL(payload, '{}'), '$.history', JSON_ARRAY(?, 'état')) WHERE order_id = ?", n, n, 1+rng.IntN(1200))
		return err
	case 3: // a cancelled order is purged: its items cascade
		_, err := my.Exec("DELETE FROM `order` WHERE order_id = ?", 1+rng.IntN(1500))
		return err
	case 4: // an order is renumbered: its items follow by ON UPDATE CASCADE
		_, err := my.Exec("UPDATE `order` SET order_id = ? WHERE order_id = ?", 5000000+n, 1+rng.IntN(1000))
		return err
	case 5: // two products swap SKUs (a unique latin1 key) inside one transaction
		other := 1 + rng.IntN(1000)
		if other == product {
			return nil
		}
		return inTxn(my, func(tx *sql.Tx) error {
			var a, b string
			if err := tx.QueryRow("SELECT SKU FROM product WHERE product_id = ? FOR UPDATE", product).Scan(&a); err != nil {
				return nil // replaced or gone
			}
			if err := tx.QueryRow("SELECT SKU FROM product WHERE product_id = ? FOR UPDATE", other).Scan(&b); err != nil {
				return nil
			}
			return errorsFirst(
				exec(tx, "UPDATE product SET SKU = ? WHERE product_id = ?", fmt.Sprint("swap-", n), product),
				exec(tx, "UPDATE product SET SKU = ? WHERE product_id = ?", a, other),
				exec(tx, "UPDATE product SET SKU = ? WHERE product_id = ?", b, product))
		})
	case 6: // REPLACE of a product: MySQL deletes it (items get product_id NULL) and inserts it again
		_, err := my.Exec("REPLACE INTO product (product_id, SKU, name, slug, ean, price, sku_hash, attributes) "+
			"VALUES (?, ?, ?, ?, NULL, ?, UNHEX(LEFT(SHA2(?, 256), 32)), ?)", product, fmt.Sprint("RE-", n), fmt.Sprint("Replaced Ünïcode ", n),
			fmt.Sprint("re-", n), fmt.Sprintf("%d.%06d", rng.IntN(1000), rng.IntN(1000000)), n, `{"replaced": true}`)
		return err
	case 7: // counters at the maxima: upsert, decrement from the top
		key := fmt.Sprint("counter/", 1+rng.IntN(80))
		_, err := my.Exec("INSERT INTO `key` (`key`, `value`) VALUES (?, 18446744073709551615) "+
			"ON DUPLICATE KEY UPDATE `value` = IF(`value` = 0, 18446744073709551615, `value` - 1), `desc` = 'Σ'", key)
		return err
	case 8: // the keyless log: a duplicate appended, one of several copies changed or removed
		return inTxn(my, func(tx *sql.Tx) error {
			p := 1 + rng.IntN(300)
			return execAll(tx,
				fmt.Sprintf("INSERT INTO `price history` (`product id`, price, `changed on`, note) SELECT `product id`, price, `changed on`, note FROM `price history` WHERE `product id` = %d LIMIT 1", p),
				fmt.Sprintf("UPDATE `price history` SET price = price + 1 WHERE `product id` = %d LIMIT 1", 1+rng.IntN(300)),
				fmt.Sprintf("DELETE FROM `price history` WHERE `product id` = %d AND note IS NULL LIMIT 1", 1+rng.IntN(300)))
		})
	case 9: // newsletter: NULL e-mails repeat, a subscriber confirms, one leaves
		return inTxn(my, func(tx *sql.Tx) error {
			var email any
			if rng.IntN(2) == 0 {
				email = fmt.Sprintf("new%d@example.net", n)
			}
			return errorsFirst(
				exec(tx, "INSERT INTO newsletter_subscriber (store_id, subscriber_email, status) VALUES (?, ?, 1)", rng.IntN(3), email),
				exec(tx, "UPDATE newsletter_subscriber SET status = 2, confirm_code = NULL WHERE subscriber_email = ?", fmt.Sprintf("sub%d@example.net", 1+rng.IntN(300))),
				exec(tx, "DELETE FROM newsletter_subscriber WHERE subscriber_email IS NULL AND store_id = ? LIMIT 1", rng.IntN(3)))
		})
	case 11: // the category tree: a subtree is removed by ON DELETE CASCADE, a node added, one moved
		return inTxn(my, func(tx *sql.Tx) error {
			return errorsFirst(
				exec(tx, "DELETE FROM category WHERE category_id = ? AND category_id > 10", 1+rng.IntN(400)),
				exec(tx, "INSERT INTO category (parent_id, name, weight, score, lead_time, since) SELECT MIN(category_id), ?, ?, ?, ?, ? FROM category",
					fmt.Sprint("Neue Kategorie ", n), float32(rng.Float64()*100), rng.Float64(), fmt.Sprintf("-%d:15:00", rng.IntN(800)), 1901+rng.IntN(255)),
				exec(tx, "UPDATE category SET parent_id = ?, weight = weight / 2 WHERE category_id = ? AND category_id > 10", 1+rng.IntN(10), 11+rng.IntN(300)))
		})
	case 12: // an e-mail address moves to another login in the next transaction (unique by a VIRTUAL column)
		a, b := 1+rng.IntN(200), 1+rng.IntN(200)
		var email string
		if err := my.QueryRow("SELECT email FROM customer_login WHERE login_id = ?", a).Scan(&email); err != nil || a == b {
			return err
		}
		if _, err := my.Exec("UPDATE customer_login SET email = ? WHERE login_id = ?", fmt.Sprint("old", n, "@example.com"), a); err != nil {
			return err
		}
		_, err := my.Exec("UPDATE customer_login SET email = UPPER(?) WHERE login_id = ?", email, b)
		return err
	case 13: // a coupon is used, renamed (primary key change) or replaced
		code := fmt.Sprint("SAVE", 1+rng.IntN(100))
		return inTxn(my, func(tx *sql.Tx) error {
			return errorsFirst(
				exec(tx, "UPDATE coupon SET `offset` = `offset` + 1, `end` = NOW() WHERE code = ? AND `offset` < `limit`", code),
				exec(tx, "UPDATE coupon SET code = ? WHERE code = ?", fmt.Sprint("X", n), code),
				exec(tx, "INSERT INTO coupon (code, `user`, `limit`, discount) VALUES (?, 'anyone', 3, 12.50) ON DUPLICATE KEY UPDATE `limit` = `limit` + 1", code))
		})
	default: // a product edit: price (stored generated), name (virtual), bit flags, JSON
		_, err := my.Exec("UPDATE product SET price = price + 0.000001, name = CONCAT(name, ' Ä'), is_active = NOT is_active, "+
			"flags = flags ^ b'10000001', attributes = JSON_SET(IFNULL(attributes, '{}'), '$.size', ?, '$.\"key with space\"', 'ü') WHERE product_id = ?",
			rng.IntN(50), product)
		return err
	}
}

// exec runs one statement in tx; errorsFirst returns the first error of
// several statements already run in order. Both keep a transaction's
// statements short to read.
func exec(tx *sql.Tx, q string, args ...any) error {
	_, err := tx.Exec(q, args...)
	return err
}

func errorsFirst(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// shopPGWrite is one transaction of the shop writing to PostgreSQL after the
// cut-over: orders with items (identity ids, latin1 text, JSON, BIT,
// DECIMAL), state changes and JSON edits, cancellations cascading to items,
// order key changes cascading (ON UPDATE CASCADE), product rows at the
// unsigned and signed extremes, BIT patterns, categories with TIME beyond
// 24 h (written as days), YEAR and ENUM, keyless duplicates changed one at a
// time, binary keys, coupons at DATETIME's ends, group key renames
// cascading to products.
func shopPGWrite(ctx context.Context, tx pgx.Tx, q func(string) string, rng *rand.Rand) error {
	product := 1 + rng.IntN(1000)
	switch rng.IntN(9) {
	case 0, 1: // an order with items
		var id int64
		if err := tx.QueryRow(ctx, "INSERT INTO "+q("order")+` (customer_email, state, grand_total, currency, "desc", payload, is_gift, coupon)
			VALUES ($1, 'new', $2, 'EUR', 'Livraison à domicile, 5 € — Œuvre', $3, B'1', 'SOLDÉ') RETURNING order_id`,
			fmt.Sprintf("pg%d@example.com", rng.IntN(1000)), fmt.Sprintf("%d.%06d", rng.IntN(1e9), rng.IntN(1e6)),
			fmt.Sprintf(`{"ip": "2001:db8::%x", "note": "🎁 \"gift\" \\ wrap", "n": %d, "f": 1.5e300, "nested": {"a": [true, null]}}`, rng.IntN(1e4), rng.IntN(1e6))).Scan(&id); err != nil {
			return err
		}
		return pgExecs(ctx, tx, "INSERT INTO "+q("OrderItems")+` (order_id, line_no, "SKU", product_id, qty, price, discount_pct)
			SELECT $1, l, "SKU", product_id, l + 0.1234, price, 101 - l FROM `+q("product")+`, generate_series(1, 3) l
			WHERE product_id = $2`, []any{id, product})
	case 2: // the order moves on; its payload edited; or cancelled (items cascade)
		if rng.IntN(3) == 0 {
			return pgExecs(ctx, tx, "DELETE FROM "+q("order")+" WHERE order_id = (SELECT min(order_id) FROM "+q("order")+" WHERE state = 'canceled')", []any{})
		}
		return pgExecs(ctx, tx, "UPDATE "+q("order")+` SET state = $1, payload = jsonb_set(COALESCE(payload, '{}'), '{status}', to_jsonb($2::text)),
			is_gift = NULL, increment_id = NULL WHERE order_id = (SELECT max(order_id) - $3 FROM `+q("order")+")",
			[]any{[]string{"processing", "complete", "canceled", "closed"}[rng.IntN(4)], fmt.Sprintf("état ✓ 😀 %d", rng.IntN(100)), rng.IntN(50)})
	case 3: // an order renumbered: its items follow (ON UPDATE CASCADE)
		return pgExecs(ctx, tx, "UPDATE "+q("order")+" SET order_id = order_id + 10000000 WHERE order_id = (SELECT min(order_id) FROM "+q("order")+
			" WHERE order_id < 10000000 AND state = 'closed')", []any{})
	case 4: // a product at the extremes
		return pgExecs(ctx, tx, "UPDATE "+q("product")+` SET flags = $1::bit(8), is_active = $2::bit(1), attributes = $3,
			views = 18446744073709551615, qty_tiny = 255, qty_small = 65535, qty_medium = 16777215, qty = 4294967295,
			balance = $4, price = 9999999999999.999999, "Größe" = '42½', updated_at = '2038-01-19 03:14:07.999+00', meta_title = 'Prix spécial €'
			WHERE product_id = $5`,
			[]any{fmt.Sprintf("%08b", rng.IntN(256)), fmt.Sprint(rng.IntN(2)), `{"color": "grün 🎨", "size": [1, 2.5], "big": 12345678901234567890}`,
				[]int64{math.MinInt64, math.MaxInt64, 0}[rng.IntN(3)], product})
	case 5: // categories: TIME beyond 24 h, YEAR, ENUM, floats
		if rng.IntN(3) == 0 {
			return pgExecs(ctx, tx, "INSERT INTO "+q("category")+` (parent_id, name, weight, score, lead_time, since, is_anchor, display_mode)
				VALUES (1, $1, 3.4e38, -1.7976931348623157e308, interval '34 days 22:59:59', 2155, 0, 'PRODUCTS_AND_PAGE')`,
				[]any{fmt.Sprintf("Catégorie PG 😀 %d", rng.IntN(1e6))})
		}
		return pgExecs(ctx, tx, "UPDATE "+q("category")+` SET lead_time = $1::interval, since = $2, weight = $3, display_mode = 'PAGE'
			WHERE category_id = $4`,
			[]any{[]string{"-838:59:59", "1 day 01:00:01", "25:00:00", "00:00:00", "-1 days -02:00:00"}[rng.IntN(5)],
				[]int{1901, 2155, 0, 2026}[rng.IntN(4)], float32(rng.NormFloat64()), 1 + rng.IntN(200)})
	case 6: // keyless price history: twins, then one changed, one removed
		note := fmt.Sprintf("remise PG 🎁 %d", rng.IntN(50))
		return pgExecs(ctx, tx,
			"INSERT INTO "+q("price history")+` ("product id", price, "changed on", note, "currency code") VALUES ($1, 1.5, '2026-06-30', $2, 'CHF'), ($1, 1.5, '2026-06-30', $2, 'CHF')`,
			[]any{product, note},
			"UPDATE "+q("price history")+` SET price = 2.25 WHERE ctid = (SELECT ctid FROM `+q("price history")+` WHERE note = $1 AND price = 1.5 LIMIT 1)`, []any{note},
			"DELETE FROM "+q("price history")+` WHERE ctid = (SELECT ctid FROM `+q("price history")+` WHERE "product id" = $1 AND note IS NULL LIMIT 1)`, []any{product})
	case 7: // counters under binary keys; newsletter subscribers without e-mail
		return pgExecs(ctx, tx,
			"INSERT INTO "+q("key")+` AS k ("key", "value", "desc") VALUES ($1, 1, 'PG ✓') ON CONFLICT ("key") DO UPDATE SET "value" = k."value" + 1`,
			[]any{[]byte(fmt.Sprintf("pg/\x00\xff/%d", rng.IntN(30)))},
			"INSERT INTO "+q("newsletter_subscriber")+" (store_id, subscriber_email, status, confirm_code) VALUES (65535, NULL, -128, NULL), (0, $1, 127, 'abc')",
			[]any{fmt.Sprintf("pg%d@example.net", rng.Int64())})
	default: // coupons at DATETIME's ends, logins, a group renamed (products follow)
		if rng.IntN(10) == 0 {
			return pgExecs(ctx, tx, "UPDATE "+q("group")+` SET "key" = CASE WHEN "key" = 'hats' THEN 'hats-v2' ELSE 'hats' END, "desc" = 'Hüte 🎩'
				WHERE "key" IN ('hats', 'hats-v2')`, []any{})
		}
		return pgExecs(ctx, tx,
			"INSERT INTO "+q("coupon")+` AS c (code, "user", "limit", "offset", "end", "select", discount) VALUES ($1, NULL, 4294967295, -32768, $2, 'first', 100)
				ON CONFLICT (code) DO UPDATE SET "end" = EXCLUDED."end", discount = 0.01`,
			[]any{fmt.Sprintf("PG%d", rng.IntN(40)), []string{"1000-01-01 00:00:00", "9999-12-31 23:59:59", "1970-01-01 00:00:00"}[rng.IntN(3)]},
			"INSERT INTO "+q("customer_login")+" (email) VALUES ($1)", []any{fmt.Sprintf("PG.Login%d@Example.com", rng.Int64())})
	}
}
