package realworld

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/testenv"
)

// wpMode is WordPress's session sql_mode: without NO_ZERO_DATE and
// NO_ZERO_IN_DATE, so '0000-00-00 00:00:00' defaults and values are accepted.
const wpMode = "NO_ENGINE_SUBSTITUTION"

// TestWordPress migrates a WordPress schema whose rows hold real zero dates
// (drafts have post_date_gmt '0000-00-00 00:00:00') under a blog's load:
// drafts published, option upserts (INSERT ... ON DUPLICATE KEY UPDATE),
// meta rows with emoji and long text, term relationships replaced, posts
// deleted with their meta, and a column added mid-stream.
func TestWordPress(t *testing.T) {
	t.Parallel()
	testenv.Flavors(t, testWordPress)
}

func testWordPress(t *testing.T, env *testenv.Env) {
	m := wordpressScenario(env).run(t)

	compareWordPress(t, m)
	if t.Failed() {
		return
	}
	// Damage where zero dates (-infinity), prefix-indexed long keys and
	// longtext live; verify must find it and --repair must undo it.
	q := m.pgq
	damageAndRepair(t, m, []string{
		`UPDATE ` + q("wp_posts") + ` SET post_date_gmt = '2000-01-01', post_content = post_content || 'x'
			WHERE ctid = (SELECT ctid FROM ` + q("wp_posts") + ` WHERE post_date_gmt = '-infinity' LIMIT 1)`,
		`DELETE FROM ` + q("wp_postmeta") + ` WHERE meta_id = (SELECT max(meta_id) FROM ` + q("wp_postmeta") + ` WHERE length(meta_key) > 191)`,
		`UPDATE ` + q("wp_options") + ` SET autoload = 'maybe' WHERE option_id = (SELECT min(option_id) FROM ` + q("wp_options") + `)`,
		`UPDATE ` + q("wp_comments") + ` SET comment_date_gmt = '-infinity'
			WHERE "comment_ID" = (SELECT max("comment_ID") FROM ` + q("wp_comments") + ` WHERE comment_date_gmt <> '-infinity')`,
	}, "wp_posts", "wp_postmeta", "wp_options", "wp_comments")
	compareWordPress(t, m)

	var idx int
	if err := m.pg.QueryRow(context.Background(), `SELECT count(*) FROM pg_indexes WHERE schemaname = $1
		AND tablename = 'wp_postmeta' AND indexname = 'wp_postmeta_post_id_meta_key'`, m.db).Scan(&idx); err != nil || idx != 1 {
		t.Errorf("the index pt-online-schema-change added is not on the target's wp_postmeta (%d, %v)", idx, err)
	}
	requireNULs := func(when string) {
		var nuls int
		if err := m.my.QueryRow("SELECT count(*) FROM wp_options WHERE LOCATE(CHAR(0), option_value) > 0").Scan(&nuls); err != nil || nuls < 2 {
			t.Errorf("%s the source has %d options with NUL bytes (%v)", when, nuls, err)
		}
	}
	requireNULs("before the cut-over:")
	wayBack(t, m, wayBackLoad{write: wordpressPGWrite, minWrites: 100, proof: "SELECT count(*) FROM wp_posts WHERE post_content LIKE 'PG draft %'",
		fallback: []string{"INSERT INTO wp_posts (post_content, post_title, post_excerpt, to_ping, pinged, post_content_filtered) VALUES ('after fallback', 't', '', '', '', '')",
			"INSERT INTO wp_options (option_name, option_value) VALUES ('after_fallback', 'x')"}})
	// The application on PostgreSQL changed those options' autoload, not
	// their values: MySQL keeps the NUL bytes PostgreSQL cannot hold.
	requireNULs("after the way back:")
	requireCutover(t, m, `INSERT INTO `+pgx.Identifier{m.db, "wp_options"}.Sanitize()+` (option_name, option_value) VALUES ('cutover', 'x')`,
		`INSERT INTO `+pgx.Identifier{m.db, "wp_comments"}.Sanitize()+` (comment_author, comment_content, comment_date, comment_date_gmt) VALUES ('a', 'b', now(), now())`)
	var zeros int
	if err := m.my.QueryRow("SELECT count(*) FROM wp_posts WHERE post_date_gmt = 0").Scan(&zeros); err != nil || zeros == 0 {
		t.Errorf("the source has %d zero post_date_gmt (%v): the test lost its point", zeros, err)
	}
}

