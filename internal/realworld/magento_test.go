package realworld

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/testenv"
)

// magentoMode is Magento's session sql_mode: NO_AUTO_VALUE_ON_ZERO, so the
// admin store and website keep id 0 in their AUTO_INCREMENT columns.
const magentoMode = "STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION,NO_AUTO_VALUE_ON_ZERO"

// TestMagento migrates a Magento 2 schema (testdata/magento.sql: EAV value
// tables with (entity_id, attribute_id, store_id) unique keys, SMALLINT
// UNSIGNED ids with the admin store 0, DECIMAL(20,6), TIMESTAMP ON UPDATE,
// ON DELETE CASCADE and SET NULL across the tables and a self-referencing
// order item, VARBINARY, a keyless indexer table) into PostgreSQL under a
// store's load: products saved attribute by attribute (multi-row upserts on
// the EAV keys), created and deleted (cascading over every value table),
// orders with configurable parent and child items placed and cancelled,
// stock moved, configuration saved, tokens issued and revoked, the price
// index rebuilt; mid-stream, setup:upgrade's schema changes and a store
// view deleted (a cascade over every EAV table).
func TestMagento(t *testing.T) {
	t.Parallel()
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		m := magentoScenario(env).run(t)
		requireNoWarningsAbout(t, m, "default", "generated column expression", "not created")
		compareMagento(t, m)
		if t.Failed() {
			return
		}
		q := m.pgq
		damageAndRepair(t, m, []string{
			`UPDATE ` + q("catalog_product_entity_decimal") + ` SET value = value + 0.000001 WHERE value_id = (SELECT min(value_id) FROM ` + q("catalog_product_entity_decimal") + ` WHERE value IS NOT NULL)`,
			`DELETE FROM ` + q("catalog_product_entity_varchar") + ` WHERE value_id = (SELECT max(value_id) FROM ` + q("catalog_product_entity_varchar") + `)`,
			`UPDATE ` + q("oauth_token") + ` SET nonce_hash = '\x00'::bytea WHERE entity_id = (SELECT min(entity_id) FROM ` + q("oauth_token") + `)`,
			`INSERT INTO ` + q("catalog_product_index_price_tmp") + ` (entity_id, customer_group_id, website_id) VALUES (1, 0, 1)`,
		}, "catalog_product_entity_decimal", "catalog_product_entity_varchar", "oauth_token", "catalog_product_index_price_tmp")
		compareMagento(t, m)
		wayBack(t, m, wayBackLoad{write: magentoPGWrite, minWrites: 100, proof: "SELECT count(*) FROM sales_order WHERE protect_code LIKE 'pg%'",
			fallback: []string{"INSERT INTO catalog_product_entity (sku) VALUES ('after-fallback')",
				"INSERT INTO sales_order (increment_id, store_id) VALUES ('after-fallback', 0)"}})
		// After a cut-over: the admin's store 0 exists, new rows get fresh ids,
		// a product deleted takes its EAV rows along.
		requireCutover(t, m, `INSERT INTO `+q("catalog_product_entity")+` (sku) VALUES ('after-cut-over')`,
			`INSERT INTO `+q("catalog_product_entity_varchar")+` (attribute_id, store_id, entity_id, value)
				SELECT 1, 0, max(entity_id), 'After cut-over' FROM `+q("catalog_product_entity"),
			`DELETE FROM `+q("catalog_product_entity")+` WHERE entity_id = (SELECT min(entity_id) FROM `+q("catalog_product_entity")+`)`)
	})
}

