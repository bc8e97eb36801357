package realworld

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestMatomo migrates a Matomo schema (BINARY(8) visitor ids, VARBINARY(16)
// IPs of 4 and 16 bytes, TINYINT(1) flags holding more than 0 and 1, TIME,
// wide log tables, monthly archive tables) under a tracker's load: visits
// and actions, conversions with a nullable unique order id, archiving with
// compressed blobs, IP anonymisation and GDPR deletions; mid-stream, the 4.0
// and 5.0 upgrades (visitor_days_since_first renamed and converted to
// seconds, pageview_position, site.creator_login) and the next month's
// archive tables created and filled.
func TestMatomo(t *testing.T) {
	t.Parallel()
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		m, ok := appPath(t, matomoScenario(env), compareMatomo, func(q func(string) string) ([]string, []string) {
			return []string{
				`UPDATE ` + q("matomo_log_visit") + ` SET location_ip = substr(location_ip, 1, 3) || '\x00'::bytea, visitor_localtime = '00:00:01' WHERE idvisit = (SELECT min(idvisit) FROM ` + q("matomo_log_visit") + ` WHERE length(location_ip) = 4)`,
				`UPDATE ` + q("matomo_archive_blob_2024_02") + ` SET value = NULL WHERE (idarchive, name) = (SELECT idarchive, name FROM ` + q("matomo_archive_blob_2024_02") + ` ORDER BY 1, 2 LIMIT 1)`,
				`DELETE FROM ` + q("matomo_log_conversion") + ` WHERE (idvisit, idgoal, buster) = (SELECT idvisit, idgoal, buster FROM ` + q("matomo_log_conversion") + ` ORDER BY 1, 2, 3 LIMIT 1)`,
			}, []string{"matomo_log_visit", "matomo_archive_blob_2024_02", "matomo_log_conversion"}
		}, wayBackLoad{write: matomoPGWrite, minWrites: 100,
			proof:    "SELECT count(*) FROM matomo_log_visit WHERE location_city LIKE 'Zürich%'",
			fallback: []string{"INSERT INTO matomo_log_action (name, hash, type) VALUES ('after fallback', 1, 1)"}})
		if !ok {
			return
		}
		q := m.pgq
		requireCutover(t, m, `INSERT INTO `+q("matomo_log_action")+` (name, hash, type) VALUES ('after cut-over', 1, 1)`)
	})
}

// TestMatomoIntoMySQL runs the Matomo scenario into the MariaDB target.
func TestMatomoIntoMySQL(t *testing.T) {
	t.Parallel()
	intoMySQLFlavors(t, func(t *testing.T, env *testenv.Env) {
		s := matomoScenario(env)
		s.into = intoMySQL("InnoDB")
		m := s.run(t)
		compareBytes(t, m)
		if t.Failed() {
			return
		}
		damageAndRepair(t, m, []string{
			"UPDATE " + m.q("matomo_log_visit") + " SET location_ip = UNHEX('7F000001') WHERE LENGTH(location_ip) = 16 ORDER BY idvisit LIMIT 1",
		}, "matomo_log_visit")
		compareBytes(t, m)
	})
}

