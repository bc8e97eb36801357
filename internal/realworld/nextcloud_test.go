package realworld

import (
	"context"
	"crypto/md5"
	"database/sql"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestNextcloud migrates a Nextcloud schema (oc_ prefix, utf8mb4_bin,
// ROW_FORMAT=COMPRESSED, BIGINT UNSIGNED ids, filecache's (storage,
// path_hash) unique key, LONGTEXT config and LONGBLOB calendar data) plus the
// `Window` table of SQL quirks, under a file server's load: uploads as
// upserts, moves, deletes, file locks counted up and down, preferences and
// app config, tokens, background jobs, activities, calendar objects; mid-
// stream, the upgrades and occ commands of an older installation (utf8mb3 to
// utf8mb4 and ROW_FORMAT, INT ids to BIGINT, a new column, missing indexes),
// and changes of the quirks table (a DEFAULT (expr) column, an ENUM member
// with a quote).
func TestNextcloud(t *testing.T) {
	t.Parallel()
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		m, ok := appPath(t, nextcloudScenario(env), compareNextcloud, func(q func(string) string) ([]string, []string) {
			return []string{
				`UPDATE ` + q("oc_filecache") + ` SET path = path || '/' WHERE fileid = (SELECT max(fileid) FROM ` + q("oc_filecache") + `)`,
				`UPDATE ` + q("oc_preferences") + ` SET configvalue = 'x' WHERE (userid, appid, configkey) = (SELECT userid, appid, configkey FROM ` + q("oc_preferences") + ` ORDER BY 1, 2, 3 LIMIT 1)`,
				`UPDATE ` + q("Window") + ` SET "state" = 'it''s done', "Limit" = 0 WHERE "ID" = (SELECT min("ID") FROM ` + q("Window") + `)`,
				`DELETE FROM ` + q("oc_calendarobjects") + ` WHERE id = (SELECT min(id) FROM ` + q("oc_calendarobjects") + `)`,
			}, []string{"oc_filecache", "oc_preferences", "Window", "oc_calendarobjects"}
		}, wayBackLoad{write: nextcloudPGWrite, minWrites: 100, proof: "SELECT count(*) FROM oc_filecache WHERE path LIKE 'files/PG/%'",
			fallback: []string{"INSERT INTO `Window` (`Select`, `Price`) VALUES ('after fallback', 1)",
				"INSERT INTO oc_filecache (storage, path, path_hash) VALUES (1, 'files/after-fallback', 'fallback')"}})
		if !ok {
			return
		}
		q := m.pgq
		// After a cut-over the application inserts with its defaults.
		requireCutover(t, m, `INSERT INTO `+q("Window")+` ("Select", "Price") VALUES ('cut-over', 2.5)`,
			`INSERT INTO `+q("oc_filecache")+` (storage, path, path_hash) VALUES (1, 'files/after', 'x')`)
		var n int
		if err := m.pg.QueryRow(t.Context(), `SELECT count(*) FROM `+q("Window")+` WHERE "Select" = 'cut-over'
			AND "Limit" = 100 AND "Total" = 2.5 AND "state" = '' AND "Group" = 'all' AND "Label" = 'cut-over/'
			AND "expires" > LOCALTIMESTAMP + interval '23 hours' AND length("token") = 36 AND "from" = current_date`).Scan(&n); err != nil || n != 1 {
			t.Errorf("the target's defaults and generated columns after a cut-over: %d rows (%v)", n, err)
		}
		// ON UPDATE CURRENT_TIMESTAMP (a trigger on PostgreSQL) for the application's updates.
		requireCutover(t, m, `UPDATE `+q("Window")+` SET "updatedAt" = '2000-01-01', "touched" = NULL WHERE "Select" = 'cut-over'`,
			`UPDATE `+q("Window")+` SET "qty" = 7 WHERE "Select" = 'cut-over'`)
		if err := m.pg.QueryRow(t.Context(), `SELECT count(*) FROM `+q("Window")+` WHERE "Select" = 'cut-over' AND "Total" = 17.5
			AND "updatedAt" > now() - interval '1 hour' AND "touched" > LOCALTIMESTAMP - interval '1 hour'`).Scan(&n); err != nil || n != 1 {
			t.Errorf("ON UPDATE CURRENT_TIMESTAMP after a cut-over: %d rows (%v)", n, err)
		}
	})
}