// wordpressScenario is the blog: zero dates, NUL bytes, long prefix-indexed
// keys, upserts, and pt-online-schema-change mid-stream. Its schema has no
// foreign keys, so it also runs on MyRocks.
func wordpressScenario(env *testenv.Env) scenario {
	return scenario{
		env:        env,
		prefix:     "rw_wp",
		schemaFile: "wordpress.sql",
		sqlMode:    wpMode,
		seed:       seedWordPress,
		write:      wordpressWrite,
		midStream: append([]string{
			"ALTER TABLE wp_posts ADD COLUMN post_views bigint(20) unsigned NOT NULL default '0'",
			"ALTER TABLE wp_postmeta ADD INDEX meta_key_value (meta_key(100), meta_value(50))",
			"UPDATE wp_posts SET post_views = ID * 3 WHERE ID % 5 = 0",
			// WordPress's upgrade routine sets zero dates explicitly.
			"UPDATE wp_posts SET post_date_gmt = '0000-00-00 00:00:00', post_modified_gmt = '0000-00-00 00:00:00' WHERE ID % 17 = 0",
		}, ptOnlineSchemaChange...),
	}
}

// TestWordPressIntoMySQL runs the WordPress scenario into a MariaDB target on
// InnoDB; TestWordPressIntoMyRocks with every table on ROCKSDB.
func TestWordPressIntoMySQL(t *testing.T) {
	t.Parallel()
	intoMySQLFlavors(t, func(t *testing.T, env *testenv.Env) { testWordPressIntoMySQL(t, env, "InnoDB") })
}

func TestWordPressIntoMyRocks(t *testing.T) {
	t.Parallel()
	testWordPressIntoMySQL(t, testenv.GetFlavor(t, testenv.MariaDB), "ROCKSDB")
}

func testWordPressIntoMySQL(t *testing.T, env *testenv.Env, engine string) {
	s := wordpressScenario(env)
	s.into = intoMySQL(engine)
	m := s.run(t)
	compareBytes(t, m)
	requireEngine(t, m, engine)
	if t.Failed() {
		return
	}
	// Zero dates, prefix-indexed long keys, NUL bytes (a PostgreSQL target's
	// strip would be a loss here) and dates: verify finds, --repair undoes.
	damageAndRepair(t, m, []string{
		"UPDATE " + m.q("wp_posts") + " SET post_date_gmt = '2000-01-01', post_content = CONCAT(post_content, 'x') WHERE post_date_gmt = 0 ORDER BY ID LIMIT 1",
		"DELETE FROM " + m.q("wp_postmeta") + " WHERE CHAR_LENGTH(meta_key) > 191 ORDER BY meta_id DESC LIMIT 1",
		"UPDATE " + m.q("wp_options") + " SET option_value = REPLACE(option_value, CHAR(0), '') WHERE option_name = 'widget_cache'",
		"UPDATE " + m.q("wp_comments") + " SET comment_date_gmt = '1999-01-01' WHERE comment_date_gmt <> '1999-01-01' ORDER BY comment_ID DESC LIMIT 1",
	}, "wp_posts", "wp_postmeta", "wp_options", "wp_comments")
	compareBytes(t, m)

	var idx int
	if err := m.tgt.QueryRow(`SELECT count(*) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ?
		AND TABLE_NAME = 'wp_postmeta' AND INDEX_NAME = 'post_id_meta_key' AND SEQ_IN_INDEX = 1`, m.tdb).Scan(&idx); err != nil || idx != 1 {
		t.Errorf("the index pt-online-schema-change added is not on the target's wp_postmeta (%d, %v)", idx, err)
	}
	requireCutover(t, m, "INSERT INTO "+m.q("wp_options")+" (option_name, option_value) VALUES ('cutover', 'x')",
		"INSERT INTO "+m.q("wp_comments")+" (comment_author, comment_content, comment_date, comment_date_gmt) VALUES ('a', 'b', NOW(), UTC_TIMESTAMP())")
}