func matomoScenario(env *testenv.Env) scenario {
	return scenario{
		env:        env,
		prefix:     "rw_mtm",
		schemaFile: "matomo.sql",
		seed:       seedMatomo,
		write:      matomoWrite,
		midStream: []string{
			// 4.0.0-b1: days become seconds.
			"ALTER TABLE `matomo_log_visit` CHANGE `visitor_days_since_first` `visitor_seconds_since_first` INT(11) UNSIGNED NULL",
			"UPDATE `matomo_log_visit` SET `visitor_seconds_since_first` = `visitor_seconds_since_first` * 86400",
			"ALTER TABLE `matomo_log_link_visit_action` ADD COLUMN `pageview_position` MEDIUMINT UNSIGNED NULL DEFAULT NULL AFTER `custom_float`",
			"UPDATE `matomo_log_link_visit_action` SET `pageview_position` = 1 + `idlink_va` % 20 WHERE `idlink_va` % 3 = 0",
			// 5.0.0: who created a site.
			"ALTER TABLE `matomo_site` ADD COLUMN `creator_login` VARCHAR(100) NULL",
			"UPDATE `matomo_site` SET `creator_login` = 'superuser'",
			// The archiver reaches a new month.
			"CREATE TABLE IF NOT EXISTS `matomo_archive_numeric_2024_02` (`idarchive` INTEGER UNSIGNED NOT NULL, `name` VARCHAR(190) NOT NULL, " +
				"`idsite` INTEGER UNSIGNED NULL, `date1` DATE NULL, `date2` DATE NULL, `period` TINYINT UNSIGNED NULL, `ts_archived` DATETIME NULL, " +
				"`value` DOUBLE NULL, PRIMARY KEY (`idarchive`, `name`), INDEX `index_idsite_dates_period` (`idsite`, `date1`, `date2`, `period`, `name`(6)), " +
				"INDEX `index_period_archived` (`period`, `ts_archived`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4",
			"CREATE TABLE IF NOT EXISTS `matomo_archive_blob_2024_02` LIKE `matomo_archive_blob_2024_01`",
			"INSERT INTO `matomo_archive_numeric_2024_02` SELECT `idarchive` + 100000, `name`, `idsite`, `date1` + INTERVAL 1 MONTH, " +
				"`date2` + INTERVAL 1 MONTH, `period`, NOW(), `value` * 1.5 FROM `matomo_archive_numeric_2024_01`",
			"INSERT INTO `matomo_archive_blob_2024_02` SELECT `idarchive` + 100000, `name`, `idsite`, `date1` + INTERVAL 1 MONTH, " +
				"`date2` + INTERVAL 1 MONTH, `period`, NOW(), COMPRESS(CONCAT(UNCOMPRESS(`value`), 'feb')) FROM `matomo_archive_blob_2024_01`",
		},
	}
}

// compareMatomo compares every table value by value.
func compareMatomo(t *testing.T, m migrated) {
	t.Helper()
	n := compareAllPG(t, m, map[string]int{"matomo_site": 3, "matomo_log_action": 200, "matomo_log_visit": 400,
		"matomo_log_link_visit_action": 1000, "matomo_log_conversion": 80, "matomo_option": 40, "matomo_session": 1,
		"matomo_archive_numeric_2024_01": 200, "matomo_archive_blob_2024_01": 50,
		"matomo_archive_numeric_2024_02": 200, "matomo_archive_blob_2024_02": 50})
	if n != 11 {
		t.Errorf("%d tables compared, want 11", n)
	}
	var v4, v6, odd int
	if err := m.my.QueryRow("SELECT SUM(LENGTH(location_ip) = 4), SUM(LENGTH(location_ip) = 16), SUM(profilable > 1) FROM matomo_log_visit").Scan(&v4, &v6, &odd); err != nil || v4 == 0 || v6 == 0 || odd == 0 {
		t.Errorf("visits: %d IPv4, %d IPv6, %d TINYINT(1) over 1 (%v): the test lost its point", v4, v6, odd, err)
	}
}