// TestNextcloudIntoMySQL runs the Nextcloud scenario into the MariaDB target,
// and MySQL 9.7 → MySQL 9.7.
func TestNextcloudIntoMySQL(t *testing.T) {
	t.Parallel()
	testenv.MySQLTargetFlavors(t, func(t *testing.T, env *testenv.Env) {
		s := nextcloudScenario(env)
		s.into = intoMySQL("InnoDB")
		m := s.run(t)
		compareBytes(t, m)
		if t.Failed() {
			return
		}
		damageAndRepair(t, m, []string{
			"UPDATE " + m.q("oc_filecache") + " SET path = CONCAT(path, '/') ORDER BY fileid DESC LIMIT 1",
			"UPDATE " + m.q("Window") + " SET `state` = 'it''s done', `Limit` = 0 ORDER BY `ID` LIMIT 1",
		}, "oc_filecache", "Window")
		compareBytes(t, m)
		requireCutover(t, m, "INSERT INTO "+m.q("Window")+" (`Select`, `Price`) VALUES ('cut-over', 2.5)")
		var n int
		if err := m.tgt.QueryRow("SELECT count(*) FROM " + m.q("Window") + " WHERE `Select` = 'cut-over' AND `Limit` = 100 AND `Total` = 2.5" +
			" AND `state` = '' AND `Group` = 'all' AND `Label` = 'cut-over/' AND `expires` > NOW() + INTERVAL 23 HOUR" +
			" AND LENGTH(`token`) = 36 AND `from` = CURDATE()").Scan(&n); err != nil || n != 1 {
			t.Errorf("the target's defaults and generated columns after a cut-over: %d rows (%v)", n, err)
		}
	})
}

func nextcloudScenario(env *testenv.Env) scenario {
	return scenario{
		env:        env,
		prefix:     "rw_nc",
		schemaFile: "nextcloud.sql",
		seed:       seedNextcloud,
		write:      nextcloudWrite,
		midStream: []string{
			// occ db:convert-mysql-charset
			"ALTER TABLE `oc_preferences` CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_bin",
			"ALTER TABLE `oc_preferences` ROW_FORMAT=COMPRESSED",
			"UPDATE `oc_preferences` SET `configvalue` = CONCAT(`configvalue`, ' 😀') WHERE `appid` = 'core'",
			// occ db:convert-filecache-bigint
			"ALTER TABLE `oc_activity` MODIFY `activity_id` BIGINT AUTO_INCREMENT NOT NULL, MODIFY `object_id` BIGINT DEFAULT 0 NOT NULL",
			"UPDATE `oc_activity` SET `object_id` = `object_id` + 3000000000 WHERE `activity_id` % 10 = 0",
			// Nextcloud 24: Version24000Date20211230140012
			"ALTER TABLE `oc_jobs` ADD `time_sensitive` SMALLINT DEFAULT 1 NOT NULL",
			"CREATE INDEX `jobs_time_sensitive` ON `oc_jobs` (`time_sensitive`)",
			// occ db:add-missing-indices
			"CREATE INDEX `fs_storage_path_prefix` ON `oc_filecache` (`storage`, `path`(64))",
			// The quirks table: a DEFAULT (expr) column in the middle, a new
			// ENUM member with a quote and non-ASCII letters.
			"ALTER TABLE `Window` ADD COLUMN `Group` VARCHAR(20) NOT NULL DEFAULT (LOWER('ALL')) AFTER `Select`",
			"ALTER TABLE `Window` MODIFY `state` ENUM('', 'new', 'it''s done', 'a,b', 'Ünï''code') NOT NULL DEFAULT ''",
			"UPDATE `Window` SET `state` = 'Ünï''code', `Group` = 'Staff' WHERE `ID` % 4 = 0",
		},
	}
}

