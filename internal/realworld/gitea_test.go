package realworld

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestGitea migrates a Gitea schema (testdata/gitea.sql: BIGINT ids,
// TINYINT(1) booleans, unix-timestamp BIGINTs, JSON in TEXT, composite
// unique keys, utf8mb4_general_ci, `user` and `index` as names) under a
// forge's load: issues numbered per repository, comments, stars and watches
// (unique pairs inserted and removed), webhook deliveries, topic edits,
// logins; mid-stream, the upgrade's migrations (a column added with a
// default, TEXT to LONGTEXT, a new index, xorm's recreateTable of label:
// create, copy, drop, rename). Then damage repaired, the cut-over and the
// way back under the forge's writes on PostgreSQL.
func TestGitea(t *testing.T) {
	t.Parallel()
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		m, ok := appPath(t, giteaScenario(env), compareGitea, func(q func(string) string) ([]string, []string) {
			return []string{
				`UPDATE ` + q("issue") + ` SET content = content || ' (edited)', is_closed = 1 - is_closed WHERE id = (SELECT min(id) FROM ` + q("issue") + `)`,
				`DELETE FROM ` + q("star") + ` WHERE id = (SELECT max(id) FROM ` + q("star") + `)`,
				`UPDATE ` + q("hook_task") + ` SET payload_content = '{}' WHERE id = (SELECT min(id) FROM ` + q("hook_task") + `)`,
				`UPDATE ` + q("label") + ` SET archived_unix = 1 WHERE id = (SELECT min(id) FROM ` + q("label") + `)`,
			}, []string{"issue", "star", "hook_task", "label"}
		}, wayBackLoad{write: giteaPGWrite, minWrites: 100, proof: "SELECT count(*) FROM issue WHERE title LIKE 'PG %'",
			fallback: []string{"INSERT INTO `star` (uid, repo_id, created_unix) VALUES (1, 999999, UNIX_TIMESTAMP())",
				"INSERT INTO `issue` (repo_id, `index`, title) VALUES (999999, 1, 'after fallback')"}})
		if !ok {
			return
		}
		requireCutover(t, m, `INSERT INTO `+m.pgq("user")+` (lower_name, name, email, passwd) VALUES ('cutover', 'Cutover', 'c@example.org', '')`,
			`INSERT INTO `+m.pgq("issue")+` (repo_id, "index", title) VALUES (888888, 1, 'after cut-over')`)
	})
}

// TestGiteaIntoMySQL runs the Gitea scenario into the MariaDB target: every
// table byte for byte, then damage found and repaired.
func TestGiteaIntoMySQL(t *testing.T) {
	t.Parallel()
	intoMySQLFlavors(t, func(t *testing.T, env *testenv.Env) {
		s := giteaScenario(env)
		s.into = intoMySQL("InnoDB")
		m := s.run(t)
		compareBytes(t, m)
		if t.Failed() {
			return
		}
		damageAndRepair(t, m, []string{
			"UPDATE " + m.q("issue") + " SET content = CONCAT(content, ' (edited)') ORDER BY id LIMIT 1",
			"DELETE FROM " + m.q("watch") + " ORDER BY id DESC LIMIT 1",
			"UPDATE " + m.q("email_address") + " SET email = UPPER(email) ORDER BY id LIMIT 1",
		}, "issue", "watch", "email_address")
		compareBytes(t, m)
	})
}

