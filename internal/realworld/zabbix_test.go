package realworld

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestZabbix migrates a Zabbix schema (BIGINT UNSIGNED ids, utf8mb4_bin,
// history keyed by (itemid, clock, ns) and history tables without any key,
// DOUBLE(16,4) trends, megabyte LONGTEXT values) under a monitoring server's
// load: multi-row history inserts, trend upserts, events and problems with
// ids from `ids`, alerts, the housekeeper's deletes (cascading from events,
// and by range from keyless tables) and sessions; mid-stream, the 5.0 and 6.0
// upgrades (DOUBLE(16,4) to DOUBLE, items.key_ widened with a prefix index,
// history_text rebuilt with a primary key).
func TestZabbix(t *testing.T) {
	t.Parallel()
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		var ids atomic.Int64
		ids.Store(5_000_000)
		appPath(t, zabbixScenario(env), compareZabbix, func(q func(string) string) ([]string, []string) {
			return []string{
				`UPDATE ` + q("history_log") + ` SET value = value || 'x' WHERE ctid = (SELECT ctid FROM ` + q("history_log") + ` WHERE length(value) > 100000 LIMIT 1)`,
				`DELETE FROM ` + q("history_text") + ` WHERE (itemid, clock, ns) = (SELECT itemid, clock, ns FROM ` + q("history_text") + ` ORDER BY 1, 2, 3 LIMIT 1)`,
				`UPDATE ` + q("history_uint") + ` SET value = value - 1 WHERE (itemid, clock, ns) = (SELECT itemid, clock, ns FROM ` + q("history_uint") + ` WHERE value = 18446744073709551615 LIMIT 1)`,
				`UPDATE ` + q("trends") + ` SET value_avg = value_avg + 0.0001 WHERE (itemid, clock) = (SELECT itemid, clock FROM ` + q("trends") + ` ORDER BY 1, 2 LIMIT 1)`,
			}, []string{"history_log", "history_text", "history_uint", "trends"}
		}, wayBackLoad{write: zabbixPGWrite(&ids), minWrites: 100, proof: "SELECT count(*) FROM history_log WHERE source = 'pg'",
			fallback: []string{"INSERT INTO sessions (sessionid, userid) VALUES ('after-fallback', 1)"}})
	})
}

// TestZabbixIntoMySQL runs the Zabbix scenario into the MariaDB target, and
// MySQL 9.7 → MySQL 9.7.
func TestZabbixIntoMySQL(t *testing.T) {
	t.Parallel()
	testenv.MySQLTargetFlavors(t, func(t *testing.T, env *testenv.Env) {
		s := zabbixScenario(env)
		s.into = intoMySQL("InnoDB")
		m := s.run(t)
		compareBytes(t, m)
		if t.Failed() {
			return
		}
		damageAndRepair(t, m, []string{
			"UPDATE " + m.q("history_log") + " SET value = CONCAT(value, 'x') WHERE LENGTH(value) > 100000 LIMIT 1",
			"UPDATE " + m.q("history_uint") + " SET value = value - 1 WHERE value = 18446744073709551615 LIMIT 1",
		}, "history_log", "history_uint")
		compareBytes(t, m)
	})
}