// compareNextcloud compares every table value by value.
func compareNextcloud(t *testing.T, m migrated) {
	t.Helper()
	n := compareAllPG(t, m, map[string]int{"oc_filecache": 800, "oc_filecache_extended": 300, "oc_mimetypes": 10,
		"oc_storages": 10, "oc_users": 10, "oc_preferences": 150, "oc_appconfig": 100, "oc_file_locks": 10,
		"oc_authtoken": 10, "oc_jobs": 30, "oc_activity": 300, "oc_calendarobjects": 80, "Window": 40})
	if n != 13 {
		t.Errorf("%d tables compared, want 13", n)
	}
	var quirks int
	if err := m.my.QueryRow("SELECT count(DISTINCT `state`) FROM `Window`").Scan(&quirks); err != nil || quirks < 5 {
		t.Errorf("Window has %d distinct states (%v): the test lost its point", quirks, err)
	}
}

func seedNextcloud(t *testing.T, my flavorDB) {
	t.Helper()
	_, err := my.Exec(`
INSERT INTO oc_storages (id, available, last_checked)
  SELECT IF(seq = 1, 'local::/var/www/nextcloud/data/', CONCAT('home::', ELT(1 + seq % 3, 'alice', 'bob', 'jürgen'), seq)), 1, NULL
  FROM seq_1_to_12;
INSERT INTO oc_mimetypes (mimetype) VALUES ('httpd'), ('httpd/unix-directory'), ('image'), ('image/jpeg'), ('image/png'),
  ('text'), ('text/plain'), ('text/markdown'), ('application'), ('application/pdf'),
  ('application/vnd.oasis.opendocument.text'), ('application/octet-stream'), ('video'), ('video/mp4');
INSERT INTO oc_users (uid, displayname, password, uid_lower)
  SELECT CONCAT(ELT(1 + seq % 3, 'alice', 'Bob', 'jürgen'), seq), CONCAT('Ünïcode Üser ', seq),
         CONCAT('3|$argon2id$v=19$m=65536,t=4,p=1$', TO_BASE64(SHA2(seq, 256))), LOWER(CONCAT(ELT(1 + seq % 3, 'alice', 'Bob', 'jürgen'), seq))
  FROM seq_1_to_12;
INSERT INTO oc_filecache (storage, path, path_hash, parent, name, mimetype, mimepart, size, mtime, storage_mtime, etag, permissions, checksum)
  SELECT 1 + seq % 12, CONCAT('files/Photos/', 2000 + seq % 25, '/Ürlaub «', seq % 7, '»/IMG_', seq, '.jpg'),
         LEFT(SHA2(CONCAT('files/Photos/', 2000 + seq % 25, '/Ürlaub «', seq % 7, '»/IMG_', seq, '.jpg'), 256), 32),
         seq DIV 10, CONCAT('IMG_', seq, '.jpg'), 4, 3, seq * 104729, 1700000000 + seq, 1700000000 + seq,
         LEFT(SHA2(seq, 512), 13), 27, IF(seq % 3 = 0, CONCAT('SHA1:', LEFT(SHA2(seq, 256), 40)), '')
  FROM seq_1_to_1000;
INSERT INTO oc_filecache_extended (fileid, metadata_etag, creation_time, upload_time)
  SELECT fileid, NULL, IF(fileid % 3 = 0, 0, 1600000000 + fileid), 1700000000 + fileid FROM oc_filecache WHERE fileid % 2 = 0;
INSERT INTO oc_preferences (userid, appid, configkey, configvalue)
  SELECT CONCAT('alice', seq DIV 20), ELT(1 + seq % 4, 'core', 'files', 'settings', 'activity'), CONCAT('key_', seq % 20),
         IF(seq % 5 = 0, NULL, CONCAT('{"lang":"de","price":"5 €","ü":', seq, '}')) FROM seq_1_to_200;
INSERT INTO oc_appconfig (appid, configkey, configvalue, type, lazy)
  SELECT ELT(1 + seq % 5, 'core', 'files', 'theming', 'dav', 'files_sharing'), CONCAT('config_', seq),
         IF(seq % 7 = 0, REPEAT('{"enabled":"yes","groups":["admin","Grüppe"]}', 200), CONCAT(seq)), 2 + seq % 3, seq % 2
  FROM seq_1_to_150;
INSERT INTO oc_file_locks (` + "`lock`, `key`" + `, ttl)
  SELECT seq % 3, CONCAT('files/', LEFT(SHA2(seq, 256), 32)), 1700000000 + seq FROM seq_1_to_50;
INSERT INTO oc_authtoken (uid, login_name, password, name, token, type, remember, last_activity, last_check, scope, expires,
                          private_key, public_key, version, password_invalid)
  SELECT CONCAT('alice', seq % 5), CONCAT('alice', seq % 5), TO_BASE64(SHA2(seq, 512)),
         CONCAT('Mozilla/5.0 (X11; Linux x86_64) Firefox/', 100 + seq, ' — Nextcloud «desktop»'), SHA2(seq, 512), seq % 2, 1,
         1700000000 + seq, 1700000000 + seq, IF(seq % 3 = 0, '{"filesystem":true}', NULL), IF(seq % 4 = 0, 1800000000, NULL),
         REPEAT(TO_BASE64(SHA2(seq, 512)), 20), CONCAT('-----BEGIN PUBLIC KEY-----\n', TO_BASE64(SHA2(seq, 256)), '\n-----END PUBLIC KEY-----'),
         2, seq % 9 = 0
  FROM seq_1_to_30;
INSERT INTO oc_jobs (class, argument, last_run, last_checked, reserved_at, execution_duration, argument_hash)
  SELECT ELT(1 + seq % 4, 'OCA\\Files\\BackgroundJob\\ScanFiles', 'OC\\Log\\Rotate', 'OCA\\DAV\\BackgroundJob\\CleanupInvitationTokenJob', 'OCA\\Activity\\BackgroundJob\\EmailNotification'),
         IF(seq % 3 = 0, CONCAT('{"userId":"alice', seq, '"}'), 'null'), 1700000000 + seq, 1700000000 + seq, 0, seq % 60,
         IF(seq % 3 = 0, SHA2(seq, 256), NULL) FROM seq_1_to_40;
INSERT INTO oc_activity (` + "`timestamp`, priority, type, `user`" + `, affecteduser, app, subject, subjectparams, message, messageparams, file, link, object_type, object_id)
  SELECT 1700000000 + seq * 60, 30, ELT(1 + seq % 3, 'file_created', 'file_changed', 'shared'), CONCAT('alice', seq % 5), CONCAT('bob', seq % 4), 'files',
         'created_self', CONCAT('[{"', seq, '":"\\/Photos\\/IMG_', seq, '.jpg"}]'), '', '[]', CONCAT('/Photos/IMG_', seq, '.jpg'),
         CONCAT('https://cloud.example.org/apps/files/?dir=/Photos&fileid=', seq), 'files', seq
  FROM seq_1_to_350;
INSERT INTO oc_calendarobjects (calendardata, uri, calendarid, lastmodified, etag, size, componenttype, firstoccurence, lastoccurence, uid, classification, calendartype, deleted_at)
  SELECT CONCAT('BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Sabre//Sabre VObject 4.5.4//EN\r\nBEGIN:VEVENT\r\nUID:', seq,
                '\r\nSUMMARY:Réunion «équipe» ', seq, '\r\nDTSTART;TZID=Europe/Berlin:20240101T100000\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n'),
         CONCAT(UPPER(LEFT(SHA2(seq, 256), 8)), '-', seq, '.ics'), 1 + seq % 5, 1700000000 + seq, LEFT(SHA2(seq, 256), 32), 200 + seq,
         IF(seq % 4 = 0, 'VTODO', 'VEVENT'), 1704099600 + seq * 3600, IF(seq % 6 = 0, NULL, 1704103200 + seq * 3600),
         CONCAT(seq, '@example.org'), seq % 3, seq % 2, IF(seq % 10 = 0, 1700000000, NULL)
  FROM seq_1_to_100;
INSERT INTO ` + "`Window` (`Select`, `end`, `Price`, `qty`, `state`, `touched`" + `)
  SELECT CONCAT(ELT(1 + seq % 3, 'Äll', 'some', 'it''s'), seq), '2024-02-29 23:59:59.999999' - INTERVAL seq HOUR, seq * 1.25, seq % 7,
         ELT(1 + seq % 4, '', 'new', 'it''s done', 'a,b'), IF(seq % 2 = 0, NULL, '2024-01-01 00:00:00')
  FROM seq_1_to_50;`)
	if err != nil {
		t.Fatalf("seed: %v", err)
	}
}