// TestMagentoIntoMySQL runs the Magento scenario into the MariaDB target.
func TestMagentoIntoMySQL(t *testing.T) {
	t.Parallel()
	intoMySQLFlavors(t, func(t *testing.T, env *testenv.Env) {
		s := magentoScenario(env)
		s.into = intoMySQL("InnoDB")
		m := s.run(t)
		compareBytes(t, m)
		if t.Failed() {
			return
		}
		damageAndRepair(t, m, []string{
			"UPDATE " + m.q("catalog_product_entity_text") + " SET value = CONCAT(value, 'x') ORDER BY value_id LIMIT 1",
			"DELETE FROM " + m.q("catalog_product_index_price_tmp") + " ORDER BY entity_id LIMIT 1",
		}, "catalog_product_entity_text", "catalog_product_index_price_tmp")
		compareBytes(t, m)
	})
}

func magentoScenario(env *testenv.Env) scenario {
	var seq atomic.Int64
	return scenario{
		env:        env,
		prefix:     "rw_mage",
		schemaFile: "magento.sql",
		sqlMode:    magentoMode,
		seed:       seedMagento,
		write:      func(my *sql.DB, rng *rand.Rand) error { return magentoWrite(my, rng, seq.Add(1)) },
		midStream: []string{
			// setup:upgrade of a newer release.
			"ALTER TABLE `catalog_product_entity_varchar` MODIFY `value` VARCHAR(512) DEFAULT NULL",
			"ALTER TABLE `cataloginventory_stock_item` ADD COLUMN `is_qty_decimal` SMALLINT UNSIGNED NOT NULL DEFAULT 0 AFTER `qty`",
			"ALTER TABLE `sales_order_item` ADD INDEX `SALES_ORDER_ITEM_STORE_ID` (`store_id`)",
			"ALTER TABLE `sales_order` ADD COLUMN `customer_note_notify` SMALLINT UNSIGNED DEFAULT 1",
			"CREATE TABLE `inventory_reservation` (`reservation_id` INT UNSIGNED NOT NULL AUTO_INCREMENT, `stock_id` INT UNSIGNED NOT NULL, " +
				"`sku` VARCHAR(64) NOT NULL, `quantity` DECIMAL(10,4) NOT NULL DEFAULT 0.0000, `metadata` VARCHAR(255) DEFAULT NULL, " +
				"PRIMARY KEY (`reservation_id`), KEY `INVENTORY_RESERVATION_STOCK_ID_SKU_QUANTITY` (`stock_id`, `sku`, `quantity`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb3",
			"INSERT INTO `inventory_reservation` (stock_id, sku, quantity, metadata) SELECT 1, sku, -1.5, " +
				"CONCAT('{\"event_type\":\"order_placed\",\"object_type\":\"order\",\"object_id\":\"', entity_id, '\"}') FROM `catalog_product_entity` WHERE entity_id % 10 = 0",
			// 2.4.4: utf8mb3 to utf8mb4, then text utf8mb3 cannot hold.
			"ALTER TABLE `customer_entity` CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci",
			"UPDATE `customer_entity` SET `lastname` = CONCAT(`lastname`, ' 😀') WHERE `entity_id` % 9 = 0",
			// A store view deleted: its values go from every EAV table,
			// orders keep their rows with store_id NULL.
			"DELETE FROM `store` WHERE `store_id` = 4",
		},
	}
}

// compareMagento compares every table value by value.
func compareMagento(t *testing.T, m migrated) {
	t.Helper()
	n := compareAllPG(t, m, map[string]int{"store_website": 3, "store": 4, "eav_attribute": 16, "catalog_product_entity": 400,
		"catalog_product_entity_int": 800, "catalog_product_entity_decimal": 600, "catalog_product_entity_varchar": 800,
		"catalog_product_entity_text": 300, "catalog_product_entity_datetime": 50, "cataloginventory_stock_item": 400,
		"customer_entity": 200, "sales_order": 300, "sales_order_item": 500, "core_config_data": 60, "oauth_token": 40,
		"catalog_product_index_price_tmp": 400, "inventory_reservation": 30})
	if n != 17 {
		t.Errorf("%d tables compared, want 17", n)
	}
	var admin, children, dups int
	if err := m.my.QueryRow("SELECT (SELECT count(*) FROM store WHERE store_id = 0) + (SELECT count(*) FROM store_website WHERE website_id = 0), "+
		"(SELECT count(*) FROM sales_order_item WHERE parent_item_id IS NOT NULL), "+
		"(SELECT count(*) FROM (SELECT 1 FROM catalog_product_index_price_tmp GROUP BY entity_id, customer_group_id, website_id HAVING count(*) > 1) d)").
		Scan(&admin, &children, &dups); err != nil || admin != 2 || children == 0 || dups == 0 {
		t.Errorf("admin rows %d (want 2), child items %d, duplicated index rows %d (%v): the test lost its point", admin, children, dups, err)
	}
}