func giteaScenario(env *testenv.Env) scenario {
	return scenario{
		env:        env,
		prefix:     "rw_gitea",
		schemaFile: "gitea.sql",
		seed:       seedGitea,
		write:      giteaWrite,
		midStream: []string{
			// v1.13-era: webhook payloads outgrow TEXT.
			"ALTER TABLE `hook_task` MODIFY `payload_content` LONGTEXT NULL",
			"ALTER TABLE `issue` ADD `time_estimate` BIGINT(20) NOT NULL DEFAULT 0",
			"ALTER TABLE `repository` ADD `is_fsck_enabled` TINYINT(1) NOT NULL DEFAULT 1",
			"ALTER TABLE `user` ADD `keep_activity_private` TINYINT(1) NOT NULL DEFAULT 0",
			"CREATE INDEX `IDX_action_c_u_d` ON `action` (`created_unix`, `user_id`, `is_deleted`)",
			// xorm's recreateTable (how Gitea's migrations change a table):
			// a new table, the rows copied, the old one dropped, the new renamed.
			"CREATE TABLE `tmp_recreate__label` (`id` BIGINT(20) NOT NULL AUTO_INCREMENT, `repo_id` BIGINT(20) NULL, `org_id` BIGINT(20) NULL, " +
				"`name` VARCHAR(255) NULL, `exclusive` TINYINT(1) NULL, `description` VARCHAR(255) NULL, `color` VARCHAR(7) NULL, " +
				"`num_issues` INT(11) NULL, `num_closed_issues` INT(11) NULL, `created_unix` BIGINT(20) NULL, `updated_unix` BIGINT(20) NULL, " +
				"`archived_unix` BIGINT(20) NULL DEFAULT NULL, PRIMARY KEY (`id`), KEY `IDX_label_repo_id` (`repo_id`), KEY `IDX_label_org_id` (`org_id`)) " +
				"ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci ROW_FORMAT=DYNAMIC",
			"INSERT INTO `tmp_recreate__label` (`id`, `repo_id`, `org_id`, `name`, `exclusive`, `description`, `color`, `num_issues`, " +
				"`num_closed_issues`, `created_unix`, `updated_unix`) SELECT `id`, `repo_id`, `org_id`, `name`, `exclusive`, `description`, " +
				"`color`, `num_issues`, `num_closed_issues`, `created_unix`, `updated_unix` FROM `label`",
			"DROP TABLE `label`",
			"ALTER TABLE `tmp_recreate__label` RENAME TO `label`",
			"UPDATE `label` SET `archived_unix` = 1700000000 WHERE `id` % 7 = 0",
			"UPDATE `version` SET `version` = 299 WHERE `id` = 1",
		},
	}
}

// compareGitea compares every table value by value.
func compareGitea(t *testing.T, m migrated) {
	t.Helper()
	n := compareAllPG(t, m, map[string]int{"user": 60, "email_address": 60, "repository": 120, "issue": 600,
		"comment": 1500, "label": 40, "issue_label": 500, "star": 200, "watch": 200, "action": 2000, "hook_task": 300, "version": 1})
	if n != 12 {
		t.Errorf("%d tables compared, want 12", n)
	}
	var nulls, many int
	if err := m.my.QueryRow("SELECT SUM(is_active IS NULL), SUM(is_admin > 1) FROM `user`").Scan(&nulls, &many); err != nil || nulls == 0 || many == 0 {
		t.Errorf("user: %d NULL is_active, %d is_admin over 1 (%v): the test lost its point", nulls, many, err)
	}
}