// nextcloudWrite runs one transaction of a busy Nextcloud server.
func nextcloudWrite(my *sql.DB, rng *rand.Rand) error {
	now := time.Now().Unix()
	file := 1 + rng.IntN(1200)
	switch rng.IntN(11) {
	case 0, 1: // an upload: the file's row upserted, its extended row, the parent folder's size and etag
		path := fmt.Sprintf("files/Documents/Ünïcode/%d/report-%d.odt", rng.IntN(20), rng.IntN(300))
		sum := md5.Sum([]byte(path))
		return inTxn(my, func(tx *sql.Tx) error {
			_, err := tx.Exec(`INSERT INTO oc_filecache (storage, path, path_hash, parent, name, mimetype, mimepart, size, mtime,
				storage_mtime, etag, permissions) VALUES (?, ?, ?, 1, ?, 11, 9, ?, ?, ?, ?, 27)
				ON DUPLICATE KEY UPDATE size = VALUES(size), mtime = VALUES(mtime), etag = VALUES(etag), fileid = LAST_INSERT_ID(fileid)`,
				1+rng.IntN(12), path, hex.EncodeToString(sum[:]), path[strings.LastIndexByte(path, '/')+1:], rng.Int64N(1<<40), now, now,
				fmt.Sprintf("%013x", rng.Uint64()>>12))
			if err != nil {
				return err
			}
			return execArgs(tx,
				`INSERT INTO oc_filecache_extended (fileid, upload_time) VALUES (LAST_INSERT_ID(), ?)
					ON DUPLICATE KEY UPDATE upload_time = VALUES(upload_time)`, now,
				"UPDATE oc_filecache SET size = size + 1, etag = ? WHERE fileid = 1", fmt.Sprintf("%013x", rng.Uint64()>>12))
		})
	case 2: // a move: path, path_hash and name change
		path := fmt.Sprintf("files/Moved/%d-%d/Ärchiv «alt».txt", file, rng.IntN(1e6))
		sum := md5.Sum([]byte(path))
		_, err := my.Exec("UPDATE oc_filecache SET path = ?, path_hash = ?, name = 'Ärchiv «alt».txt', parent = 2 WHERE fileid = ?",
			path, hex.EncodeToString(sum[:]), file)
		return err
	case 3: // a delete
		return inTxn(my, func(tx *sql.Tx) error {
			return execArgs(tx, "DELETE FROM oc_filecache WHERE fileid = ?", file, "DELETE FROM oc_filecache_extended WHERE fileid = ?", file)
		})
	case 4: // file locks: acquired (shared locks count up), released, expired ones cleaned
		key := fmt.Sprintf("files/%032x", rng.IntN(80))
		switch rng.IntN(3) {
		case 0:
			_, err := my.Exec("INSERT INTO oc_file_locks (`key`, `lock`, ttl) VALUES (?, 1, ?) ON DUPLICATE KEY UPDATE `lock` = `lock` + 1, ttl = VALUES(ttl)", key, now+3600)
			return err
		case 1:
			_, err := my.Exec("UPDATE oc_file_locks SET `lock` = `lock` - 1 WHERE `key` = ? AND `lock` > 0", key)
			return err
		default:
			_, err := my.Exec("DELETE FROM oc_file_locks WHERE ttl < ? LIMIT 3", 1700000000+rng.IntN(60))
			return err
		}
	case 5: // preferences (3-byte characters only: the table may still be utf8mb3) and app config
		return inTxn(my, func(tx *sql.Tx) error {
			return execArgs(tx,
				`INSERT INTO oc_preferences (userid, appid, configkey, configvalue) VALUES (?, 'files', 'quota', ?)
					ON DUPLICATE KEY UPDATE configvalue = VALUES(configvalue)`, fmt.Sprint("alice", rng.IntN(12)), fmt.Sprintf("%d GB — €", rng.IntN(100)),
				"UPDATE oc_appconfig SET configvalue = ? WHERE appid = 'core' AND configkey = 'config_5'", fmt.Sprint(now))
		})
	case 6: // app tokens: activity, a new login, expired ones removed
		switch rng.IntN(3) {
		case 0:
			_, err := my.Exec("UPDATE oc_authtoken SET last_activity = ?, last_check = ? WHERE id = ?", now, now, 1+rng.IntN(40))
			return err
		case 1:
			_, err := my.Exec(`INSERT INTO oc_authtoken (uid, login_name, name, token, type, last_activity, last_check, private_key, public_key)
				VALUES ('alice1', 'alice1', 'Nextcloud-android 😀', ?, 0, ?, ?, ?, 'pub')`, fmt.Sprintf("%0128x", rng.Uint64()), now, now,
				strings.Repeat("k", 1000+rng.IntN(2000)))
			return err
		default:
			_, err := my.Exec("DELETE FROM oc_authtoken WHERE type = 0 AND last_activity < ? ORDER BY id LIMIT 1", now-2)
			return err
		}
	case 7: // background jobs: reserved, then run
		id := 1 + rng.IntN(40)
		return inTxn(my, func(tx *sql.Tx) error {
			return execArgs(tx,
				"UPDATE oc_jobs SET reserved_at = ?, last_checked = ? WHERE id = ? AND reserved_at = 0", now, now, id,
				"UPDATE oc_jobs SET last_run = ?, reserved_at = 0, execution_duration = ? WHERE id = ?", now, rng.IntN(30), id)
		})
	case 8: // an activity
		_, err := my.Exec("INSERT INTO oc_activity (`timestamp`, type, `user`, affecteduser, app, subject, subjectparams, file, object_type, object_id) "+
			"VALUES (?, 'file_changed', 'alice1', 'bob2', 'files', 'changed_self', ?, ?, 'files', ?)",
			now, fmt.Sprintf(`[{"%d":"\/Documents\/r.odt"}]`, file), "/Documents/r.odt", file)
		return err
	case 9: // calendar: an event created or changed (upsert by uri), or moved to the trash bin
		if rng.IntN(3) == 0 {
			_, err := my.Exec("UPDATE oc_calendarobjects SET deleted_at = ? WHERE id = ?", now, 1+rng.IntN(120))
			return err
		}
		uri := fmt.Sprintf("EV%d.ics", rng.IntN(60))
		data := []byte(fmt.Sprintf("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nSUMMARY:Sprint ✓ %d\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n", rng.IntN(1e6)))
		_, err := my.Exec(`INSERT INTO oc_calendarobjects (calendardata, uri, calendarid, lastmodified, etag, size, componenttype, uid)
			VALUES (?, ?, 1, ?, ?, ?, 'VEVENT', ?) ON DUPLICATE KEY UPDATE calendardata = VALUES(calendardata),
			lastmodified = VALUES(lastmodified), etag = VALUES(etag), size = VALUES(size)`,
			data, uri, now, fmt.Sprintf("%032x", rng.Uint64()), len(data), uri)
		return err
	default: // the quirks table: defaults evaluated on insert, ON UPDATE on change
		switch rng.IntN(3) {
		case 0:
			_, err := my.Exec("INSERT INTO `Window` (`Select`, `Price`, `qty`, `state`) VALUES (?, ?, ?, ?)",
				fmt.Sprintf("Sél %d", rng.IntN(100)), float64(rng.IntN(100000))/100, rng.IntN(9), []string{"", "new", "it's done", "a,b"}[rng.IntN(4)])
			return err
		case 1:
			_, err := my.Exec("UPDATE `Window` SET `qty` = `qty` + 1, `Price` = `Price` * 1.1 WHERE `ID` = ?", 1+rng.IntN(80))
			return err
		default:
			_, err := my.Exec("DELETE FROM `Window` WHERE `ID` = ? AND `ID` > 40", 1+rng.IntN(120))
			return err
		}
	}
}