func zabbixScenario(env *testenv.Env) scenario {
	var ids atomic.Int64
	ids.Store(1_000_000)
	return scenario{
		env:        env,
		prefix:     "rw_zbx",
		schemaFile: "zabbix.sql",
		seed:       seedZabbix,
		write:      func(my *sql.DB, rng *rand.Rand) error { return zabbixWrite(my, rng, &ids) },
		midStream: []string{
			// 5.0: DOUBLE(16,4) becomes DOUBLE PRECISION (double_upgrade).
			"ALTER TABLE `trends` MODIFY `value_min` DOUBLE PRECISION DEFAULT '0.0000' NOT NULL, " +
				"MODIFY `value_avg` DOUBLE PRECISION DEFAULT '0.0000' NOT NULL, MODIFY `value_max` DOUBLE PRECISION DEFAULT '0.0000' NOT NULL",
			"UPDATE trends SET value_avg = value_avg + 0.000001234 WHERE clock % 3 = 0",
			// 5.0: items.key_ widened to 2048, its unique index now a prefix.
			"ALTER TABLE `items` DROP INDEX `items_1`, MODIFY `key_` varchar(2048) DEFAULT '' NOT NULL, ADD INDEX `items_1` (`hostid`,`key_`(764))",
			"UPDATE items SET key_ = CONCAT('log[/var/log/', REPEAT('deep/', 300), 'app.log,\"ERROR\"]') WHERE itemid % 50 = 0",
			// 6.0: history_text gets its primary key (history_pk_prepare and
			// the manual copy), in one go while the server is stopped.
			"ALTER TABLE `history_text` RENAME TO `history_text_old`;" +
				"CREATE TABLE `history_text` (`itemid` bigint unsigned NOT NULL, `clock` integer DEFAULT '0' NOT NULL, " +
				"`value` longtext NOT NULL, `ns` integer DEFAULT '0' NOT NULL, PRIMARY KEY (itemid,clock,ns)) " +
				"ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;" +
				"INSERT IGNORE INTO `history_text` SELECT * FROM `history_text_old`;" +
				"DROP TABLE `history_text_old`",
			// 6.0: a new column on hosts.
			"ALTER TABLE `hosts` ADD `custom_interfaces` integer DEFAULT '0' NOT NULL",
		},
	}
}

// compareZabbix compares every table value by value.
func compareZabbix(t *testing.T, m migrated) {
	t.Helper()
	n := compareAllPG(t, m, map[string]int{"hosts": 20, "items": 200, "history": 2000, "history_uint": 1000,
		"history_str": 300, "history_text": 50, "history_log": 200, "trends": 300, "trends_uint": 100,
		"events": 100, "problem": 50, "alerts": 100, "ids": 3, "sessions": 20})
	if n != 14 {
		t.Errorf("%d tables compared, want 14", n)
	}
	var big, dups int
	if err := m.my.QueryRow("SELECT count(*) FROM history_log WHERE LENGTH(value) > 1000000").Scan(&big); err != nil || big < 2 {
		t.Errorf("%d history_log values over 1 MB (%v): the test lost its point", big, err)
	}
	if err := m.my.QueryRow("SELECT count(*) FROM (SELECT 1 FROM history_log GROUP BY itemid, clock, ns, value HAVING count(*) > 1) d").Scan(&dups); err != nil || dups == 0 {
		t.Errorf("history_log has %d duplicated rows (%v): the test lost its point", dups, err)
	}
}