func seedGitea(t *testing.T, my flavorDB) {
	t.Helper()
	_, err := my.Exec(`
INSERT INTO ` + "`user`" + ` (lower_name, name, full_name, email, keep_email_private, passwd, login_type, rands, salt, language,
    created_unix, updated_unix, last_login_unix, is_admin, is_active, avatar, num_repos, type, visibility)
  SELECT LOWER(CONCAT(ELT(1 + seq % 4, 'User', 'Jürgen', 'ÅSA', 'dev'), seq)), CONCAT(ELT(1 + seq % 4, 'User', 'Jürgen', 'ÅSA', 'dev'), seq),
         IF(seq % 5 = 0, NULL, CONCAT('Full Näme 😀 ', seq)), CONCAT('u', seq, '@Example.org'), IF(seq % 3 = 0, NULL, seq % 2),
         SHA2(seq, 256), seq % 3, LEFT(LEFT(SHA2(seq, 256), 32), 32), LEFT(LEFT(SHA2(seq + 1, 256), 32), 32), ELT(1 + seq % 3, 'en-US', 'de-DE', NULL),
         1600000000 + seq * 3600, 1600000000 + seq * 7200, IF(seq % 4 = 0, NULL, 1700000000 + seq), IF(seq = 1, 1, IF(seq = 2, 7, 0)),
         IF(seq % 6 = 0, NULL, seq % 2), IF(seq % 2 = 0, '', LEFT(SHA2(seq, 256), 32)), seq % 4, IF(seq > 55, 1, 0), seq % 3
  FROM seq_1_to_60;
INSERT INTO email_address (uid, email, lower_email, is_activated, is_primary)
  SELECT seq, CONCAT('u', seq, '@Example.org'), CONCAT('u', seq, '@example.org'), IF(seq % 7 = 0, NULL, 1), 1 FROM seq_1_to_60;
INSERT INTO email_address (uid, email, lower_email, is_activated, is_primary)
  SELECT seq, CONCAT('Alt.', seq, '@Mail.Example'), CONCAT('alt.', seq, '@mail.example'), 0, 0 FROM seq_1_to_30;
INSERT INTO repository (owner_id, owner_name, lower_name, name, description, website, default_branch, num_watches, num_stars,
    num_issues, num_closed_issues, is_private, is_empty, is_archived, is_fork, fork_id, topics, size, created_unix, updated_unix)
  SELECT 1 + seq % 60, CONCAT('user', 1 + seq % 60), LOWER(CONCAT('Repo-', seq, ELT(1 + seq % 3, '', '.go', '_ü'))),
         CONCAT('Repo-', seq, ELT(1 + seq % 3, '', '.go', '_ü')), IF(seq % 4 = 0, NULL, CONCAT('A «forge» project 🚀 #', seq)),
         IF(seq % 2 = 0, '', CONCAT('https://example.org/', seq)), ELT(1 + seq % 3, 'main', 'master', 'develop'),
         seq % 10, seq % 50, 5, seq % 3, seq % 3 = 0, 0, IF(seq % 10 = 0, 1, NULL), seq % 9 = 0, IF(seq % 9 = 0, seq - 1, 0),
         ELT(1 + seq % 4, NULL, '[]', '["go","git"]', '["ünïcode","c++","🚀"]'), seq * 1048576 * 1024, 1600000000 + seq, 1650000000 + seq
  FROM seq_1_to_120;
INSERT INTO issue (repo_id, ` + "`index`" + `, poster_id, original_author, title, content, milestone_id, priority, is_closed, is_pull,
    num_comments, ref, deadline_unix, created_unix, updated_unix, closed_unix, is_locked)
  SELECT 1 + seq % 120, 1 + seq DIV 120, 1 + seq % 60, IF(seq % 11 = 0, 'migrated «bot»', ''), CONCAT('Bug #', seq, ': crash in ', ELT(1 + seq % 3, 'parser', 'Über-module', '日本語')),
         CONCAT('## Steps\n\n1. run ` + "`make`" + `\n2. see \\ error \'', seq, '\'\n\n` + "```go\\nfunc main() {}\\n```" + `'),
         IF(seq % 5 = 0, NULL, seq % 7), CAST(seq % 3 AS SIGNED) - 1, seq % 4 = 0, seq % 5 = 0, 0, IF(seq % 5 = 0, 'refs/heads/feature', ''),
         IF(seq % 6 = 0, 0, 1700000000 + seq * 86400), 1600000000 + seq * 60, 1600000000 + seq * 120, IF(seq % 4 = 0, 1600000000 + seq * 180, 0), seq % 13 = 0
  FROM seq_1_to_600;
INSERT INTO comment (type, poster_id, issue_id, label_id, content, content_version, patch, commit_sha, line, tree_path, invalidated, created_unix, updated_unix)
  SELECT seq % 30, 1 + seq % 60, 1 + seq % 600, IF(seq % 30 = 7, 1 + seq % 40, 0),
         CONCAT('LGTM 👍 ', seq, IF(seq % 3 = 0, ' — needs a test for ` + "`nil`" + `', '')), seq % 3,
         IF(seq % 10 = 0, CONCAT('@@ -1,3 +1,4 @@\n-old\n+new ', seq, '\n'), NULL), IF(seq % 10 = 0, LEFT(SHA2(seq, 512), 40), ''),
         IF(seq % 10 = 0, -CAST(seq AS SIGNED), 0), IF(seq % 10 = 0, 'models/issues/issue.go', ''), IF(seq % 10 = 0, seq % 2, NULL),
         1600000000 + seq * 30, 1600000000 + seq * 30
  FROM seq_1_to_1500;
INSERT INTO label (repo_id, org_id, name, ` + "`exclusive`" + `, description, color, num_issues, num_closed_issues, created_unix, updated_unix)
  SELECT IF(seq % 5 = 0, 0, 1 + seq % 120), IF(seq % 5 = 0, 1 + seq % 10, 0), CONCAT(ELT(1 + seq % 4, 'kind/bug', 'priority/high', 'status/🚧', 'scope/Ärger'), '-', seq),
         seq % 4 = 2, IF(seq % 3 = 0, NULL, 'Something is not working'), ELT(1 + seq % 3, '#ee0701', '#FFFFFF', '#0075ca'), seq, seq DIV 2, 1600000000 + seq, 1600000000 + seq
  FROM seq_1_to_40;
INSERT IGNORE INTO issue_label (issue_id, label_id) SELECT 1 + seq % 600, 1 + seq % 40 FROM seq_1_to_800;
INSERT INTO star (uid, repo_id, created_unix) SELECT 1 + seq % 60, 1 + seq DIV 60, 1600000000 + seq FROM seq_1_to_300;
INSERT INTO watch (user_id, repo_id, mode, created_unix, updated_unix) SELECT 1 + seq % 60, 1 + seq DIV 60, seq % 4, 1600000000 + seq, 1600000000 + seq FROM seq_1_to_300;
INSERT INTO action (user_id, op_type, act_user_id, repo_id, comment_id, is_deleted, ref_name, is_private, content, created_unix)
  SELECT 1 + seq % 60, 1 + seq % 25, 1 + seq % 60, 1 + seq % 120, IF(seq % 3 = 0, seq, 0), seq % 50 = 0,
         IF(seq % 2 = 0, 'refs/heads/main', ''), seq % 3 = 0,
         IF(seq % 4 = 0, CONCAT('{"Commits":[{"Sha1":"', LEFT(SHA2(seq, 512), 40), '","Message":"fix: «', seq, '» 😀\\n"}],"Len":1}'), CONCAT(seq, '|', 'Issue title')),
         1600000000 + seq * 17
  FROM seq_1_to_2000;
INSERT INTO hook_task (hook_id, uuid, payload_content, event_type, is_delivered, delivered, is_succeed, request_content, response_content)
  SELECT 1 + seq % 5, CONCAT(LEFT(SHA2(seq, 256), 8), '-', SUBSTR(SHA2(seq, 256), 9, 4), '-4', SUBSTR(SHA2(seq, 256), 14, 3), '-8', SUBSTR(SHA2(seq, 256), 18, 3), '-', SUBSTR(SHA2(seq, 256), 22, 12)),
         CONCAT('{"ref":"refs/heads/main","before":"', LEFT(SHA2(seq, 512), 40), '","commits":[{"message":"Ünïcode \\"quoted\\" 🚀"}],"size":', seq, '}'),
         ELT(1 + seq % 3, 'push', 'issues', 'pull_request'), seq % 2, IF(seq % 2 = 0, NULL, 1700000000123456789 + seq), IF(seq % 2 = 0, NULL, seq % 4 > 0),
         IF(seq % 2 = 0, NULL, '{"url":"https://ci.example.org/hook","http_method":"POST","headers":{"X-Gitea-Event":"push"}}'),
         IF(seq % 2 = 0, NULL, '{"status":200,"headers":{},"body":"ok"}')
  FROM seq_1_to_300;
INSERT INTO version (id, version) VALUES (1, 280);`)
	if err != nil {
		t.Fatalf("seed: %v", err)
	}
}