func seedMagento(t *testing.T, my flavorDB) {
	t.Helper()
	_, err := my.Exec(`
INSERT INTO store_website VALUES (0, 'admin', 'Admin', 0, 0, 0), (1, 'base', 'Main Website', 0, 1, 1), (2, 'eu', 'EU Wébsite', 1, 2, 0);
INSERT INTO store VALUES (0, 'admin', 0, 'Admin', 0, 1), (1, 'default', 1, 'Default Store View', 0, 1), (2, 'de', 1, 'Deutsch', 1, 1),
  (3, 'fr', 2, 'Français', 0, 1), (4, 'old', 2, 'Old view', 9, 0);
INSERT INTO eav_attribute (attribute_id, entity_type_id, attribute_code, backend_type, frontend_input, frontend_label, is_required, is_user_defined, default_value) VALUES
  (1, 4, 'name', 'varchar', 'text', 'Product Name', 1, 0, NULL), (2, 4, 'price', 'decimal', 'price', 'Price', 1, 0, NULL),
  (3, 4, 'special_price', 'decimal', 'price', 'Special Price', 0, 0, NULL), (4, 4, 'cost', 'decimal', 'price', 'Cost', 0, 0, NULL),
  (5, 4, 'weight', 'decimal', 'weight', 'Weight', 0, 0, NULL), (6, 4, 'status', 'int', 'select', 'Enable Product', 0, 0, '1'),
  (7, 4, 'visibility', 'int', 'select', 'Visibility', 0, 0, '4'), (8, 4, 'tax_class_id', 'int', 'select', 'Tax Class', 0, 0, '2'),
  (9, 4, 'description', 'text', 'textarea', 'Description', 0, 0, NULL), (10, 4, 'short_description', 'text', 'textarea', 'Short Description', 0, 0, NULL),
  (11, 4, 'news_from_date', 'datetime', 'date', 'Set Product as New from Date', 0, 0, NULL),
  (12, 4, 'special_from_date', 'datetime', 'date', 'Special Price From Date', 0, 0, NULL), (13, 4, 'url_key', 'varchar', 'text', 'URL Key', 0, 0, NULL),
  (14, 4, 'color', 'int', 'select', 'Color', 0, 1, NULL), (15, 4, 'swatch_data', 'text', 'textarea', 'Swatch «données»', 0, 1, '{}'),
  (16, 1, 'email', 'static', 'text', 'Email', 1, 0, NULL);
INSERT INTO catalog_product_entity (attribute_set_id, type_id, sku, has_options, required_options, created_at, updated_at)
  SELECT 4 + seq % 3, ELT(1 + seq % 5, 'simple', 'simple', 'configurable', 'virtual', 'bundle'), CONCAT(ELT(1 + seq % 3, 'MH', 'WS', 'Ü-'), LPAD(seq, 5, '0')),
         seq % 2, seq % 3 = 0, '2023-01-01 00:00:00' + INTERVAL seq HOUR, '2024-01-01 00:00:00' + INTERVAL seq MINUTE
  FROM seq_1_to_500;
INSERT INTO catalog_product_entity_varchar (attribute_id, store_id, entity_id, value)
  SELECT a.seq, s.seq - 1, p.seq, IF(a.seq = 1, CONCAT(ELT(1 + (p.seq + s.seq) % 4, 'Hero Hoodie', 'Jupiter Jacket «Ü»', 'Sprite Yoga Strap 6''', 'Fußball ⚽'), ' ', p.seq),
         CONCAT('url-', p.seq, IF(s.seq = 3, '-de', '')))
  FROM seq_1_to_500 p JOIN seq_1_to_5 s JOIN seq_1_to_13 a
  WHERE a.seq IN (1, 13) AND (s.seq = 1 OR (s.seq = 3 AND p.seq % 3 = 0) OR (s.seq = 5 AND p.seq % 4 = 0));
INSERT INTO catalog_product_entity_decimal (attribute_id, store_id, entity_id, value)
  SELECT a.seq, IF(a.seq = 3 AND p.seq % 5 = 0, 1, 0), p.seq,
         ELT(a.seq - 1, 10.5 + p.seq, IF(p.seq % 7 = 0, NULL, 9.999999 + p.seq / 1000), 99999999999999.999999, p.seq * 0.000001)
  FROM seq_1_to_500 p JOIN seq_2_to_5 a WHERE a.seq = 2 OR (a.seq = 3 AND p.seq % 2 = 0) OR (a.seq = 4 AND p.seq % 50 = 0) OR (a.seq = 5 AND p.seq % 3 = 0);
INSERT INTO catalog_product_entity_int (attribute_id, store_id, entity_id, value)
  SELECT a.seq, IF(a.seq = 6 AND p.seq % 6 = 0, 4, 0), p.seq, ELT(a.seq - 5, 1 + p.seq % 2, 4, 2, IF(p.seq % 9 = 0, NULL, -p.seq))
  FROM seq_1_to_500 p JOIN seq_6_to_14 a WHERE a.seq IN (6, 7, 8) OR (a.seq = 14 AND p.seq % 4 = 0);
INSERT INTO catalog_product_entity_text (attribute_id, store_id, entity_id, value)
  SELECT ELT(1 + p.seq % 3, 9, 10, 15), IF(p.seq % 5 = 0, 2, 0), p.seq,
         ELT(1 + p.seq % 3, CONCAT('<p>The <strong>Hero</strong> hoodie — «chaud» & cosy ★</p>\n<p>', REPEAT('Lorem ipsum ', 30), '</p>'),
             'Kurzbeschreibung: Größe M–XXL', CONCAT('{"swatch":{"color":"#', LPAD(HEX(p.seq * 4097), 6, '0'), '","label":"Blau \\"navy\\""}}'))
  FROM seq_1_to_500 p WHERE p.seq % 5 <> 4;
INSERT INTO catalog_product_entity_datetime (attribute_id, store_id, entity_id, value)
  SELECT 11 + p.seq % 2, IF(p.seq % 6 = 0, 4, 0), p.seq, '2024-03-01 00:00:00' + INTERVAL p.seq DAY FROM seq_1_to_500 p WHERE p.seq % 3 = 0;
INSERT INTO cataloginventory_stock_item (product_id, stock_id, qty, min_qty, is_in_stock, low_stock_date, website_id)
  SELECT seq, 1, IF(seq % 10 = 0, NULL, seq * 1.5), 0, seq % 10 <> 1, IF(seq % 10 = 1, '2024-02-29 12:00:00', NULL), 0 FROM seq_1_to_500;
INSERT INTO customer_entity (website_id, email, group_id, store_id, created_at, updated_at, is_active, firstname, lastname, dob, password_hash, rp_token, rp_token_created_at, failures_num, lock_expires)
  SELECT IF(seq % 20 = 0, NULL, 1 + seq % 2), CONCAT('Roni.Cost', seq, '@Example.com'), 1 + seq % 3, IF(seq % 7 = 0, 4, 1 + seq % 3),
         '2022-06-01 00:00:00' + INTERVAL seq DAY, '2023-06-01 00:00:00' + INTERVAL seq DAY, seq % 11 <> 0,
         ELT(1 + seq % 3, 'Veronica', 'Jörg', 'Zoë'), CONCAT('Costello ', seq), IF(seq % 4 = 0, NULL, '1973-12-15' + INTERVAL seq DAY),
         CONCAT(SHA2(seq, 256), ':', LEFT(SHA2(seq + 1, 256), 32), ':3_32_2_67108864'), IF(seq % 3 = 0, NULL, LEFT(SHA2(seq + 2, 256), 32)),
         IF(seq % 3 = 0, NULL, '2024-01-01 10:00:00'), seq % 4, IF(seq % 10 = 0, '2030-01-01 00:00:00', NULL)
  FROM seq_1_to_200;
INSERT INTO sales_order (state, status, protect_code, store_id, customer_id, base_grand_total, grand_total, total_qty_ordered, customer_is_guest,
    increment_id, customer_email, remote_ip, customer_note, created_at, updated_at)
  SELECT ELT(1 + seq % 4, 'new', 'processing', 'complete', 'canceled'), ELT(1 + seq % 4, 'pending', 'processing', 'complete', 'canceled'),
         LEFT(SHA2(seq, 256), 6), IF(seq % 8 = 0, 4, 1 + seq % 3), IF(seq % 5 = 0, NULL, 1 + seq % 200), seq * 12.3456, seq * 12.3456, 1 + seq % 4,
         seq % 5 = 0, LPAD(seq, 9, '0'), CONCAT('roni.cost', seq % 200, '@example.com'),
         IF(seq % 2 = 0, CONCAT('10.0.', seq % 256, '.1'), CONCAT('2001:db8::', HEX(seq))), IF(seq % 6 = 0, 'Bitte klingeln — «merci»', NULL),
         '2024-01-01 00:00:00' + INTERVAL seq * 37 MINUTE, '2024-01-02 00:00:00' + INTERVAL seq * 37 MINUTE
  FROM seq_1_to_400;
INSERT INTO sales_order_item (order_id, store_id, product_id, product_type, product_options, weight, sku, name, qty_ordered, price, row_total, created_at)
  SELECT o.seq, IF(o.seq % 8 = 0, 4, 1), 1 + (o.seq * 7 + l.seq) % 500, IF(l.seq = 1, 'configurable', 'simple'),
         CONCAT('{"info_buyRequest":{"qty":', l.seq, ',"super_attribute":{"93":"', 50 + l.seq, '"}},"options":[]}'),
         l.seq * 0.5, CONCAT('MH', LPAD(o.seq, 5, '0'), '-', l.seq), CONCAT('Item «', l.seq, '»'), l.seq, 10.5 + o.seq, (10.5 + o.seq) * l.seq,
         '2024-01-01 00:00:00' + INTERVAL o.seq * 37 MINUTE
  FROM seq_1_to_400 o JOIN seq_1_to_2 l;
UPDATE sales_order_item c JOIN sales_order_item p ON p.order_id = c.order_id AND p.product_type = 'configurable'
  SET c.parent_item_id = p.item_id WHERE c.product_type = 'simple' AND c.order_id % 2 = 0;
INSERT INTO core_config_data (scope, scope_id, path, value)
  SELECT ELT(1 + seq % 3, 'default', 'websites', 'stores'), IF(seq % 3 = 0, 0, 1 + seq % 2), CONCAT('web/section_', seq, '/field'),
         ELT(1 + seq % 4, NULL, '1', 'a:2:{s:4:"from";s:1:"0";s:2:"to";s:3:"99";}', '{"ü":"★","n":1.50}')
  FROM seq_1_to_60;
INSERT INTO oauth_token (consumer_id, customer_id, type, token, secret, verifier, callback_url, revoked, authorized, user_type, created_at, nonce_hash)
  SELECT IF(seq % 2 = 0, NULL, seq), 1 + seq % 200, ELT(1 + seq % 3, 'access', 'request', 'verifier'), LEFT(SHA2(seq, 256), 32), SHA2(seq + 7, 256),
         IF(seq % 3 = 0, NULL, LEFT(SHA2(seq + 9, 256), 32)), 'oob', seq % 4 = 0, seq % 2, 1 + seq % 4, '2024-05-01 00:00:00' + INTERVAL seq HOUR,
         IF(seq % 5 = 0, NULL, CONCAT(X'00FF', UNHEX(SHA2(seq, 256))))
  FROM seq_1_to_50;
INSERT INTO catalog_product_index_price_tmp SELECT p.seq, g.seq - 1, 1, 2, 10.5 + p.seq, 9.5 + p.seq, 9.5 + p.seq, 10.5 + p.seq, NULL
  FROM seq_1_to_250 p JOIN seq_1_to_2 g;
INSERT INTO catalog_product_index_price_tmp SELECT entity_id, customer_group_id, website_id, tax_class_id, price, final_price, min_price, max_price, tier_price
  FROM catalog_product_index_price_tmp WHERE entity_id % 10 = 0;`)
	if err != nil {
		t.Fatalf("seed: %v", err)
	}
}

