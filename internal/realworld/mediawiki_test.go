package realworld

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestMediaWiki migrates a MediaWiki schema (every string bytes, BINARY(14)
// timestamps, `/`-heavy titles in composite unique keys, MEDIUMBLOB page text)
// under a wiki's load: edits (comment, text, revision, page, recentchanges in
// one transaction), page moves, links and categories replaced, the object
// cache upserted and purged, watchlist notifications; mid-stream, the
// update.php steps of 1.38–1.42 (objectcache.modtoken, linktarget and
// pagelinks.pl_target_id with its migration, user.user_is_temp).
func TestMediaWiki(t *testing.T) {
	t.Parallel()
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		m, ok := appPath(t, mediawikiScenario(env), compareMediaWiki, func(q func(string) string) ([]string, []string) {
			return []string{
				`UPDATE ` + q("page") + ` SET page_title = page_title || '/x'::bytea WHERE page_id = (SELECT max(page_id) FROM ` + q("page") + `)`,
				`UPDATE ` + q("text") + ` SET old_text = substr(old_text, 2) WHERE old_id = (SELECT min(old_id) FROM ` + q("text") + `)`,
				`DELETE FROM ` + q("categorylinks") + ` WHERE (cl_from, cl_to) = (SELECT cl_from, cl_to FROM ` + q("categorylinks") + ` ORDER BY 1, 2 LIMIT 1)`,
				`UPDATE ` + q("user") + ` SET user_token = '\x00'::bytea WHERE user_id = 1`,
			}, []string{"page", "text", "categorylinks", "user"}
		}, wayBackLoad{write: mediawikiPGWrite, minWrites: 100, proof: "SELECT count(*) FROM text WHERE old_text LIKE '== PG edit%'",
			fallback: []string{"INSERT INTO text (old_text, old_flags) VALUES ('after fallback', 'utf-8')",
				"INSERT INTO comment (comment_hash, comment_text) VALUES (1, 'after fallback')"}})
		if !ok {
			return
		}
		q := m.pgq
		requireCutover(t, m, `INSERT INTO `+q("page")+` (page_namespace, page_title, page_random, page_touched, page_latest, page_len)
			VALUES (0, 'After/cut-over', 0.5, '20260101000000', 0, 0)`,
			`INSERT INTO `+q("linktarget")+` (lt_namespace, lt_title) VALUES (0, 'After/cut-over')`)
	})
}

// TestMediaWikiIntoMySQL runs the MediaWiki scenario into the MariaDB target:
// every table byte for byte, definitions included; MySQL 9.7 → MySQL 9.7 too.
func TestMediaWikiIntoMySQL(t *testing.T) {
	t.Parallel()
	testenv.MySQLTargetFlavors(t, func(t *testing.T, env *testenv.Env) {
		s := mediawikiScenario(env)
		s.into = intoMySQL("InnoDB")
		m := s.run(t)
		compareBytes(t, m)
		if t.Failed() {
			return
		}
		damageAndRepair(t, m, []string{
			"UPDATE " + m.q("page") + " SET page_title = CONCAT(page_title, '/x') ORDER BY page_id DESC LIMIT 1",
			"UPDATE " + m.q("user") + " SET user_token = 'x' WHERE user_id = 1",
		}, "page", "user")
		compareBytes(t, m)
		requireCutover(t, m, "INSERT INTO "+m.q("linktarget")+" (lt_namespace, lt_title) VALUES (0, 'After/cut-over')")
	})
}

// TestMediaWikiIntoMyRocks runs it with every table on ROCKSDB (MediaWiki
// has no foreign keys or generated columns).
func TestMediaWikiIntoMyRocks(t *testing.T) {
	t.Parallel()
	s := mediawikiScenario(testenv.GetFlavor(t, testenv.MariaDB))
	s.into = intoMySQL("ROCKSDB")
	m := s.run(t)
	compareBytes(t, m)
	requireEngine(t, m, "ROCKSDB")
}