// ptOnlineSchemaChange is what pt-online-schema-change runs to add an index
// to wp_postmeta while the blog writes to it: a shadow table kept in step by
// triggers (whose rows are row events of the shadow table), a chunked copy,
// an atomic RENAME swap, and the old table dropped.
var ptOnlineSchemaChange = []string{
	"CREATE TABLE `_wp_postmeta_new` LIKE `wp_postmeta`",
	"ALTER TABLE `_wp_postmeta_new` ADD INDEX post_id_meta_key (post_id, meta_key(191))",
	"CREATE TRIGGER `pt_osc_del` AFTER DELETE ON `wp_postmeta` FOR EACH ROW " +
		"DELETE IGNORE FROM `_wp_postmeta_new` WHERE `_wp_postmeta_new`.`meta_id` <=> OLD.`meta_id`",
	"CREATE TRIGGER `pt_osc_upd` AFTER UPDATE ON `wp_postmeta` FOR EACH ROW BEGIN " +
		"DELETE IGNORE FROM `_wp_postmeta_new` WHERE !(OLD.`meta_id` <=> NEW.`meta_id`) AND `_wp_postmeta_new`.`meta_id` <=> OLD.`meta_id`; " +
		"REPLACE INTO `_wp_postmeta_new` (`meta_id`, `post_id`, `meta_key`, `meta_value`) VALUES (NEW.`meta_id`, NEW.`post_id`, NEW.`meta_key`, NEW.`meta_value`); END",
	"CREATE TRIGGER `pt_osc_ins` AFTER INSERT ON `wp_postmeta` FOR EACH ROW " +
		"REPLACE INTO `_wp_postmeta_new` (`meta_id`, `post_id`, `meta_key`, `meta_value`) VALUES (NEW.`meta_id`, NEW.`post_id`, NEW.`meta_key`, NEW.`meta_value`)",
	"INSERT LOW_PRIORITY IGNORE INTO `_wp_postmeta_new` (`meta_id`, `post_id`, `meta_key`, `meta_value`) " +
		"SELECT `meta_id`, `post_id`, `meta_key`, `meta_value` FROM `wp_postmeta` FORCE INDEX(`PRIMARY`) WHERE `meta_id` <= 800 LOCK IN SHARE MODE",
	"UPDATE wp_postmeta SET meta_value = CONCAT(IFNULL(meta_value, ''), '+') WHERE meta_id % 97 = 0",
	"INSERT LOW_PRIORITY IGNORE INTO `_wp_postmeta_new` (`meta_id`, `post_id`, `meta_key`, `meta_value`) " +
		"SELECT `meta_id`, `post_id`, `meta_key`, `meta_value` FROM `wp_postmeta` FORCE INDEX(`PRIMARY`) WHERE `meta_id` > 800 LOCK IN SHARE MODE",
	"ANALYZE TABLE `_wp_postmeta_new`",
	"RENAME TABLE `wp_postmeta` TO `_wp_postmeta_old`, `_wp_postmeta_new` TO `wp_postmeta`",
	"DROP TABLE IF EXISTS `_wp_postmeta_old`",
}

// compareWordPress compares the blog's tables value by value.
func compareWordPress(t *testing.T, m migrated) {
	t.Helper()
	compareTable(t, m, "wp_posts", 400, plain("ID"), plain("post_author"), datetime("post_date"),
		datetime("post_date_gmt"), plain("post_content"), plain("post_title"), plain("post_status"),
		plain("post_name"), datetime("post_modified"), datetime("post_modified_gmt"), plain("post_parent"),
		plain("guid"), plain("menu_order"), plain("post_type"), plain("comment_count"), plain("post_views"))
	compareTable(t, m, "wp_postmeta", 1000, plain("meta_id"), plain("post_id"), plain("meta_key"), plain("meta_value"))
	compareTable(t, m, "wp_options", 100, plain("option_id"), plain("option_name"), nulStripped("option_value"), plain("autoload"))
	compareTable(t, m, "wp_term_relationships", 300, plain("object_id"),
		plain("term_taxonomy_id"), plain("term_order"))
	compareTable(t, m, "wp_comments", 300, plain("comment_ID"), plain("comment_post_ID"),
		plain("comment_author"), datetime("comment_date"), datetime("comment_date_gmt"), plain("comment_content"),
		plain("comment_approved"))
	compareTable(t, m, "wp_users", 20, plain("ID"), plain("user_login"), datetime("user_registered"), plain("display_name"))

}