func seedZabbix(t *testing.T, my flavorDB) {
	t.Helper()
	_, err := my.Exec(`
INSERT INTO hosts (hostid, host, name, status, description, templateid, uuid, tls_psk)
  SELECT 10000 + seq, CONCAT('host-', seq, '.example.org'), CONCAT('Host ', seq, ' — DB «primary»'), IF(seq <= 5, 3, 0),
         IF(seq % 2 = 0, '', CONCAT('Line 1\nLine 2 ✓ ', seq)), IF(seq > 5, 10000 + 1 + seq % 5, NULL),
         LOWER(LEFT(SHA2(seq, 256), 32)), '' FROM seq_1_to_25;
INSERT INTO items (itemid, hostid, name, key_, delay, value_type, units, params, description, templateid)
  SELECT 20000 + seq, 10000 + 1 + seq % 25, CONCAT('Free disk space on $1 ', seq),
         CONCAT('vfs.fs.size[/var/lib/mysql/', seq, ',pused]'), ELT(1 + seq % 3, '1m', '30s', '1h;wd1-5,09:00-18:00'),
         seq % 5, ELT(1 + seq % 3, '%', 'B', 'bps'), IF(seq % 10 = 0, CONCAT('return JSON.parse(value).data[', seq, '];'), ''), '',
         NULL FROM seq_1_to_250;
INSERT INTO history (itemid, clock, ns, value)
  SELECT 20000 + 1 + seq % 250, 1700000000 + seq DIV 250 * 60, seq % 1000 * 1000000,
         CASE seq % 5 WHEN 0 THEN 0 WHEN 1 THEN -1.5e-300 WHEN 2 THEN 1.7976931348623157e308 ELSE seq / 7 END FROM seq_1_to_3000;
INSERT INTO history_uint (itemid, clock, ns, value)
  SELECT 20000 + 1 + seq % 250, 1700000000 + seq DIV 250 * 60, seq % 997, IF(seq % 10 = 0, 18446744073709551615, seq * 1000003)
  FROM seq_1_to_2000;
INSERT INTO history_str (itemid, clock, ns, value)
  SELECT 20000 + 1 + seq % 250, 1700000000 + seq, 0, CONCAT('Linux host-', seq, ' 6.1.0-18-amd64 #1 SMP ✓ x86_64') FROM seq_1_to_500;
INSERT INTO history_text (itemid, clock, ns, value)
  SELECT 20000 + 1 + seq % 250, 1700000000 + seq DIV 2, 0, CONCAT('{"data":[', REPEAT('{"{#FSNAME}":"/","{#FSTYPE}":"ext4"},', seq * 10), '{}]}')
  FROM seq_1_to_100;
INSERT INTO history_log (itemid, clock, timestamp, source, severity, value, logeventid, ns)
  SELECT 20000 + 1 + seq % 250, 1700000000 + seq DIV 3, 1700000000 + seq, IF(seq % 4 = 0, 'Application', ''), seq % 5,
         CONCAT('2024-01-01 00:00:', seq % 60, ' [ERROR] Connection refused — «', seq % 7, '»'), seq, 0
  FROM seq_1_to_400;
INSERT INTO history_log (itemid, clock, timestamp, source, severity, value, logeventid, ns)
  SELECT itemid, clock, timestamp, source, severity, value, logeventid, ns FROM history_log WHERE logeventid % 20 = 0;
INSERT INTO trends (itemid, clock, num, value_min, value_avg, value_max)
  SELECT 20000 + 1 + seq % 250, 1699999200 + seq DIV 250 * 3600, 60, seq / 3, seq / 2.5, seq * 1.3333 FROM seq_1_to_600;
INSERT INTO trends_uint (itemid, clock, num, value_min, value_avg, value_max)
  SELECT 20000 + 1 + seq % 250, 1699999200 + seq DIV 250 * 3600, 60, 0, seq, IF(seq % 9 = 0, 18446744073709551615, seq * 2) FROM seq_1_to_300;
INSERT INTO events (eventid, source, object, objectid, clock, value, ns, name, severity)
  SELECT seq, IF(seq % 10 = 0, 3, 0), 0, 30000 + seq % 40, 1700000000 + seq * 10, seq % 2, seq * 1000,
         CONCAT('High CPU utilization (over 90% for 5m) on host-', seq % 25), seq % 6 FROM seq_1_to_600;
INSERT INTO problem (eventid, source, object, objectid, clock, ns, r_eventid, r_clock, name, severity)
  SELECT seq, 0, 0, 30000 + seq % 40, 1700000000 + seq * 10, seq * 1000, IF(seq % 4 = 1 AND seq < 599, seq + 2, NULL),
         IF(seq % 4 = 1, 1700000000 + seq * 10 + 20, 0), CONCAT('High CPU utilization on host-', seq % 25), seq % 6
  FROM seq_1_to_600 WHERE seq % 2 = 1;
INSERT INTO alerts (alertid, actionid, eventid, userid, clock, sendto, subject, message, status, parameters, p_eventid)
  SELECT seq, 3, 1 + seq % 600, 1, 1700000000 + seq * 10, 'admin@example.org', CONCAT('Problem: ', seq),
         CONCAT('Problem started at 12:00:00 on 2024.01.01\nHost: host-', seq % 25, '\n', REPEAT('Operational data: 93 % ', seq % 50)),
         seq % 3, '{}', IF(seq % 5 = 0, 1 + (seq + 1) % 600, NULL) FROM seq_1_to_300;
INSERT INTO ids (table_name, field_name, nextid) VALUES ('events', 'eventid', 600), ('alerts', 'alertid', 300), ('items', 'itemid', 20250);
INSERT INTO sessions (sessionid, userid, lastaccess, status, secret)
  SELECT LOWER(LEFT(SHA2(seq, 256), 32)), 1 + seq % 3, 1700000000 + seq, seq % 2, LOWER(RIGHT(SHA2(seq, 256), 32)) FROM seq_1_to_50;`)
	if err == nil {
		// Log files and discovery output in the megabytes, and invalid-looking
		// but valid text: control characters, tabs, a NUL-free binary dump.
		big := strings.Repeat("2024-01-01 12:00:00.123 [WARN] slow query: SELECT * FROM t WHERE a = 'ü' /* 😀 */\t\r\n", 14000)
		_, err = my.Exec(`INSERT INTO history_log (itemid, clock, timestamp, source, severity, value, logeventid, ns)
			VALUES (20001, 1700000001, 0, 'syslog', 4, ?, 1, 5), (20002, 1700000002, 0, 'syslog', 4, ?, 2, 5)`, big, big+"\x01\x7f end")
	}
	if err != nil {
		t.Fatalf("seed: %v", err)
	}
}