func seedMatomo(t *testing.T, my flavorDB) {
	t.Helper()
	_, err := my.Exec(`
INSERT INTO matomo_site (name, main_url, ts_created, ecommerce, sitesearch_keyword_parameters, timezone, currency, excluded_ips, type)
  VALUES ('Shop «Ünï»', 'https://shop.example.org', '2020-01-01 00:00:00', 1, 'q,query', 'Europe/Berlin', 'EUR', '', 'website'),
         ('Blog', 'https://blog.example.org', NULL, 0, '', 'UTC', 'USD', '10.0.0.0/8', 'website'),
         ('Intranet', 'http://intranet', '2021-06-01 12:00:00', 0, '', 'America/New_York', 'JPY', '', 'intranet');
INSERT INTO matomo_log_action (name, hash, type, url_prefix)
  SELECT IF(seq % 2 = 0, CONCAT('shop.example.org/category/', seq, '/produkt-über?utm=', seq), CONCAT('Produkt Ünï «', seq, '» – Shop')),
         CRC32(seq), 1 + seq % 4, IF(seq % 2 = 0, seq % 4, NULL) FROM seq_1_to_250;
INSERT INTO matomo_log_visit (idsite, idvisitor, visit_last_action_time, config_id, location_ip, profilable, user_id,
    visit_first_action_time, visit_goal_buyer, visit_goal_converted, visitor_returning, visitor_days_since_first,
    visitor_count_visits, visit_entry_idaction_name, visit_entry_idaction_url, visit_exit_idaction_url, visit_total_actions,
    visit_total_interactions, visit_total_searches, referer_keyword, referer_name, referer_type, referer_url, location_browser_lang,
    config_browser_engine, config_browser_name, config_browser_version, config_client_type, config_device_type, config_os,
    visitor_localtime, config_resolution, config_cookie, location_city, location_country, location_latitude, location_longitude,
    visit_total_time)
  SELECT 1 + seq % 3, UNHEX(LEFT(SHA2(seq % 200, 256), 16)), '2024-01-01 00:00:00' + INTERVAL seq * 7 MINUTE, UNHEX(LEFT(SHA2(seq, 256), 16)),
         IF(seq % 3 = 0, UNHEX(CONCAT('20010DB8', LPAD(HEX(seq), 24, '0'))), IF(seq % 10 = 1, UNHEX('00000000'), UNHEX(CONCAT('C000', LPAD(HEX(seq % 65536), 4, '0'))))),
         ELT(1 + seq % 4, 0, 1, NULL, 2), IF(seq % 5 = 0, CONCAT('user', seq, '@example.org'), NULL),
         '2024-01-01 00:00:00' + INTERVAL seq * 7 MINUTE - INTERVAL seq % 600 SECOND, seq % 2, seq % 3 = 0, seq % 2, seq % 400,
         1 + seq % 9, 1 + seq % 250, 1 + seq % 250, 1 + seq % 250, 1 + seq % 30, seq % 40, seq % 3,
         IF(seq % 4 = 0, 'matomo ünïcode', NULL), IF(seq % 4 = 0, 'Google', NULL), seq % 7, IF(seq % 4 = 0, 'https://www.google.com/search?q=x&hl=de', NULL),
         ELT(1 + seq % 3, 'de-de,en', 'en-us', 'ja'), 'Blink', ELT(1 + seq % 3, 'CH', 'FF', 'SF'), CONCAT(100 + seq % 30, '.0'),
         seq % 4, seq % 13, ELT(1 + seq % 3, 'WIN', 'MAC', 'LIN'), SEC_TO_TIME(seq * 173 % 86400), '1920x1080', seq % 2,
         IF(seq % 6 = 0, 'São Paulo', 'Berlin'), IF(seq % 6 = 0, 'br', 'de'), IF(seq % 6 = 0, -23.550520, 52.520008),
         IF(seq % 6 = 0, -46.633309, 13.404954), seq * 13 % 7200
  FROM seq_1_to_500;
INSERT INTO matomo_log_link_visit_action (idsite, idvisitor, idvisit, idaction_url_ref, idaction_name_ref, custom_float, server_time,
    idpageview, idaction_name, idaction_url, search_cat, search_count, time_spent_ref_action, product_price,
    idaction_event_action, idaction_event_category, time_dom_processing, time_network, time_server, time_transfer)
  SELECT 1 + seq % 3, UNHEX(LEFT(SHA2(seq % 200, 256), 16)), 1 + seq % 500, seq % 250, 1 + seq % 250,
         IF(seq % 5 = 0, seq / 3, NULL), '2024-01-01 00:00:00' + INTERVAL seq MINUTE, LEFT(TO_BASE64(SHA2(seq, 256)), 6),
         1 + seq % 250, 1 + (seq * 7) % 250, IF(seq % 20 = 0, 'Kategorie', NULL), IF(seq % 20 = 0, seq % 50, NULL), seq % 300,
         IF(seq % 10 = 0, 19.99 + seq, NULL), IF(seq % 9 = 0, 1 + seq % 250, NULL), IF(seq % 9 = 0, 2, NULL),
         IF(seq % 2 = 0, seq % 16777216, NULL), seq % 500, IF(seq % 100 = 0, 16777215, seq % 2000), seq % 50
  FROM seq_1_to_2000;
INSERT INTO matomo_log_conversion (idvisit, idsite, idvisitor, server_time, idaction_url, idlink_va, idgoal, buster, idorder, items, url,
    revenue, revenue_shipping, revenue_subtotal, revenue_tax, revenue_discount)
  SELECT 1 + seq % 500, 1 + seq % 3, UNHEX(LEFT(SHA2(seq % 200, 256), 16)), '2024-01-02 00:00:00' + INTERVAL seq HOUR, 1 + seq % 250, seq,
         IF(seq % 3 = 0, 0, seq % 5 + 1), seq * 1000003 % 4294967296, IF(seq % 3 = 0, CONCAT('ORDER-', seq), NULL), IF(seq % 3 = 0, seq % 7, NULL),
         CONCAT('https://shop.example.org/checkout/', seq), seq * 1.1, IF(seq % 3 = 0, 4.95, NULL), seq, seq * 0.19, IF(seq % 7 = 0, -5, NULL)
  FROM seq_1_to_120;
INSERT INTO matomo_option (option_name, option_value, autoload)
  SELECT CONCAT(ELT(1 + seq % 3, 'version_', 'MobileMessaging_', 'lastTrackerCronRun'), seq),
         IF(seq % 10 = 0, REPEAT('a:2:{s:3:"foo";s:3:"bär";}', 500), CONCAT(seq)), seq % 2 FROM seq_1_to_60;
INSERT INTO matomo_session (id, modified, lifetime, data)
  SELECT SHA2(seq, 256), 1700000000 + seq, 1209600, TO_BASE64(REPEAT('session data ', seq)) FROM seq_1_to_30;
INSERT INTO matomo_archive_numeric_2024_01 (idarchive, name, idsite, date1, date2, period, ts_archived, value)
  SELECT 1 + seq DIV 10, ELT(1 + seq % 10, 'done', 'nb_visits', 'nb_actions', 'nb_uniq_visitors', 'bounce_count', 'sum_visit_length',
         'max_actions', 'nb_conversions', 'revenue', 'done90a5a511e1974bcd'),
         1 + seq % 3, '2024-01-01' + INTERVAL seq % 31 DAY, '2024-01-01' + INTERVAL seq % 31 DAY, 1 + seq % 5,
         '2024-02-01 01:00:00' + INTERVAL seq SECOND, IF(seq % 10 = 0, 1, seq / 7) FROM seq_1_to_400;
INSERT INTO matomo_archive_blob_2024_01 (idarchive, name, idsite, date1, date2, period, ts_archived, value)
  SELECT 1 + seq, IF(seq % 2 = 0, 'Actions_actions_url', CONCAT('Referrers_keywordBySearchEngine_subtable_', seq)), 1 + seq % 3,
         '2024-01-01', '2024-01-31', 3, '2024-02-01 01:00:00', COMPRESS(REPEAT(CONCAT('a:1:{i:0;a:2:{s:5:"label";s:3:"ü', seq, '";}}'), seq))
  FROM seq_1_to_100;`)
	if err != nil {
		t.Fatalf("seed: %v", err)
	}
}