// magentoWrite runs one transaction of a Magento store; n is unique per call.
func magentoWrite(my *sql.DB, rng *rand.Rand, n int64) error {
	product := 1 + rng.IntN(520)
	store := rng.IntN(4) // 0..3: store 4 goes mid-stream
	switch rng.IntN(10) {
	case 0, 1: // a product saved in the admin: attribute upserts on the EAV keys
		return inTxn(my, func(tx *sql.Tx) error {
			var ok int
			if err := tx.QueryRow("SELECT count(*) FROM catalog_product_entity WHERE entity_id = ? FOR UPDATE", product).Scan(&ok); err != nil || ok == 0 {
				return err
			}
			if _, err := tx.Exec("UPDATE catalog_product_entity SET has_options = 1 - has_options WHERE entity_id = ?", product); err != nil {
				return err
			}
			if _, err := tx.Exec("INSERT INTO catalog_product_entity_decimal (attribute_id, store_id, entity_id, value) VALUES (2, 0, ?, ?), (3, ?, ?, ?) "+
				"ON DUPLICATE KEY UPDATE value = VALUES(value)", product, fmt.Sprintf("%d.%06d", rng.IntN(100000), rng.IntN(1e6)),
				store, product, []any{nil, "0.000001", fmt.Sprintf("%d.5", rng.IntN(1000))}[rng.IntN(3)]); err != nil {
				return err
			}
			if _, err := tx.Exec("INSERT INTO catalog_product_entity_varchar (attribute_id, store_id, entity_id, value) VALUES (1, ?, ?, ?) "+
				"ON DUPLICATE KEY UPDATE value = VALUES(value)", store, product, fmt.Sprintf("Renamed «%d» Größe ★ %d", store, n)); err != nil {
				return err
			}
			_, err := tx.Exec("INSERT INTO catalog_product_entity_int (attribute_id, store_id, entity_id, value) VALUES (6, 0, ?, ?) "+
				"ON DUPLICATE KEY UPDATE value = VALUES(value)", product, 1+rng.IntN(2))
			return err
		})
	case 2: // a new product with its values and stock
		return inTxn(my, func(tx *sql.Tx) error {
			res, err := tx.Exec("INSERT INTO catalog_product_entity (attribute_set_id, type_id, sku) VALUES (4, 'simple', ?)", fmt.Sprint("NEW-", n))
			if err != nil {
				return err
			}
			id, _ := res.LastInsertId()
			return errorsFirst(
				exec(tx, "INSERT INTO catalog_product_entity_varchar (attribute_id, store_id, entity_id, value) VALUES (1, 0, ?, ?), (13, 0, ?, ?)",
					id, fmt.Sprint("New «product» ", n), id, fmt.Sprint("new-product-", n)),
				exec(tx, "INSERT INTO catalog_product_entity_decimal (attribute_id, store_id, entity_id, value) VALUES (2, 0, ?, 19.990000)", id),
				exec(tx, "INSERT INTO catalog_product_entity_text (attribute_id, store_id, entity_id, value) VALUES (9, 0, ?, '<p>Neu — ★</p>')", id),
				exec(tx, "INSERT INTO cataloginventory_stock_item (product_id, stock_id, qty, is_in_stock) VALUES (?, 1, 100, 1)", id))
		})
	case 3: // a product deleted: every value table and the stock cascade
		_, err := my.Exec("DELETE FROM catalog_product_entity WHERE entity_id = ?", product)
		return err
	case 4: // an order placed: a configurable parent and its child, stock moved
		return inTxn(my, func(tx *sql.Tx) error {
			res, err := tx.Exec("INSERT INTO sales_order (state, status, protect_code, store_id, customer_id, base_grand_total, grand_total, total_qty_ordered, "+
				"customer_is_guest, increment_id, customer_email, remote_ip) VALUES ('new', 'pending', ?, ?, ?, ?, ?, 1, 0, ?, 'roni@example.com', '2001:db8::1')",
				fmt.Sprintf("%06x", n), 1+rng.IntN(3), 1+rng.IntN(200), "42.4200", "42.4200", fmt.Sprint(100000000+n))
			if err != nil {
				return err
			}
			order, _ := res.LastInsertId()
			res, err = tx.Exec("INSERT INTO sales_order_item (order_id, store_id, product_id, product_type, product_options, sku, name, qty_ordered, price, row_total) "+
				"VALUES (?, 1, ?, 'configurable', '{\"info_buyRequest\":{\"qty\":1}}', 'MH-CONF', 'Parent «ü»', 1, 42.42, 42.42)", order, product)
			if err != nil {
				return err
			}
			parent, _ := res.LastInsertId()
			return errorsFirst(
				exec(tx, "INSERT INTO sales_order_item (order_id, parent_item_id, store_id, product_id, product_type, sku, name, qty_ordered) "+
					"VALUES (?, ?, 1, ?, 'simple', 'MH-CONF-XL', 'Child', 1)", order, parent, product),
				exec(tx, "UPDATE cataloginventory_stock_item SET qty = qty - 1, is_in_stock = COALESCE(qty > 0, 0) WHERE product_id = ?", product))
		})
	case 5: // an order cancelled and purged: items (children first by the self-reference) cascade
		_, err := my.Exec("DELETE FROM sales_order WHERE entity_id = ?", 1+rng.IntN(500))
		return err
	case 6: // "use default value" ticked on a store view: the store's row goes
		_, err := my.Exec("DELETE FROM catalog_product_entity_varchar WHERE entity_id = ? AND store_id <> 0", product)
		return err
	case 7: // configuration saved
		_, err := my.Exec("INSERT INTO core_config_data (scope, scope_id, path, value) VALUES ('stores', ?, ?, ?) ON DUPLICATE KEY UPDATE value = VALUES(value)",
			store, fmt.Sprint("catalog/seo/field_", rng.IntN(30)), fmt.Sprintf(`{"n":%d,"s":"ü ★"}`, n))
		return err
	case 8: // a token issued, another revoked
		return inTxn(my, func(tx *sql.Tx) error {
			return errorsFirst(
				exec(tx, "INSERT INTO oauth_token (customer_id, type, token, secret, callback_url, nonce_hash) VALUES (?, 'access', ?, ?, 'oob', UNHEX(SHA2(?, 256)))",
					1+rng.IntN(200), fmt.Sprintf("%032x", n), fmt.Sprint("secret-", n), n),
				exec(tx, "UPDATE oauth_token SET revoked = 1 WHERE entity_id = ?", 1+rng.IntN(100)))
		})
	default: // the price index rebuilt for a product (keyless: deleted and inserted again)
		return inTxn(my, func(tx *sql.Tx) error {
			return errorsFirst(
				exec(tx, "DELETE FROM catalog_product_index_price_tmp WHERE entity_id = ?", product),
				exec(tx, "INSERT INTO catalog_product_index_price_tmp (entity_id, customer_group_id, website_id, tax_class_id, price, final_price) "+
					"SELECT entity_id, 0, 1, 2, value, value FROM catalog_product_entity_decimal WHERE entity_id = ? AND attribute_id = 2 AND store_id = 0", product))
		})
	}
}