// giteaWrite runs one transaction of a busy forge.
func giteaWrite(my *sql.DB, rng *rand.Rand) error {
	repo, user, now := 1+rng.IntN(120), 1+rng.IntN(60), 1700000000+rng.IntN(1e7)
	switch rng.IntN(11) {
	case 0, 1: // a new issue, numbered in its repository
		return inTxn(my, func(tx *sql.Tx) error {
			var next int64
			if err := tx.QueryRow("SELECT COALESCE(MAX(`index`), 0) + 1 FROM issue WHERE repo_id = ? FOR UPDATE", repo).Scan(&next); err != nil {
				return err
			}
			res, err := tx.Exec("INSERT INTO issue (repo_id, `index`, poster_id, original_author, title, content, priority, is_closed, is_pull, num_comments, created_unix, updated_unix, deadline_unix, closed_unix) "+
				"VALUES (?, ?, ?, '', ?, ?, 0, 0, ?, 0, ?, ?, 0, 0)", repo, next, user, fmt.Sprintf("Feature: «%d» ünïcode 🚀", now),
				"Body with `code`, \\ backslash and 'quotes'\n- [ ] task", rng.IntN(2), now, now)
			if err != nil {
				return err
			}
			id, _ := res.LastInsertId()
			if _, err := tx.Exec("UPDATE repository SET num_issues = num_issues + 1, updated_unix = ? WHERE id = ?", now, repo); err != nil {
				return err
			}
			_, err = tx.Exec("INSERT INTO action (user_id, op_type, act_user_id, repo_id, comment_id, ref_name, content, created_unix) VALUES (?, 6, ?, ?, 0, '', ?, ?)",
				user, user, repo, fmt.Sprintf("%d|Feature", id), now)
			return err
		})
	case 2: // a comment, the issue's counter and time
		issue := 1 + rng.IntN(650)
		return inTxn(my, func(tx *sql.Tx) error {
			if _, err := tx.Exec("INSERT INTO comment (type, poster_id, issue_id, content, created_unix, updated_unix) VALUES (0, ?, ?, ?, ?, ?)",
				user, issue, fmt.Sprintf("+1 from %d — «ça marche» 😀", user), now, now); err != nil {
				return err
			}
			_, err := tx.Exec("UPDATE issue SET num_comments = num_comments + 1, updated_unix = ? WHERE id = ?", now, issue)
			return err
		})
	case 3: // an issue closed or reopened
		_, err := my.Exec("UPDATE issue SET is_closed = NOT is_closed, closed_unix = IF(is_closed, ?, 0), updated_unix = ? WHERE id = ?", now, now, 1+rng.IntN(650))
		return err
	case 4: // star or unstar (the unique pair comes and goes)
		return inTxn(my, func(tx *sql.Tx) error {
			if rng.IntN(2) == 0 {
				if _, err := tx.Exec("INSERT IGNORE INTO star (uid, repo_id, created_unix) VALUES (?, ?, ?)", user, repo, now); err != nil {
					return err
				}
			} else if _, err := tx.Exec("DELETE FROM star WHERE uid = ? AND repo_id = ?", user, 1+rng.IntN(6)); err != nil {
				return err
			}
			_, err := tx.Exec("UPDATE repository SET num_stars = (SELECT count(*) FROM star WHERE repo_id = ?) WHERE id = ?", repo, repo)
			return err
		})
	case 5: // watch mode changed (upsert on the unique pair)
		_, err := my.Exec("INSERT INTO watch (user_id, repo_id, mode, created_unix, updated_unix) VALUES (?, ?, ?, ?, ?) "+
			"ON DUPLICATE KEY UPDATE mode = VALUES(mode), updated_unix = VALUES(updated_unix)", user, 1+rng.IntN(8), rng.IntN(4), now, now)
		return err
	case 6: // a webhook queued, another delivered
		return inTxn(my, func(tx *sql.Tx) error {
			if _, err := tx.Exec("INSERT INTO hook_task (hook_id, uuid, payload_content, event_type, is_delivered) VALUES (?, UUID(), ?, 'push', 0)",
				1+rng.IntN(5), fmt.Sprintf(`{"ref":"refs/heads/main","commits":[{"message":"fix \"%d\" ü"}],"size":%d}`, now, rng.IntN(100))); err != nil {
				return err
			}
			_, err := tx.Exec("UPDATE hook_task SET is_delivered = 1, delivered = ?, is_succeed = ?, request_content = ?, response_content = ? WHERE id = ?",
				int64(now)*1e9+int64(rng.IntN(1e9)), rng.IntN(2), `{"url":"https://ci.example.org/hook","http_method":"POST"}`,
				fmt.Sprintf(`{"status":%d,"body":"%s"}`, []int{200, 500, 404}[rng.IntN(3)], "ok ✓"), 1+rng.IntN(300))
			return err
		})
	case 7: // topics edited (a JSON array in TEXT)
		_, err := my.Exec("UPDATE repository SET topics = ?, updated_unix = ? WHERE id = ?",
			[]any{nil, "[]", `["go","forge"]`, fmt.Sprintf(`["t%d","ünï"]`, rng.IntN(100))}[rng.IntN(4)], now, repo)
		return err
	case 8: // a login
		_, err := my.Exec("UPDATE `user` SET last_login_unix = ?, is_active = IF(is_active IS NULL, NULL, 1) WHERE id = ?", now, user)
		return err
	case 9: // a label added to an issue or removed
		if rng.IntN(2) == 0 {
			_, err := my.Exec("INSERT IGNORE INTO issue_label (issue_id, label_id) VALUES (?, ?)", 1+rng.IntN(650), 1+rng.IntN(40))
			return err
		}
		_, err := my.Exec("DELETE FROM issue_label WHERE issue_id = ?", 1+rng.IntN(650))
		return err
	default: // an action deleted with its repository's feed
		_, err := my.Exec("UPDATE action SET is_deleted = 1 WHERE repo_id = ? AND id % 5 = ?", repo, rng.IntN(5))
		return err
	}
}