// nextcloudPGWrite is one transaction of Nextcloud writing to PostgreSQL
// after the cut-over: uploads (ids from the identity sequences, upserts by
// the unique path hash), moves, deletes, file locks, preferences with 4-byte
// UTF-8 (the table is utf8mb4 since the mid-stream conversion), app tokens
// (TINYINT(1)), calendar objects (LONGBLOB), and the quirks table: inserts
// relying on its defaults (uuid(), CURRENT_DATE, an expression), ENUM members
// with a quote, a comma and non-ASCII letters, DECIMAL prices, and updates
// that touch ON UPDATE CURRENT_TIMESTAMP columns (a trigger on PostgreSQL).
func nextcloudPGWrite(ctx context.Context, tx pgx.Tx, q func(string) string, rng *rand.Rand) error {
	now := time.Now().Unix()
	file := 1 + rng.IntN(1200)
	switch rng.IntN(8) {
	case 0, 1: // an upload
		path := fmt.Sprintf("files/PG/Ünïcode 😀/%d/report-%d.odt", rng.IntN(20), rng.IntN(300))
		sum := md5.Sum([]byte(path))
		var id int64
		if err := tx.QueryRow(ctx, "INSERT INTO "+q("oc_filecache")+` AS f (storage, path, path_hash, parent, name, mimetype, mimepart, size, mtime,
			storage_mtime, etag, permissions) VALUES ($1, $2, $3, 1, $4, 11, 9, $5, $6, $6, $7, 27)
			ON CONFLICT (storage, path_hash) DO UPDATE SET size = EXCLUDED.size, mtime = EXCLUDED.mtime, etag = EXCLUDED.etag RETURNING fileid`,
			1+rng.IntN(12), path, hex.EncodeToString(sum[:]), path[strings.LastIndexByte(path, '/')+1:], rng.Int64N(1<<40), now,
			fmt.Sprintf("%013x", rng.Uint64()>>12)).Scan(&id); err != nil {
			return err
		}
		return pgExecs(ctx, tx, "INSERT INTO "+q("oc_filecache_extended")+` (fileid, upload_time) VALUES ($1, $2)
			ON CONFLICT (fileid) DO UPDATE SET upload_time = EXCLUDED.upload_time`, []any{id, now})
	case 2: // a move, or a delete
		if rng.IntN(2) == 0 {
			path := fmt.Sprintf("files/PG/Moved/%d-%d/Ärchiv «alt» 🗂.txt", file, rng.IntN(1e6))
			sum := md5.Sum([]byte(path))
			return pgExecs(ctx, tx, "UPDATE "+q("oc_filecache")+" SET path = $1, path_hash = $2, name = 'Ärchiv «alt» 🗂.txt', parent = 2 WHERE fileid = $3",
				[]any{path, hex.EncodeToString(sum[:]), file})
		}
		return pgExecs(ctx, tx, "DELETE FROM "+q("oc_filecache")+" WHERE fileid = $1", []any{file},
			"DELETE FROM "+q("oc_filecache_extended")+" WHERE fileid = $1", []any{file})
	case 3: // file locks
		key := fmt.Sprintf("files/pg/%032x", rng.IntN(80))
		if rng.IntN(3) == 0 {
			return pgExecs(ctx, tx, "DELETE FROM "+q("oc_file_locks")+` WHERE "key" = $1`, []any{key})
		}
		return pgExecs(ctx, tx, "INSERT INTO "+q("oc_file_locks")+` AS l ("key", "lock", ttl) VALUES ($1, 1, $2)
			ON CONFLICT ("key") DO UPDATE SET "lock" = l."lock" + 1, ttl = EXCLUDED.ttl`, []any{key, now + 3600})
	case 4: // preferences and app config
		return pgExecs(ctx, tx,
			"INSERT INTO "+q("oc_preferences")+` (userid, appid, configkey, configvalue) VALUES ($1, 'files', 'quota', $2)
				ON CONFLICT (userid, appid, configkey) DO UPDATE SET configvalue = EXCLUDED.configvalue`,
			[]any{fmt.Sprint("alice", rng.IntN(12)), fmt.Sprintf("%d GB — € 😀", rng.IntN(100))},
			"UPDATE "+q("oc_appconfig")+" SET configvalue = $1, lazy = 65535, type = 4294967295 WHERE appid = 'core' AND configkey = 'config_5'",
			[]any{fmt.Sprint(now)})
	case 5: // app tokens
		if rng.IntN(2) == 0 {
			return pgExecs(ctx, tx, "UPDATE "+q("oc_authtoken")+" SET last_activity = $1, last_check = $1, password_invalid = $2 WHERE id = $3",
				[]any{now, rng.IntN(2), 1 + rng.IntN(40)})
		}
		return pgExecs(ctx, tx, "INSERT INTO "+q("oc_authtoken")+` (uid, login_name, name, token, type, last_activity, last_check, private_key, public_key, expires)
			VALUES ('alice1', 'alice1', 'Nextcloud-ios 📱', $1, 0, $2, $2, $3, 'pub', 4294967295)`,
			[]any{fmt.Sprintf("pg%0126x", rng.Uint64()), now, strings.Repeat("k", 1000+rng.IntN(2000))})
	case 6: // calendar
		uri := fmt.Sprintf("PG%d.ics", rng.IntN(60))
		data := []byte(fmt.Sprintf("BEGIN:VCALENDAR\r\nSUMMARY:Sprint 🏃 %d\r\n\x00\xff\r\nEND:VCALENDAR\r\n", rng.IntN(1e6)))
		return pgExecs(ctx, tx, "INSERT INTO "+q("oc_calendarobjects")+` (calendardata, uri, calendarid, lastmodified, etag, size, componenttype, uid, calendartype)
			VALUES ($1, $2, 1, $3, $4, $5, 'VEVENT', $2, 0) ON CONFLICT (calendarid, calendartype, uri) DO UPDATE SET calendardata = EXCLUDED.calendardata,
			lastmodified = EXCLUDED.lastmodified, etag = EXCLUDED.etag, size = EXCLUDED.size, deleted_at = NULL`,
			[]any{data, uri, now, fmt.Sprintf("%032x", rng.Uint64()), len(data)})
	default: // the quirks table
		switch rng.IntN(3) {
		case 0:
			return pgExecs(ctx, tx, "INSERT INTO "+q("Window")+` ("Select", "Price", qty, state) VALUES ($1, $2, $3, $4)`,
				[]any{fmt.Sprintf("PG Sél 😀 %d", rng.IntN(100)), fmt.Sprintf("%d.%02d", rng.IntN(1e8), rng.IntN(100)), rng.IntN(9),
					[]string{"", "new", "it's done", "a,b", "Ünï'code"}[rng.IntN(5)]})
		case 1:
			return pgExecs(ctx, tx, "UPDATE "+q("Window")+` SET qty = qty + 1, "Price" = round("Price" * 1.1, 2) WHERE "ID" = $1 AND "Price" < 9000000`,
				[]any{1 + rng.IntN(80)})
		default:
			return pgExecs(ctx, tx, "DELETE FROM "+q("Window")+` WHERE "ID" = $1 AND "ID" > 40`, []any{1 + rng.IntN(120)})
		}
	}
}