func mediawikiScenario(env *testenv.Env) scenario {
	return scenario{
		env:        env,
		prefix:     "rw_mw",
		schemaFile: "mediawiki.sql",
		seed:       seedMediaWiki,
		write:      mediawikiWrite,
		midStream: []string{
			// 1.38 patch-objectcache-modtoken.sql: VARCHAR in a table whose
			// charset is binary is VARBINARY.
			"ALTER TABLE objectcache ADD modtoken VARCHAR(17) DEFAULT '00000000000000000' NOT NULL, ADD flags INT UNSIGNED DEFAULT NULL",
			"UPDATE objectcache SET modtoken = '00000000000001234', flags = 1 WHERE keyname LIKE '%:revision:%'",
			// 1.39 patch-linktarget.sql and patch-pagelinks-target_id.sql, then
			// migrateLinksTable.php.
			"CREATE TABLE linktarget (lt_id BIGINT UNSIGNED AUTO_INCREMENT NOT NULL, lt_namespace INT NOT NULL, " +
				"lt_title VARBINARY(255) NOT NULL, UNIQUE INDEX lt_namespace_title (lt_namespace, lt_title), " +
				"PRIMARY KEY(lt_id)) ENGINE=InnoDB, DEFAULT CHARSET=binary",
			"ALTER TABLE pagelinks ADD pl_target_id BIGINT UNSIGNED DEFAULT NULL",
			"CREATE INDEX pl_target_id ON pagelinks (pl_target_id, pl_from)",
			"INSERT IGNORE INTO linktarget (lt_namespace, lt_title) SELECT DISTINCT pl_namespace, pl_title FROM pagelinks",
			"UPDATE pagelinks JOIN linktarget ON lt_namespace = pl_namespace AND lt_title = pl_title SET pl_target_id = lt_id",
			// 1.42 patch-user-user_is_temp.sql
			"ALTER TABLE user ADD user_is_temp TINYINT(1) DEFAULT 0 NOT NULL",
			"UPDATE user SET user_is_temp = 1 WHERE user_name LIKE '~%'",
			"ALTER TABLE recentchanges DROP INDEX rc_ip",
		},
	}
}

// compareMediaWiki compares every table of the wiki value by value.
func compareMediaWiki(t *testing.T, m migrated) {
	t.Helper()
	n := compareAllPG(t, m, map[string]int{"page": 250, "revision": 600, "text": 600, "comment": 100,
		"actor": 50, "user": 40, "categorylinks": 300, "pagelinks": 100, "page_props": 100,
		"recentchanges": 100, "objectcache": 20, "watchlist": 100, "linktarget": 100})
	if n != 13 {
		t.Errorf("%d tables compared, want 13", n)
	}
	var slashes int
	if err := m.my.QueryRow("SELECT count(*) FROM page WHERE page_title LIKE '%/%/%'").Scan(&slashes); err != nil || slashes < 100 {
		t.Errorf("%d titles with slashes (%v): the test lost its point", slashes, err)
	}
}

// mwTS is MediaWiki's TS_MW timestamp: 14 ASCII digits in BINARY(14).
func mwTS(t time.Time) string { return t.UTC().Format("20060102150405") }