// giteaPGWrite is one transaction of Gitea on PostgreSQL after the cut-over.
func giteaPGWrite(ctx context.Context, tx pgx.Tx, q func(string) string, rng *rand.Rand) error {
	repo, user, now := 1+rng.IntN(120), 1+rng.IntN(60), 1800000000+rng.IntN(1e7)
	switch rng.IntN(5) {
	case 0, 1: // a new issue
		return pgExecs(ctx, tx, "INSERT INTO "+q("issue")+` (repo_id, "index", poster_id, title, content, is_closed, is_pull, num_comments, created_unix, updated_unix)
			SELECT $1, COALESCE(max("index"), 0) + 1, $2, $3, 'PG body — «ü» 😀', 0, 0, 0, $4, $4 FROM `+q("issue")+` WHERE repo_id = $1`,
			[]any{repo, user, fmt.Sprintf("PG issue %d", now), now})
	case 2: // a comment
		return pgExecs(ctx, tx, "INSERT INTO "+q("comment")+` (type, poster_id, issue_id, content, created_unix, updated_unix) VALUES (0, $1, $2, 'PG 👍', $3, $3)`,
			[]any{user, 1 + rng.IntN(600), now})
	case 3: // a star
		return pgExecs(ctx, tx, "INSERT INTO "+q("star")+` (uid, repo_id, created_unix) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, []any{user, 100 + rng.IntN(20), now})
	default: // a delivery
		return pgExecs(ctx, tx, "UPDATE "+q("hook_task")+` SET is_delivered = 1, delivered = $1, payload_content = $2 WHERE id = $3`,
			[]any{int64(now) * 1e9, `{"pg":true,"ü":"😀"}`, 1 + rng.IntN(300)})
	}
}