// matomoWrite runs one transaction of the tracker, the archiver or the GDPR tools.
func matomoWrite(my *sql.DB, rng *rand.Rand) error {
	now := time.Now().UTC().Format("2006-01-02 15:04:05")
	visit := 1 + rng.IntN(600)
	visitor := fmt.Sprintf("%016x", rng.IntN(300))
	switch rng.IntN(8) {
	case 0, 1, 2: // a pageview: maybe a new action, maybe a new visit, the action row, the visit updated
		return inTxn(my, func(tx *sql.Tx) error {
			action := 1 + rng.IntN(250)
			if rng.IntN(5) == 0 {
				res, err := tx.Exec("INSERT INTO matomo_log_action (name, hash, type, url_prefix) VALUES (?, ?, 1, 2)",
					fmt.Sprintf("shop.example.org/p/%d?ref=ünï", rng.IntN(1e6)), rng.Uint32())
				if err != nil {
					return err
				}
				id, _ := res.LastInsertId()
				action = int(id)
			}
			if rng.IntN(3) == 0 {
				ip := []byte{198, 51, 100, byte(rng.IntN(256))}
				if rng.IntN(2) == 0 {
					ip = append([]byte{0x20, 0x01, 0x0d, 0xb8}, make([]byte, 12)...)
					ip[15] = byte(rng.IntN(256))
				}
				res, err := tx.Exec(`INSERT INTO matomo_log_visit (idsite, idvisitor, visit_last_action_time, config_id, location_ip, profilable,
					visit_first_action_time, visitor_count_visits, visit_entry_idaction_url, visit_total_actions, visit_total_interactions,
					config_device_type, visitor_localtime, location_latitude, location_longitude, visit_total_time)
					VALUES (1, UNHEX(?), ?, UNHEX(?), ?, ?, ?, 1, ?, 1, 1, ?, ?, ?, ?, 0)`,
					visitor, now, fmt.Sprintf("%016x", rng.Uint64()), ip, rng.IntN(3), now, action, rng.IntN(15),
					fmt.Sprintf("%02d:%02d:%02d", rng.IntN(24), rng.IntN(60), rng.IntN(60)),
					fmt.Sprintf("%.6f", rng.Float64()*180-90), fmt.Sprintf("%.6f", rng.Float64()*360-180))
				if err != nil {
					return err
				}
				id, _ := res.LastInsertId()
				visit = int(id)
			}
			return execArgs(tx,
				`INSERT INTO matomo_log_link_visit_action (idsite, idvisitor, idvisit, idaction_url, idaction_name, server_time, idpageview,
					custom_float, time_server, time_network) SELECT idsite, idvisitor, idvisit, ?, ?, ?, ?, ?, ?, ? FROM matomo_log_visit WHERE idvisit = ?`,
				action, 1+rng.IntN(250), now, fmt.Sprintf("%06x", rng.IntN(1<<24)), rng.NormFloat64()*1e6, rng.IntN(1<<24), rng.IntN(500), visit,
				`UPDATE matomo_log_visit SET visit_last_action_time = ?, visit_exit_idaction_url = ?, visit_total_actions = visit_total_actions + 1,
					visit_total_interactions = LEAST(visit_total_interactions + 1, 16777215), visit_total_time = visit_total_time + ? WHERE idvisit = ?`,
				now, action, rng.IntN(120), visit)
		})
	case 3: // an ecommerce order (unique per site) or a goal conversion
		order := any(nil)
		if rng.IntN(2) == 0 {
			order = fmt.Sprintf("ORDER-%d", rng.IntN(5000))
		}
		_, err := my.Exec(`INSERT INTO matomo_log_conversion (idvisit, idsite, idvisitor, server_time, idgoal, buster, idorder, url, revenue, revenue_tax)
			VALUES (?, 1, UNHEX(?), ?, ?, ?, ?, 'https://shop.example.org/danke', ?, ?)
			ON DUPLICATE KEY UPDATE revenue = VALUES(revenue), items = COALESCE(items, 0) + 1`,
			visit, visitor, now, rng.IntN(4), rng.Uint32(), order, rng.Float64()*500, rng.Float64()*50)
		return err
	case 4: // the archiver: an archive's numeric records and a blob; invalidated ones purged
		return inTxn(my, func(tx *sql.Tx) error {
			id := 10000 + rng.IntN(100000)
			var rows []string
			for _, name := range []string{"done", "nb_visits", "nb_actions", "bounce_rate"} {
				rows = append(rows, fmt.Sprintf("(%d, '%s', 1, '2024-01-15', '2024-01-15', 1, UTC_TIMESTAMP(), %v)", id, name, rng.Float64()*1e4))
			}
			return execArgs(tx,
				"REPLACE INTO matomo_archive_numeric_2024_01 (idarchive, name, idsite, date1, date2, period, ts_archived, value) VALUES "+strings.Join(rows, ", "),
				"REPLACE INTO matomo_archive_blob_2024_01 (idarchive, name, idsite, date1, date2, period, ts_archived, value) VALUES (?, 'Actions_actions', 1, '2024-01-15', '2024-01-15', 1, UTC_TIMESTAMP(), COMPRESS(?))",
				id, strings.Repeat(fmt.Sprintf(`a:1:{s:5:"label";s:4:"ü%d";}`, rng.IntN(100)), 1+rng.IntN(300)),
				"DELETE FROM matomo_archive_numeric_2024_01 WHERE idarchive = ? AND name LIKE 'done%'", 1+rng.IntN(40))
		})
	case 5: // options and sessions
		if rng.IntN(2) == 0 {
			_, err := my.Exec(`INSERT INTO matomo_option (option_name, option_value, autoload) VALUES (?, ?, 0)
				ON DUPLICATE KEY UPDATE option_value = VALUES(option_value)`, fmt.Sprint("lastTrackerCronRun", rng.IntN(5)), now)
			return err
		}
		_, err := my.Exec(`REPLACE INTO matomo_session (id, modified, lifetime, data) VALUES (?, UNIX_TIMESTAMP(), 1209600, ?)`,
			fmt.Sprintf("%064x", rng.IntN(40)), strings.Repeat("x", rng.IntN(5000)))
		return err
	case 6: // IP anonymisation (PrivacyManager): the last bytes zeroed
		_, err := my.Exec(`UPDATE matomo_log_visit SET location_ip = IF(LENGTH(location_ip) = 4,
			CONCAT(LEFT(location_ip, 2), UNHEX('0000')), CONCAT(LEFT(location_ip, 6), UNHEX('00000000000000000000'))) WHERE idvisit = ?`, visit)
		return err
	default: // a GDPR deletion of a visit's data
		return inTxn(my, func(tx *sql.Tx) error {
			return execArgs(tx,
				"DELETE FROM matomo_log_link_visit_action WHERE idvisit = ?", visit,
				"DELETE FROM matomo_log_conversion WHERE idvisit = ?", visit,
				"DELETE FROM matomo_log_visit WHERE idvisit = ?", visit)
		})
	}
}