func seedWordPress(t *testing.T, my flavorDB) {
	t.Helper()
	long := strings.Repeat("Lorem ipsum dolor sit amet, 😀 consectetur — adipiscing elit. ", 200)
	_, err := my.Exec(`
INSERT INTO wp_users (user_login, user_pass, user_nicename, user_email, user_registered, display_name)
  SELECT CONCAT('user', seq), '$P$Bxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', CONCAT('user', seq), CONCAT('user', seq, '@example.org'),
         IF(seq = 1, '0000-00-00 00:00:00', '2015-03-01 10:00:00' + INTERVAL seq DAY), CONCAT('Ünïcode Üser ', seq)
  FROM seq_1_to_30;
INSERT INTO wp_usermeta (user_id, meta_key, meta_value)
  SELECT 1 + seq % 30, ELT(1 + seq % 4, 'wp_capabilities', 'nickname', 'session_tokens', 'wp_user_level'),
         ELT(1 + seq % 4, 'a:1:{s:13:"administrator";b:1;}', CONCAT('nick', seq), NULL, '10') FROM seq_1_to_120;
INSERT INTO wp_posts (post_author, post_date, post_date_gmt, post_content, post_title, post_excerpt, post_status,
                      post_name, to_ping, pinged, post_modified, post_modified_gmt, post_content_filtered,
                      post_parent, guid, menu_order, post_type, comment_count)
  SELECT 1 + seq % 30, '2020-01-01 12:00:00' + INTERVAL seq HOUR,
         IF(seq % 4 = 0, '0000-00-00 00:00:00', '2020-01-01 11:00:00' + INTERVAL seq HOUR),
         CONCAT('<!-- wp:paragraph --><p>Post ', seq, ' «quoted» \\ back\\slash</p>'),
         CONCAT('Hello world ', seq), '', IF(seq % 4 = 0, 'draft', 'publish'),
         IF(seq % 4 = 0, '', CONCAT('hello-world-', seq)), '', '',
         '2020-01-02 12:00:00' + INTERVAL seq HOUR, IF(seq % 4 = 0, '0000-00-00 00:00:00', '2020-01-02 11:00:00' + INTERVAL seq HOUR),
         '', IF(seq % 9 = 0, seq - 1, 0), CONCAT('http://example.org/?p=', seq), 0,
         ELT(1 + seq % 5, 'post', 'post', 'page', 'attachment', 'revision'), seq % 7
  FROM seq_1_to_500;
INSERT INTO wp_postmeta (post_id, meta_key, meta_value)
  SELECT 1 + seq % 500, ELT(1 + seq % 5, '_edit_lock', '_edit_last', '_thumbnail_id', '_wp_page_template', CONCAT('custom_', REPEAT('k', 200), seq % 3)),
         ELT(1 + seq % 5, CONCAT(1600000000 + seq, ':1'), '1', seq, 'default', IF(seq % 2 = 0, NULL, 'v')) FROM seq_1_to_1500;
INSERT INTO wp_comments (comment_post_ID, comment_author, comment_author_email, comment_date, comment_date_gmt,
                         comment_content, comment_approved, comment_parent, user_id)
  SELECT 1 + seq % 500, CONCAT('Commenter ', seq), CONCAT('c', seq, '@example.org'), '2021-06-01 08:00:00' + INTERVAL seq MINUTE,
         IF(seq % 6 = 0, '0000-00-00 00:00:00', '2021-06-01 06:00:00' + INTERVAL seq MINUTE), CONCAT('Nice post! 👍 #', seq),
         ELT(1 + seq % 3, '1', '0', 'spam'), IF(seq % 5 = 0, seq - 1, 0), 0 FROM seq_1_to_400;
INSERT INTO wp_terms (name, slug) SELECT CONCAT('Term ', seq), CONCAT('term-', seq) FROM seq_1_to_40;
INSERT INTO wp_term_taxonomy (term_id, taxonomy, description, count)
  SELECT seq, IF(seq <= 20, 'category', 'post_tag'), '', 0 FROM seq_1_to_40;
INSERT INTO wp_term_relationships (object_id, term_taxonomy_id) SELECT 1 + seq % 500, 1 + seq % 40 FROM seq_1_to_800
  ON DUPLICATE KEY UPDATE term_order = term_order + 1;
INSERT INTO wp_options (option_name, option_value, autoload)
  SELECT CONCAT(ELT(1 + seq % 3, '_transient_', '_site_transient_', 'widget_'), seq), CONCAT('a:1:{i:', seq, ';s:0:"";}'),
         IF(seq % 2 = 0, 'yes', 'no') FROM seq_1_to_200;`)
	if err == nil {
		_, err = my.Exec("UPDATE wp_posts SET post_content = ? WHERE ID % 10 = 0", long)
	}
	if err == nil {
		// PHP serializes protected properties as "\0*\0name": NUL bytes in
		// longtext, which PostgreSQL text cannot hold (--nul-char strip).
		_, err = my.Exec("INSERT INTO wp_options (option_name, option_value) VALUES ('widget_cache', ?), ('_site_transient_theme_roots', ?)",
			"O:8:\"WP_Cache\":1:{s:7:\"\x00*\x00data\";a:0:{}}", "a:1:{s:5:\"\x00twenty\";s:7:\"/themes\";}")
	}
	if err != nil {
		t.Fatalf("seed: %v", err)
	}
}