func seedMediaWiki(t *testing.T, my flavorDB) {
	t.Helper()
	_, err := my.Exec(`
INSERT INTO user (user_name, user_real_name, user_password, user_newpassword, user_email, user_touched, user_token,
                  user_registration, user_editcount, user_email_token)
  SELECT IF(seq % 10 = 0, CONCAT('~2024-', seq), CONCAT('Wiki Üser ', seq)), CONCAT('Réal Nàme ', seq),
         CONCAT(':pbkdf2:sha512:30000:64:', TO_BASE64(UNHEX(SHA2(seq, 256)))), '', CONCAT('u', seq, '@example.org'),
         DATE_FORMAT('2024-01-01' + INTERVAL seq HOUR, '%Y%m%d%H%i%s'), UNHEX(LEFT(SHA2(seq, 256), 32)),
         IF(seq = 1, NULL, DATE_FORMAT('2010-01-01' + INTERVAL seq DAY, '%Y%m%d%H%i%s')), seq * 7,
         IF(seq % 3 = 0, UNHEX(SHA2(seq, 256)), NULL)
  FROM seq_1_to_40;
INSERT INTO actor (actor_user, actor_name)
  SELECT IF(seq <= 40, seq, NULL), IF(seq <= 40, IF(seq % 10 = 0, CONCAT('~2024-', seq), CONCAT('Wiki Üser ', seq)),
         CONCAT('2001:db8::', HEX(seq))) FROM seq_1_to_50;
INSERT INTO comment (comment_hash, comment_text, comment_data)
  SELECT CAST(CRC32(seq) AS SIGNED) - 2147483648, CONCAT('/* Section ', seq, ' */ fixed typo — “quotes” ✓'), IF(seq % 5 = 0, '{"_message":"x"}', NULL)
  FROM seq_1_to_100;
INSERT INTO page (page_namespace, page_title, page_is_redirect, page_is_new, page_random, page_touched,
                  page_links_updated, page_latest, page_len, page_content_model, page_lang)
  SELECT ELT(1 + seq % 4, 0, 1, 2, 4),
         CONCAT(ELT(1 + seq % 3, 'Project/Archive/', 'Wiki_Üser_', 'Main_Page/'), seq DIV 10, '/Sub_page_', seq, '/Ünïcödé/2024/01'),
         seq % 11 = 0, seq % 7 = 0, RAND(seq), DATE_FORMAT('2024-02-01' + INTERVAL seq MINUTE, '%Y%m%d%H%i%s'),
         IF(seq % 2 = 0, NULL, DATE_FORMAT('2024-02-01' + INTERVAL seq MINUTE, '%Y%m%d%H%i%s')), seq, 100 + seq,
         ELT(1 + seq % 3, 'wikitext', 'css', 'json'), IF(seq % 9 = 0, 'de', NULL)
  FROM seq_1_to_300;
INSERT INTO text (old_text, old_flags)
  SELECT IF(seq % 4 = 0, COMPRESS(REPEAT(CONCAT('== Heading ', seq, ' ==\n[[Link/To/Page]] {{Template|a=b}} '), 40)),
            CONCAT('{{Infobox|name=', seq, '}}\n''''bold'''' [[Catégorie:Test]] ', REPEAT('lorem ', seq))),
         IF(seq % 4 = 0, 'utf-8,gzip', 'utf-8')
  FROM seq_1_to_600;
INSERT INTO revision (rev_page, rev_comment_id, rev_actor, rev_timestamp, rev_minor_edit, rev_deleted, rev_len,
                      rev_parent_id, rev_sha1)
  SELECT 1 + seq % 300, 1 + seq % 100, 1 + seq % 50, DATE_FORMAT('2024-03-01' + INTERVAL seq MINUTE, '%Y%m%d%H%i%s'),
         seq % 3 = 0, IF(seq % 50 = 0, 1, 0), seq * 10, IF(seq <= 300, 0, seq - 300), LOWER(CONV(CRC32(seq), 10, 36))
  FROM seq_1_to_600;
INSERT INTO categorylinks (cl_from, cl_to, cl_sortkey, cl_sortkey_prefix, cl_timestamp, cl_collation, cl_type)
  SELECT 1 + seq % 300, CONCAT('Category_', seq % 37, '/Sub'), CONCAT(UPPER(CONCAT('Sort key ', seq)), CHAR(10), 'prefix'),
         IF(seq % 2 = 0, '', 'prefix'), '2024-01-01 00:00:00' + INTERVAL seq SECOND, 'uppercase', ELT(1 + seq % 3, 'page', 'subcat', 'file')
  FROM seq_1_to_500;
INSERT IGNORE INTO pagelinks (pl_from, pl_namespace, pl_title, pl_from_namespace)
  SELECT 1 + seq % 300, seq % 3, CONCAT('Target/', seq % 150, '/Päge'), 0 FROM seq_1_to_1000;
INSERT INTO page_props (pp_page, pp_propname, pp_value, pp_sortkey)
  SELECT 1 + seq % 300, ELT(1 + seq DIV 300, 'wikibase_item', 'page_image_free', 'defaultsort'), CONCAT('Q', seq),
         IF(seq % 3 = 0, NULL, seq / 7) FROM seq_1_to_899;
INSERT INTO recentchanges (rc_timestamp, rc_actor, rc_namespace, rc_title, rc_comment_id, rc_minor, rc_bot, rc_new,
                           rc_cur_id, rc_this_oldid, rc_last_oldid, rc_type, rc_source, rc_ip, rc_old_len, rc_new_len,
                           rc_log_type, rc_params)
  SELECT DATE_FORMAT('2024-03-01' + INTERVAL seq MINUTE, '%Y%m%d%H%i%s'), 1 + seq % 50, 0, CONCAT('Sub/Page/', seq),
         1 + seq % 100, seq % 2, seq % 5 = 0, seq % 7 = 0, 1 + seq % 300, seq, seq - 1, seq % 4,
         ELT(1 + seq % 3, 'mw.edit', 'mw.new', 'mw.log'), CONCAT('192.0.2.', seq % 255), seq, seq + 10,
         IF(seq % 3 = 2, 'move', NULL), IF(seq % 3 = 2, 'a:1:{s:8:"4::target";s:9:"New/Title";}', NULL)
  FROM seq_1_to_400;
INSERT INTO objectcache (keyname, value, exptime)
  SELECT CONCAT('wikidb:', ELT(1 + seq % 3, 'revision', 'pcache', 'messages'), ':', seq), COMPRESS(REPEAT('cache ', seq)),
         IF(seq % 10 = 0, '99991231235959', DATE_FORMAT('2030-01-01' + INTERVAL seq HOUR, '%Y%m%d%H%i%s'))
  FROM seq_1_to_120;
INSERT IGNORE INTO watchlist (wl_user, wl_namespace, wl_title, wl_notificationtimestamp)
  SELECT 1 + seq % 40, seq % 2, CONCAT('Watched/', seq % 90), IF(seq % 4 = 0, DATE_FORMAT('2024-04-01' + INTERVAL seq MINUTE, '%Y%m%d%H%i%s'), NULL)
  FROM seq_1_to_300;`)
	if err == nil {
		// Bytes no character set holds, in a blob and a title.
		_, err = my.Exec("UPDATE text SET old_text = CONCAT(old_text, ?) WHERE old_id % 13 = 0", "\x00\xff\xfe\x80binary")
	}
	if err == nil {
		_, err = my.Exec("INSERT INTO page (page_namespace, page_title, page_random, page_touched, page_latest, page_len) VALUES (6, ?, 0, '20240101000000', 1, 1)",
			"Raw/\xff\xfe/Bytes")
	}
	if err != nil {
		t.Fatalf("seed: %v", err)
	}
}