// magentoPGWrite is one transaction of the store on PostgreSQL after the
// cut-over: EAV upserts, orders with parent and child items, products
// deleted (PostgreSQL's cascades come back as row deletes), stock moved.
func magentoPGWrite(ctx context.Context, tx pgx.Tx, q func(string) string, rng *rand.Rand) error {
	product := 1 + rng.IntN(520)
	switch rng.IntN(6) {
	case 0, 1: // a product saved
		return pgExecs(ctx, tx, "INSERT INTO "+q("catalog_product_entity_decimal")+` (attribute_id, store_id, entity_id, value)
			SELECT 2, 0, entity_id, $2 FROM `+q("catalog_product_entity")+` WHERE entity_id = $1
			ON CONFLICT (entity_id, attribute_id, store_id) DO UPDATE SET value = EXCLUDED.value`,
			[]any{product, fmt.Sprintf("%d.%06d", rng.IntN(1e8), rng.IntN(1e6))},
			"INSERT INTO "+q("catalog_product_entity_varchar")+` (attribute_id, store_id, entity_id, value)
			SELECT 1, $2, entity_id, $3 FROM `+q("catalog_product_entity")+` WHERE entity_id = $1
			ON CONFLICT (entity_id, attribute_id, store_id) DO UPDATE SET value = EXCLUDED.value`,
			[]any{product, rng.IntN(4), fmt.Sprintf("PG «name» ★ %d", rng.IntN(1e6))})
	case 2, 3: // an order with a configurable parent and its child
		var order, parent int64
		if err := tx.QueryRow(ctx, "INSERT INTO "+q("sales_order")+` (state, status, protect_code, store_id, customer_id, grand_total, increment_id, remote_ip)
			VALUES ('new', 'pending', $1, 1, $2, 12.3400, $3, '10.9.9.9') RETURNING entity_id`,
			fmt.Sprintf("pg%06x", rng.IntN(1e7)), 1+rng.IntN(200), fmt.Sprint("PG-", rng.Int64())).Scan(&order); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, "INSERT INTO "+q("sales_order_item")+` (order_id, store_id, product_type, product_options, sku, qty_ordered, price, row_total)
			VALUES ($1, 1, 'configurable', '{"info_buyRequest":{"qty":2}}', 'PG-CONF', 2, 6.17, 12.34) RETURNING item_id`, order).Scan(&parent); err != nil {
			return err
		}
		return pgExecs(ctx, tx, "INSERT INTO "+q("sales_order_item")+` (order_id, parent_item_id, store_id, product_type, sku, qty_ordered)
			VALUES ($1, $2, 1, 'simple', 'PG-CONF-S', 2)`, []any{order, parent},
			"UPDATE "+q("cataloginventory_stock_item")+` SET qty = qty - 2 WHERE product_id = $1`, []any{product})
	case 4: // a product deleted: its values and stock cascade on PostgreSQL
		return pgExecs(ctx, tx, "DELETE FROM "+q("catalog_product_entity")+` WHERE entity_id = $1`, []any{product})
	default: // an order cancelled and purged
		return pgExecs(ctx, tx, "DELETE FROM "+q("sales_order")+` WHERE entity_id = (SELECT min(entity_id) FROM `+q("sales_order")+` WHERE state = 'canceled')`, []any{})
	}
}