// matomoPGWrite is one transaction of the Matomo tracker writing to
// PostgreSQL after the cut-over: visits (BINARY(8) ids, 4- and 16-byte IPs,
// DECIMAL(9,6) coordinates, TIME, TINYINT(1), MEDIUMINT UNSIGNED at its
// maximum) and their actions (DOUBLE) with identity ids, conversions with a
// nullable unique order id, archive upserts, options, IP anonymisation, GDPR
// deletions.
func matomoPGWrite(ctx context.Context, tx pgx.Tx, q func(string) string, rng *rand.Rand) error {
	visit := 1 + rng.IntN(600)
	visitor := []byte(fmt.Sprintf("%08d", rng.IntN(300)))
	switch rng.IntN(6) {
	case 0, 1: // a new visit and its first action
		ip := []byte{203, 0, 113, byte(rng.IntN(256))}
		if rng.IntN(2) == 0 {
			ip = append([]byte{0x20, 0x01, 0x0d, 0xb8}, make([]byte, 12)...)
			ip[15] = byte(rng.IntN(256))
		}
		var id int64
		if err := tx.QueryRow(ctx, "INSERT INTO "+q("matomo_log_visit")+` (idsite, idvisitor, visit_last_action_time, config_id, location_ip, profilable,
			visit_first_action_time, visitor_count_visits, visit_total_actions, visit_total_interactions, config_device_type,
			visitor_localtime, location_latitude, location_longitude, location_city, visit_total_time)
			VALUES (1, $1, localtimestamp(0), $2, $3, 1, localtimestamp(0), 1, 1, 16777215, 127, $4::interval, $5, $6, 'Zürich 🏔', 0) RETURNING idvisit`,
			visitor, []byte{0, 0xff, 0, 0xff, byte(rng.IntN(256)), 1, 2, 3}, ip,
			fmt.Sprintf("%02d:%02d:%02d", rng.IntN(24), rng.IntN(60), rng.IntN(60)),
			fmt.Sprintf("%.6f", rng.Float64()*180-90), fmt.Sprintf("%.6f", rng.Float64()*360-180)).Scan(&id); err != nil {
			return err
		}
		return pgExecs(ctx, tx, "INSERT INTO "+q("matomo_log_link_visit_action")+` (idsite, idvisitor, idvisit, idaction_url, server_time, idpageview,
			custom_float, time_server, product_price) VALUES (1, $1, $2, 1, localtimestamp(0), 'pg0001', $3, 16777215, 1e-300)`,
			[]any{visitor, id, rng.NormFloat64() * 1e300})
	case 2: // a conversion: an order (unique per site) or a goal
		order := any(nil)
		if rng.IntN(2) == 0 {
			order = fmt.Sprintf("PG-ORDER-%d-😀", rng.IntN(5000))
		}
		return pgExecs(ctx, tx, "INSERT INTO "+q("matomo_log_conversion")+` AS c (idvisit, idsite, idvisitor, server_time, idgoal, buster, idorder, url, revenue, revenue_tax, items)
			VALUES ($1, 1, $2, localtimestamp(0), $3, $4, $5, 'https://shop.example.org/merci', $6, 0, 65535)
			ON CONFLICT DO NOTHING`, []any{visit, visitor, rng.IntN(4) - 1, rng.Uint32(), order, rng.Float64() * 500})
	case 3: // the archiver
		id := 200000 + rng.IntN(100000)
		return pgExecs(ctx, tx, "INSERT INTO "+q("matomo_archive_numeric_2024_01")+` AS a (idarchive, name, idsite, date1, date2, period, ts_archived, value)
			VALUES ($1, 'nb_visits', 1, '2024-01-15', '2024-01-15', 255, localtimestamp(0), $2) ON CONFLICT (idarchive, name) DO UPDATE SET value = EXCLUDED.value`,
			[]any{id, rng.Float64() * 1e4},
			"INSERT INTO "+q("matomo_option")+` (option_name, option_value, autoload) VALUES ($1, $2, -128)
				ON CONFLICT (option_name) DO UPDATE SET option_value = EXCLUDED.option_value`,
			[]any{fmt.Sprint("pgTrackerCronRun", rng.IntN(5)), fmt.Sprintf("a:1:{s:4:\"😀\";i:%d;}", rng.IntN(1e6))})
	case 4: // IP anonymisation
		return pgExecs(ctx, tx, "UPDATE "+q("matomo_log_visit")+` SET location_ip = CASE WHEN length(location_ip) = 4
			THEN substr(location_ip, 1, 2) || '\x0000'::bytea ELSE substr(location_ip, 1, 6) || '\x00000000000000000000'::bytea END,
			visitor_localtime = '23:59:59' WHERE idvisit = $1`, []any{visit})
	default: // a GDPR deletion
		return pgExecs(ctx, tx,
			"DELETE FROM "+q("matomo_log_link_visit_action")+" WHERE idvisit = $1", []any{visit},
			"DELETE FROM "+q("matomo_log_conversion")+" WHERE idvisit = $1", []any{visit},
			"DELETE FROM "+q("matomo_log_visit")+" WHERE idvisit = $1", []any{visit})
	}
}