// mediawikiWrite runs one transaction of a busy wiki.
func mediawikiWrite(my *sql.DB, rng *rand.Rand) error {
	page := 1 + rng.IntN(320)
	now := mwTS(time.Now())
	switch rng.IntN(8) {
	case 0, 1: // an edit: comment, text, revision, page, recent change and the editor's count
		return inTxn(my, func(tx *sql.Tx) error {
			body := fmt.Sprintf("== Edit %d ==\n[[Some/Linked/Page]] ünïcode ✓ %s", rng.IntN(1e6), strings.Repeat("x", rng.IntN(3000)))
			res, err := tx.Exec("INSERT INTO comment (comment_hash, comment_text) VALUES (?, ?)", rng.Int32(), "edit summary ✍ "+now)
			if err != nil {
				return err
			}
			cid, _ := res.LastInsertId()
			if res, err = tx.Exec("INSERT INTO text (old_text, old_flags) VALUES (?, 'utf-8')", body); err != nil {
				return err
			}
			actor := 1 + rng.IntN(50)
			if res, err = tx.Exec(`INSERT INTO revision (rev_page, rev_comment_id, rev_actor, rev_timestamp, rev_len, rev_parent_id, rev_sha1)
				SELECT page_id, ?, ?, ?, ?, page_latest, ? FROM page WHERE page_id = ?`, cid, actor, now, len(body),
				fmt.Sprintf("%031x", rng.Uint64()), page); err != nil {
				return err
			}
			rev, _ := res.LastInsertId()
			if n, _ := res.RowsAffected(); n == 0 {
				return nil // the page was deleted
			}
			return execArgs(tx,
				"UPDATE page SET page_latest = ?, page_len = ?, page_touched = ?, page_is_new = 0 WHERE page_id = ?", rev, len(body), now, page,
				`INSERT INTO recentchanges (rc_timestamp, rc_actor, rc_namespace, rc_title, rc_comment_id, rc_cur_id, rc_this_oldid,
					rc_source, rc_ip, rc_new_len) SELECT ?, ?, page_namespace, page_title, ?, page_id, ?, 'mw.edit', '198.51.100.7', ?
					FROM page WHERE page_id = ?`, now, actor, cid, rev, len(body), page,
				"UPDATE user SET user_editcount = user_editcount + 1, user_touched = ? WHERE user_id = ?", now, actor)
		})
	case 2: // a page move: the title changes, the old title becomes a redirect
		return inTxn(my, func(tx *sql.Tx) error {
			var ns int
			var old []byte
			err := tx.QueryRow("SELECT page_namespace, page_title FROM page WHERE page_id = ? FOR UPDATE", page).Scan(&ns, &old)
			if err == sql.ErrNoRows {
				return nil
			}
			if err != nil {
				return err
			}
			title := fmt.Sprintf("Moved/%d/To/Sub/Page_%d", page, rng.IntN(1e6))
			return execArgs(tx,
				"UPDATE page SET page_title = ?, page_touched = ? WHERE page_id = ?", title, now, page,
				`INSERT INTO page (page_namespace, page_title, page_is_redirect, page_random, page_touched, page_latest, page_len)
					VALUES (?, ?, 1, ?, ?, 0, 30)`, ns, old, rng.Float64(), now,
				"UPDATE IGNORE watchlist SET wl_title = ? WHERE wl_namespace = ? AND wl_title = ?", title, ns, old)
		})
	case 3: // LinksUpdate: the page's categories and links replaced
		return inTxn(my, func(tx *sql.Tx) error {
			return execArgs(tx,
				"DELETE FROM categorylinks WHERE cl_from = ?", page,
				`INSERT IGNORE INTO categorylinks (cl_from, cl_to, cl_sortkey, cl_sortkey_prefix, cl_collation, cl_type)
					VALUES (?, ?, ?, '', 'uppercase', 'page'), (?, 'Category_1/Sub', ?, 'p', 'uppercase', 'subcat')`,
				page, fmt.Sprintf("Category_%d/Sub", rng.IntN(37)), fmt.Sprintf("SORT %d\n", page), page, fmt.Sprintf("SORT %d\nP", page),
				"DELETE FROM pagelinks WHERE pl_from = ?", page,
				"INSERT IGNORE INTO pagelinks (pl_from, pl_namespace, pl_title) VALUES (?, 0, ?), (?, 0, 'Target/1/Päge')",
				page, fmt.Sprintf("Target/%d/Päge", rng.IntN(200)), page)
		})
	case 4: // the object cache: upsert, or purge of expired entries
		if rng.IntN(3) == 0 {
			_, err := my.Exec("DELETE FROM objectcache WHERE exptime < ? LIMIT 5", mwTS(time.Date(2030, 1, 1+rng.IntN(5), 0, 0, 0, 0, time.UTC)))
			return err
		}
		_, err := my.Exec(`INSERT INTO objectcache (keyname, value, exptime) VALUES (?, ?, ?)
			ON DUPLICATE KEY UPDATE value = VALUES(value), exptime = VALUES(exptime)`,
			fmt.Sprintf("wikidb:pcache:%d", rng.IntN(200)), []byte(fmt.Sprintf("\x00\x01serialized %d \xff", rng.IntN(1e6))),
			mwTS(time.Now().Add(time.Hour)))
		return err
	case 5: // watchlist: watch a page, or clear a notification
		if rng.IntN(2) == 0 {
			_, err := my.Exec("INSERT IGNORE INTO watchlist (wl_user, wl_namespace, wl_title) VALUES (?, 0, ?)",
				1+rng.IntN(40), fmt.Sprintf("Watched/%d", rng.IntN(200)))
			return err
		}
		_, err := my.Exec("UPDATE watchlist SET wl_notificationtimestamp = IF(wl_notificationtimestamp IS NULL, ?, NULL) WHERE wl_user = ? LIMIT 3",
			now, 1+rng.IntN(40))
		return err
	case 6: // page props replaced; old recent changes purged
		return inTxn(my, func(tx *sql.Tx) error {
			return execArgs(tx,
				"REPLACE INTO page_props (pp_page, pp_propname, pp_value, pp_sortkey) VALUES (?, 'defaultsort', ?, ?)",
				page, fmt.Sprintf("Sort/%d", rng.IntN(100)), rng.Float64()*1000,
				"DELETE FROM recentchanges WHERE rc_timestamp < ? ORDER BY rc_timestamp LIMIT 2", mwTS(time.Date(2024, 3, 2, 0, 0, 0, 0, time.UTC)))
		})
	default: // a page deletion: the page and its links (revisions stay, as archived)
		return inTxn(my, func(tx *sql.Tx) error {
			return execArgs(tx,
				"DELETE FROM categorylinks WHERE cl_from = ?", page,
				"DELETE FROM pagelinks WHERE pl_from = ?", page,
				"DELETE FROM page_props WHERE pp_page = ?", page,
				"DELETE FROM page WHERE page_id = ? AND page_is_redirect = 1", page)
		})
	}
}