// zabbixWrite runs one transaction of a Zabbix server and its frontend.
func zabbixWrite(my *sql.DB, rng *rand.Rand, ids *atomic.Int64) error {
	item := 20001 + rng.IntN(250)
	clock := time.Now().Unix()
	switch rng.IntN(9) {
	case 0, 1: // the history syncer: one multi-row insert per table
		var vals, uvals []string
		for i := 0; i < 20; i++ {
			ns := rng.IntN(1e9)
			vals = append(vals, fmt.Sprintf("(%d, %d, %d, %v)", 20001+rng.IntN(250), clock, ns, rng.NormFloat64()*math.Pow(10, float64(rng.IntN(40)-20))))
			uvals = append(uvals, fmt.Sprintf("(%d, %d, %d, %d)", 20001+rng.IntN(250), clock, ns, rng.Uint64()))
		}
		return inTxn(my, func(tx *sql.Tx) error {
			return execAll(tx,
				"INSERT INTO history (itemid, clock, ns, value) VALUES "+strings.Join(vals, ", "),
				"INSERT INTO history_uint (itemid, clock, ns, value) VALUES "+strings.Join(uvals, ", "),
				fmt.Sprintf("INSERT INTO history_str (itemid, clock, ns, value) VALUES (%d, %d, %d, 'OK ✓ %d')", item, clock, rng.IntN(1e9), rng.IntN(100)))
		})
	case 2: // text and log items, now and then a big one; keyless rows can repeat
		size := 10 + rng.IntN(200)
		if rng.IntN(20) == 0 {
			size = 50000
		}
		v := strings.Repeat(fmt.Sprintf("line %d: ERROR ✗ \"quoted\" \\ back\n", rng.IntN(100)), size)
		return inTxn(my, func(tx *sql.Tx) error {
			_, err := tx.Exec(`INSERT INTO history_log (itemid, clock, timestamp, source, severity, value, logeventid, ns)
				VALUES (?, ?, ?, '', 2, ?, 0, 0), (?, ?, ?, '', 2, ?, 0, 0)`, item, clock, clock, v, item, clock, clock, v)
			if err == nil {
				_, err = tx.Exec("INSERT IGNORE INTO history_text (itemid, clock, ns, value) VALUES (?, ?, ?, ?)", item, clock, rng.IntN(1e9), v)
			}
			return err
		})
	case 3: // a problem event: an id from `ids`, the event and its problem; or a recovery
		if rng.IntN(3) == 0 {
			return inTxn(my, func(tx *sql.Tx) error {
				id := ids.Add(1)
				return execAll(tx,
					fmt.Sprintf("INSERT INTO events (eventid, source, object, objectid, clock, value, ns, name) VALUES (%d, 0, 0, 30001, %d, 0, 0, 'Resolved')", id, clock),
					fmt.Sprintf("UPDATE problem SET r_eventid = %d, r_clock = %d, r_ns = 5 WHERE r_eventid IS NULL ORDER BY eventid LIMIT 1", id, clock))
			})
		}
		return inTxn(my, func(tx *sql.Tx) error {
			id := ids.Add(1)
			name := fmt.Sprintf("Disk space is low (used > %d%%) on \"/var/lib/mysql\" ✗", 80+rng.IntN(20))
			if _, err := tx.Exec("UPDATE ids SET nextid = ? WHERE table_name = 'events' AND field_name = 'eventid'", id); err != nil {
				return err
			}
			if _, err := tx.Exec(`INSERT INTO events (eventid, source, object, objectid, clock, value, ns, name, severity)
				VALUES (?, 0, 0, ?, ?, 1, ?, ?, 4)`, id, 30000+rng.IntN(40), clock, rng.IntN(1e9), name); err != nil {
				return err
			}
			_, err := tx.Exec(`INSERT INTO problem (eventid, source, object, objectid, clock, ns, name, severity)
				SELECT eventid, source, object, objectid, clock, ns, name, severity FROM events WHERE eventid = ?`, id)
			return err
		})
	case 4: // an alert for an event, then its delivery status
		if rng.IntN(2) == 0 {
			_, err := my.Exec("UPDATE alerts SET status = 1, retries = retries + 1, error = ? WHERE alertid = ?",
				fmt.Sprintf("Connection timed out ✗ %d", rng.IntN(100)), 1+rng.IntN(300))
			return err
		}
		_, err := my.Exec(`INSERT INTO alerts (alertid, actionid, eventid, clock, sendto, subject, message, parameters)
			SELECT ?, 3, max(eventid), ?, 'ops@example.org', 'Problem', ?, '{"a":"b"}' FROM events HAVING max(eventid) IS NOT NULL`,
			ids.Add(1), clock, strings.Repeat("Problem details — ", 1+rng.IntN(2000)))
		return err
	case 5: // the housekeeper: old history and events in batches (events cascade)
		old := 1700000000 + rng.IntN(1200)
		if item <= 20002 {
			// Not the items of the seed's two log values over 1 MB, which
			// the comparison expects (a third of the runs deleted one).
			item += 2
		}
		return inTxn(my, func(tx *sql.Tx) error {
			return execAll(tx,
				fmt.Sprintf("DELETE FROM history WHERE itemid = %d AND clock < %d LIMIT 10", item, old),
				fmt.Sprintf("DELETE FROM history_log WHERE itemid = %d AND clock < %d", item, old),
				fmt.Sprintf("DELETE FROM events WHERE source = 0 AND object = 0 AND clock < %d ORDER BY eventid LIMIT 2", 1700000000+rng.IntN(6000)))
		})
	case 6: // trends: the hourly upsert
		hour := clock - clock%3600
		v := rng.Float64() * 1000
		_, err := my.Exec(`INSERT INTO trends (itemid, clock, num, value_min, value_avg, value_max) VALUES (?, ?, 1, ?, ?, ?)
			ON DUPLICATE KEY UPDATE num = num + 1, value_min = LEAST(value_min, VALUES(value_min)),
			value_avg = (value_avg * (num - 1) + VALUES(value_avg)) / num, value_max = GREATEST(value_max, VALUES(value_max))`,
			item, hour, v, v, v)
		return err
	case 7: // trends_uint
		_, err := my.Exec(`INSERT INTO trends_uint (itemid, clock, num, value_min, value_avg, value_max) VALUES (?, ?, 1, ?, ?, ?)
			ON DUPLICATE KEY UPDATE num = num + 1, value_max = GREATEST(value_max, VALUES(value_max))`,
			item, clock-clock%3600, 0, rng.Uint64()>>1, rng.Uint64())
		return err
	default: // the frontend's sessions
		sid := fmt.Sprintf("%032x", rng.IntN(80))
		if rng.IntN(4) == 0 {
			_, err := my.Exec("DELETE FROM sessions WHERE sessionid = ?", sid)
			return err
		}
		_, err := my.Exec(`INSERT INTO sessions (sessionid, userid, lastaccess, status, secret) VALUES (?, 1, ?, 0, ?)
			ON DUPLICATE KEY UPDATE lastaccess = VALUES(lastaccess)`, sid, clock, fmt.Sprintf("%032x", rng.Uint64()))
		return err
	}
}