// wordpressWrite runs one transaction of a busy blog.
func wordpressWrite(my *sql.DB, rng *rand.Rand) error {
	post := 1 + rng.IntN(700)
	switch rng.IntN(8) {
	case 0: // publish a draft: zero post_date_gmt gets a value
		_, err := my.Exec(`UPDATE wp_posts SET post_status = 'publish', post_date_gmt = post_date - INTERVAL 1 HOUR,
			post_name = CONCAT('published-', ID) WHERE post_status = 'draft' AND ID >= ? ORDER BY ID LIMIT 1`, post)
		return err
	case 1: // a new draft with meta, in one transaction (zero GMT dates, as wp_insert_post writes them)
		return inTxn(my, func(tx *sql.Tx) error {
			res, err := tx.Exec(`INSERT INTO wp_posts (post_author, post_date, post_content, post_title, post_excerpt,
				post_status, to_ping, pinged, post_modified, post_content_filtered, guid, post_type)
				VALUES (1, NOW(), ?, ?, '', 'draft', '', '', NOW(), '', '', 'post')`,
				fmt.Sprintf("Draft body %d — ✓ naïve café", rng.IntN(1e6)), fmt.Sprint("Draft ", rng.IntN(1e6)))
			if err != nil {
				return err
			}
			id, _ := res.LastInsertId()
			_, err = tx.Exec(`INSERT INTO wp_postmeta (post_id, meta_key, meta_value) VALUES (?, '_edit_lock', ?), (?, '_edit_last', '1')`,
				id, fmt.Sprint(1700000000+rng.IntN(1e6), ":1"), id)
			if err == nil {
				_, err = tx.Exec(`UPDATE wp_posts SET guid = CONCAT('http://example.org/?p=', ID) WHERE ID = ?`, id)
			}
			return err
		})
	case 2: // update_option: an upsert by the unique option_name
		_, err := my.Exec(`INSERT INTO wp_options (option_name, option_value, autoload) VALUES (?, ?, 'no')
			ON DUPLICATE KEY UPDATE option_name = VALUES(option_name), option_value = VALUES(option_value), autoload = VALUES(autoload)`,
			fmt.Sprint("_transient_", rng.IntN(300)), fmt.Sprintf("a:1:{s:4:\"time\";i:%d;}", rng.IntN(1e9)))
		return err
	case 3: // expired transients go; the cache object is rewritten (NUL bytes again)
		if rng.IntN(2) == 0 {
			_, err := my.Exec("UPDATE wp_options SET option_value = ? WHERE option_name = 'widget_cache'",
				fmt.Sprintf("O:8:\"WP_Cache\":1:{s:7:\"\x00*\x00data\";i:%d;}", rng.IntN(1e6)))
			return err
		}
		_, err := my.Exec(`DELETE FROM wp_options WHERE option_name LIKE '\_transient\_%' AND option_id % 50 = ?`, rng.IntN(50))
		return err
	case 4: // wp_set_object_terms: the post's terms are replaced
		return inTxn(my, func(tx *sql.Tx) error {
			_, err := tx.Exec(`DELETE FROM wp_term_relationships WHERE object_id = ?`, post)
			if err == nil {
				_, err = tx.Exec(`INSERT INTO wp_term_relationships (object_id, term_taxonomy_id) VALUES (?, ?), (?, ?)
					ON DUPLICATE KEY UPDATE term_order = 0`, post, 1+rng.IntN(20), post, 21+rng.IntN(20))
			}
			if err == nil {
				_, err = tx.Exec(`UPDATE wp_term_taxonomy tt SET count = (SELECT COUNT(*) FROM wp_term_relationships tr
					WHERE tr.term_taxonomy_id = tt.term_taxonomy_id)`)
			}
			return err
		})
	case 5: // wp_delete_post: meta, comments, terms and the post
		return inTxn(my, func(tx *sql.Tx) error {
			return execAll(tx,
				fmt.Sprint("DELETE FROM wp_postmeta WHERE post_id = ", post),
				fmt.Sprint("DELETE FROM wp_comments WHERE comment_post_ID = ", post),
				fmt.Sprint("DELETE FROM wp_term_relationships WHERE object_id = ", post),
				fmt.Sprint("DELETE FROM wp_posts WHERE ID = ", post))
		})
	case 6: // a comment, and the post's count
		return inTxn(my, func(tx *sql.Tx) error {
			_, err := tx.Exec(`INSERT INTO wp_comments (comment_post_ID, comment_author, comment_date, comment_content)
				VALUES (?, 'Anonymous', NOW(), ?)`, post, fmt.Sprintf("First! %d 🎉", rng.IntN(1e6)))
			if err == nil {
				_, err = tx.Exec(`UPDATE wp_posts SET comment_count = comment_count + 1 WHERE ID = ?`, post)
			}
			return err
		})
	default: // edit a post (post_modified moves, GMT stays zero for drafts)
		_, err := my.Exec(`UPDATE wp_posts SET post_content = CONCAT(post_content, ' edit'), post_modified = NOW(),
			post_modified_gmt = IF(post_status = 'draft', '0000-00-00 00:00:00', UTC_TIMESTAMP()) WHERE ID = ?`, post)
		return err
	}
}