// execArgs runs statements in order, each followed by as many arguments as
// it has placeholders, stopping at the first error.
func execArgs(tx *sql.Tx, stmtsAndArgs ...any) error {
	for i := 0; i < len(stmtsAndArgs); {
		q := stmtsAndArgs[i].(string)
		n := strings.Count(q, "?")
		args := stmtsAndArgs[i+1 : i+1+n]
		if _, err := tx.Exec(q, args...); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
		i += 1 + n
	}
	return nil
}

// mediawikiPGWrite is one transaction of the wiki writing to PostgreSQL after
// the cut-over: edits with ids from the identity sequences, bytes no charset
// holds and 4-byte UTF-8 in blobs, page moves, categories replaced (ENUM
// cl_type, TIMESTAMP), object cache upserts, page props (FLOAT sort keys),
// deletions.
func mediawikiPGWrite(ctx context.Context, tx pgx.Tx, q func(string) string, rng *rand.Rand) error {
	page := 1 + rng.IntN(320)
	now := []byte(mwTS(time.Now()))
	switch rng.IntN(7) {
	case 0, 1: // an edit
		var cid, tid, rev int64
		body := []byte(fmt.Sprintf("== PG edit %d ==\n😀 ünï \x00\xff\xfe%s", rng.IntN(1e6), strings.Repeat("y", rng.IntN(2000))))
		if err := tx.QueryRow(ctx, "INSERT INTO "+q("comment")+" (comment_hash, comment_text, comment_data) VALUES ($1, $2, $3) RETURNING comment_id",
			rng.Int32(), []byte("summary 🚀 "+string(now)), []byte(`{"_message":"pg"}`)).Scan(&cid); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, "INSERT INTO "+q("text")+" (old_text, old_flags) VALUES ($1, 'utf-8') RETURNING old_id", body).Scan(&tid); err != nil {
			return err
		}
		err := tx.QueryRow(ctx, "INSERT INTO "+q("revision")+` (rev_page, rev_comment_id, rev_actor, rev_timestamp, rev_len, rev_parent_id, rev_sha1)
			SELECT page_id, $1, $2, $3, $4, page_latest, $5 FROM `+q("page")+" WHERE page_id = $6 RETURNING rev_id",
			cid, 1+rng.IntN(50), now, len(body), []byte(fmt.Sprintf("%031x", rng.Uint64())), page).Scan(&rev)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		return pgExecs(ctx, tx,
			"UPDATE "+q("page")+" SET page_latest = $1, page_len = $2, page_touched = $3, page_is_new = 0, page_random = $4 WHERE page_id = $5",
			[]any{rev, len(body), now, rng.Float64(), page},
			"INSERT INTO "+q("recentchanges")+` (rc_timestamp, rc_actor, rc_namespace, rc_title, rc_comment_id, rc_cur_id, rc_this_oldid, rc_source, rc_ip, rc_new_len, rc_params)
				SELECT $1, 1, page_namespace, page_title, $2, page_id, $3, 'mw.edit'::bytea, '2001:db8::7'::bytea, $4, $5 FROM `+q("page")+" WHERE page_id = $6",
			[]any{now, cid, rev, len(body), []byte("a:0:{}\x00\xff"), page},
			"UPDATE "+q("user")+" SET user_editcount = user_editcount + 1, user_touched = $1, user_token = $2 WHERE user_id = $3",
			[]any{now, bytes.Repeat([]byte{0xff, 0x00, byte(rng.IntN(256)), 'a'}, 8), 1 + rng.IntN(40)})
	case 2: // a page move
		return pgExecs(ctx, tx, "UPDATE "+q("page")+" SET page_title = $1, page_touched = $2, page_lang = NULL WHERE page_id = $3",
			[]any{[]byte(fmt.Sprintf("PG/Moved/%d/Ü/😀_%d", page, rng.IntN(1e6))), now, page})
	case 3: // categories replaced
		return pgExecs(ctx, tx,
			"DELETE FROM "+q("categorylinks")+" WHERE cl_from = $1", []any{page},
			"INSERT INTO "+q("categorylinks")+` (cl_from, cl_to, cl_sortkey, cl_sortkey_prefix, cl_collation, cl_type, cl_timestamp)
				SELECT page_id, $2, $3, '', 'uppercase', $4, '2038-01-19 03:14:07+00' FROM `+q("page")+" WHERE page_id = $1",
			[]any{page, []byte(fmt.Sprintf("Category_%d/Sub", rng.IntN(37))), []byte(fmt.Sprintf("SORT %d\n\xff", page)),
				[]string{"page", "subcat", "file"}[rng.IntN(3)]})
	case 4: // the object cache
		return pgExecs(ctx, tx, "INSERT INTO "+q("objectcache")+` (keyname, value, exptime, modtoken, flags) VALUES ($1, $2, $3, '00000000000009999', 4294967295)
			ON CONFLICT (keyname) DO UPDATE SET value = EXCLUDED.value, exptime = EXCLUDED.exptime, flags = NULL`,
			[]any{[]byte(fmt.Sprintf("wikidb:pgcache:%d", rng.IntN(100))), []byte(fmt.Sprintf("\x00\x01pg %d \xff", rng.IntN(1e6))), now})
	case 5: // page props
		return pgExecs(ctx, tx,
			"DELETE FROM "+q("page_props")+" WHERE pp_page = $1 AND pp_propname = 'defaultsort'", []any{page},
			"INSERT INTO "+q("page_props")+" (pp_page, pp_propname, pp_value, pp_sortkey) VALUES ($1, 'defaultsort', $2, $3)",
			[]any{page, []byte("Sört/😀"), float32(rng.Float64() * 1000)})
	default: // a deletion
		return pgExecs(ctx, tx,
			"DELETE FROM "+q("pagelinks")+" WHERE pl_from = $1", []any{page},
			"DELETE FROM "+q("watchlist")+" WHERE wl_user = $1 AND wl_namespace = 1", []any{1 + rng.IntN(40)})
	}
}