// zabbixPGWrite is one transaction of the Zabbix server writing to
// PostgreSQL after the cut-over: multi-row history (BIGINT UNSIGNED up to
// 2^64−1, doubles across magnitudes), keyless history_log rows inserted twice
// and then one of the twins updated or deleted by ctid, events and problems
// with ids from `ids`, recoveries, trend upserts, the housekeeper's deletes
// (events cascading to problems and alerts on both sides), sessions.
func zabbixPGWrite(ids *atomic.Int64) pgWrite {
	return func(ctx context.Context, tx pgx.Tx, q func(string) string, rng *rand.Rand) error {
		item := 20001 + rng.IntN(250)
		clock := time.Now().Unix() + 86400 // ahead of the migration's rows: no key collides
		switch rng.IntN(7) {
		case 0: // the history syncer
			var vals, uvals []string
			for range 10 {
				ns := rng.IntN(1e9)
				vals = append(vals, fmt.Sprintf("(%d, %d, %d, %v)", 20001+rng.IntN(250), clock, ns, rng.NormFloat64()*math.Pow(10, float64(rng.IntN(40)-20))))
				uvals = append(uvals, fmt.Sprintf("(%d, %d, %d, %d)", 20001+rng.IntN(250), clock, ns, rng.Uint64()))
			}
			uvals = append(uvals, fmt.Sprintf("(%d, %d, %d, 18446744073709551615)", item, clock, 1e9+rng.IntN(1e9)))
			return pgExecs(ctx, tx,
				"INSERT INTO "+q("history")+" (itemid, clock, ns, value) VALUES "+strings.Join(vals, ", ")+" ON CONFLICT DO NOTHING", []any{},
				"INSERT INTO "+q("history_uint")+" (itemid, clock, ns, value) VALUES "+strings.Join(uvals, ", ")+" ON CONFLICT DO NOTHING", []any{},
				"INSERT INTO "+q("history_str")+" (itemid, clock, ns, value) VALUES ($1, $2, $3, $4)",
				[]any{item, clock, rng.IntN(1e9), fmt.Sprintf("OK ✓ 😀 %d", rng.IntN(100))})
		case 1: // keyless log rows: twins, then one of them changed or removed
			v := strings.Repeat(fmt.Sprintf("pg line %d: ERROR ✗ 🔥 \"quoted\" \\ back\n", rng.IntN(100)), 1+rng.IntN(300))
			err := pgExecs(ctx, tx, "INSERT INTO "+q("history_log")+` (itemid, clock, timestamp, source, severity, value, logeventid, ns)
				VALUES ($1, $2, $2, 'pg', 2, $3, 0, 0), ($1, $2, $2, 'pg', 2, $3, 0, 0)`, []any{item, clock, v})
			if err != nil || rng.IntN(2) == 0 {
				return err
			}
			return pgExecs(ctx, tx,
				"UPDATE "+q("history_log")+" SET severity = 5, value = value || '✓' WHERE ctid = (SELECT ctid FROM "+q("history_log")+
					" WHERE source = 'pg' AND severity = 2 LIMIT 1)", []any{},
				"DELETE FROM "+q("history_log")+" WHERE ctid = (SELECT ctid FROM "+q("history_log")+
					" WHERE source = 'pg' AND severity = 2 AND itemid = $1 LIMIT 1)", []any{item})
		case 2: // a problem event, or a recovery
			id := ids.Add(1)
			if err := pgExecs(ctx, tx,
				"UPDATE "+q("ids")+" SET nextid = GREATEST(nextid, $1) WHERE table_name = 'events' AND field_name = 'eventid'", []any{id},
				"INSERT INTO "+q("events")+` (eventid, source, object, objectid, clock, value, ns, name, severity)
					VALUES ($1, 0, 0, $2, $3, 1, $4, $5, 4)`,
				[]any{id, 30000 + rng.IntN(40), clock, rng.IntN(1e9), fmt.Sprintf("Disk space is low on \"/var/lib/pg\" 💾 %d", rng.IntN(100))}); err != nil {
				return err
			}
			if rng.IntN(2) == 0 {
				return pgExecs(ctx, tx, "UPDATE "+q("problem")+` SET r_eventid = $1, r_clock = $2, r_ns = 5
					WHERE eventid = (SELECT min(eventid) FROM `+q("problem")+" WHERE r_eventid IS NULL)", []any{id, clock})
			}
			return pgExecs(ctx, tx, "INSERT INTO "+q("problem")+` (eventid, source, object, objectid, clock, ns, name, severity)
				SELECT eventid, source, object, objectid, clock, ns, name, severity FROM `+q("events")+" WHERE eventid = $1", []any{id},
				"INSERT INTO "+q("alerts")+` (alertid, actionid, eventid, clock, sendto, subject, message, parameters)
					VALUES ($1, 3, $1, $2, 'ops@example.org', 'Problem ✗', $3, '{"a":"😀"}')`,
				[]any{id, clock, strings.Repeat("Problem details — ", 1+rng.IntN(200))})
		case 3: // the housekeeper (events cascade to problems and alerts)
			return pgExecs(ctx, tx,
				"DELETE FROM "+q("history")+" WHERE (itemid, clock, ns) IN (SELECT itemid, clock, ns FROM "+q("history")+" WHERE itemid = $1 ORDER BY clock LIMIT 5)", []any{item},
				"DELETE FROM "+q("history_log")+" WHERE itemid = $1 AND clock < $2", []any{item, 1700000000 + rng.IntN(1200)},
				"DELETE FROM "+q("events")+" WHERE eventid IN (SELECT eventid FROM "+q("events")+" ORDER BY eventid LIMIT 2)", []any{})
		case 4: // trends
			hour := clock - clock%3600
			v := rng.Float64() * 1000
			return pgExecs(ctx, tx,
				"INSERT INTO "+q("trends")+` AS t (itemid, clock, num, value_min, value_avg, value_max) VALUES ($1, $2, 1, $3, $3, $3)
					ON CONFLICT (itemid, clock) DO UPDATE SET num = t.num + 1, value_min = LEAST(t.value_min, EXCLUDED.value_min),
					value_max = GREATEST(t.value_max, EXCLUDED.value_max)`, []any{item, hour, v},
				"INSERT INTO "+q("trends_uint")+` AS t (itemid, clock, num, value_min, value_avg, value_max) VALUES ($1, $2, 1, 0, $3::numeric, 18446744073709551615)
					ON CONFLICT (itemid, clock) DO UPDATE SET num = t.num + 1, value_avg = EXCLUDED.value_avg`,
				[]any{item, hour, fmt.Sprint(rng.Uint64())})
		case 5: // alert delivery
			return pgExecs(ctx, tx, "UPDATE "+q("alerts")+" SET status = 1, retries = retries + 1, error = $1 WHERE alertid = $2",
				[]any{fmt.Sprintf("Connection timed out ✗ 🕑 %d", rng.IntN(100)), 1 + rng.IntN(300)})
		default: // sessions
			sid := fmt.Sprintf("%032x", 1000+rng.IntN(80))
			if rng.IntN(4) == 0 {
				return pgExecs(ctx, tx, "DELETE FROM "+q("sessions")+" WHERE sessionid = $1", []any{sid})
			}
			return pgExecs(ctx, tx, "INSERT INTO "+q("sessions")+` (sessionid, userid, lastaccess, status, secret) VALUES ($1, 1, $2, 0, $3)
				ON CONFLICT (sessionid) DO UPDATE SET lastaccess = EXCLUDED.lastaccess`, []any{sid, clock, fmt.Sprintf("%032x", rng.Uint64())})
		}
	}
}