// wordpressPGWrite is one transaction of the blog writing to PostgreSQL
// after the cut-over: drafts with meta (ids from the identity sequences,
// post_date_gmt -infinity: MySQL's zero date, as wp_insert_post writes it),
// drafts published, option upserts by the unique option_name, the cache
// object rewritten, terms replaced, posts deleted with their meta and
// comments, comments with 4-byte UTF-8.
func wordpressPGWrite(ctx context.Context, tx pgx.Tx, q func(string) string, rng *rand.Rand) error {
	post := 1 + rng.IntN(700)
	switch rng.IntN(7) {
	case 0: // a new draft with meta
		var id int64
		if err := tx.QueryRow(ctx, "INSERT INTO "+q("wp_posts")+` (post_author, post_date, post_date_gmt, post_content, post_title,
			post_excerpt, post_status, to_ping, pinged, post_modified, post_modified_gmt, post_content_filtered, guid, post_type, post_views)
			VALUES (1, localtimestamp(0), '-infinity', $1, $2, '', 'draft', '', '', localtimestamp(0), '-infinity', '', '', 'post', 18446744073709551615)
			RETURNING "ID"`, fmt.Sprintf("PG draft %d — 😀 naïve café 🎉", rng.IntN(1e6)), fmt.Sprint("Draft ", rng.IntN(1e6))).Scan(&id); err != nil {
			return err
		}
		return pgExecs(ctx, tx,
			"INSERT INTO "+q("wp_postmeta")+" (post_id, meta_key, meta_value) VALUES ($1, '_edit_lock', $2), ($1, '_edit_last', '1'), ($1, '_pg_😀', NULL)",
			[]any{id, fmt.Sprint(1700000000+rng.IntN(1e6), ":1")},
			"UPDATE "+q("wp_posts")+` SET guid = 'http://example.org/?p=' || "ID" WHERE "ID" = $1`, []any{id})
	case 1: // publish a draft: the zero GMT date gets a value
		return pgExecs(ctx, tx, "UPDATE "+q("wp_posts")+` SET post_status = 'publish', post_date_gmt = post_date - interval '1 hour',
			post_modified_gmt = '1970-01-01 00:00:01', post_name = 'published-pg-' || "ID"
			WHERE "ID" = (SELECT min("ID") FROM `+q("wp_posts")+` WHERE post_status = 'draft' AND "ID" >= $1)`, []any{post})
	case 2: // update_option
		return pgExecs(ctx, tx, "INSERT INTO "+q("wp_options")+` (option_name, option_value, autoload) VALUES ($1, $2, 'no')
			ON CONFLICT (option_name) DO UPDATE SET option_value = EXCLUDED.option_value, autoload = 'yes'`,
			[]any{fmt.Sprint("_pg_transient_", rng.IntN(300)), fmt.Sprintf("a:1:{s:4:\"😀\";i:%d;}", rng.IntN(1e9))})
	case 3: // options whose values hold NUL on MySQL set to (not) autoload; a value rewritten; expired transients
		switch rng.IntN(3) {
		case 0:
			return pgExecs(ctx, tx, "UPDATE "+q("wp_options")+` SET autoload = CASE autoload WHEN 'yes' THEN 'no' ELSE 'yes' END
				WHERE option_name IN ('widget_cache', '_site_transient_theme_roots')`, []any{})
		case 1:
			return pgExecs(ctx, tx, "UPDATE "+q("wp_options")+" SET option_value = $1 WHERE option_name = 'blogdescription'",
				[]any{fmt.Sprintf("O:8:\"WP_Cache\":1:{s:7:\"*data\";i:%d;} \\ 'quoted'", rng.IntN(1e6))})
		}
		return pgExecs(ctx, tx, "DELETE FROM "+q("wp_options")+` WHERE option_name LIKE '\_pg\_transient\_%' AND option_id % 20 = $1`, []any{rng.IntN(20)})
	case 4: // terms replaced
		return pgExecs(ctx, tx,
			"DELETE FROM "+q("wp_term_relationships")+" WHERE object_id = $1", []any{post},
			"INSERT INTO "+q("wp_term_relationships")+" (object_id, term_taxonomy_id, term_order) VALUES ($1, $2, 1), ($1, $3, 2)",
			[]any{post, 1 + rng.IntN(20), 21 + rng.IntN(20)},
			"UPDATE "+q("wp_term_taxonomy")+" tt SET count = (SELECT count(*) FROM "+q("wp_term_relationships")+
				" tr WHERE tr.term_taxonomy_id = tt.term_taxonomy_id) WHERE term_taxonomy_id IN ($1, $2)",
			[]any{1 + rng.IntN(20), 21 + rng.IntN(20)})
	case 5: // wp_delete_post
		return pgExecs(ctx, tx,
			"DELETE FROM "+q("wp_postmeta")+" WHERE post_id = $1", []any{post},
			"DELETE FROM "+q("wp_comments")+` WHERE "comment_post_ID" = $1`, []any{post},
			"DELETE FROM "+q("wp_term_relationships")+" WHERE object_id = $1", []any{post},
			"DELETE FROM "+q("wp_posts")+` WHERE "ID" = $1`, []any{post})
	default: // a comment and the post's count
		return pgExecs(ctx, tx,
			"INSERT INTO "+q("wp_comments")+` ("comment_post_ID", comment_author, comment_date, comment_date_gmt, comment_content, "comment_author_IP")
				VALUES ($1, 'Zoë 👩‍💻', localtimestamp(0), '-infinity', $2, '2001:db8::1')`,
			[]any{post, fmt.Sprintf("Nice post! 👍🏽 %d", rng.IntN(1e6))},
			"UPDATE "+q("wp_posts")+` SET comment_count = comment_count + 1, post_views = post_views + 1 WHERE "ID" = $1
				AND post_views < 18446744073709551615`, []any{post})
	}
}
