package realworld

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestCascadeThenReuse: a user is deleted (InnoDB deletes its logins by
// ON DELETE CASCADE; the binlog has only the user's row) and the next
// transaction gives a freed e-mail address to another user. The login
// insert shares no conflict key with the user delete, yet it must not be
// applied before PostgreSQL has cascaded the delete. Sessions get their
// cascading foreign key mid-stream, and their tokens are reused the same way
// (the applier must learn the new action from the DDL).
func TestCascadeThenReuse(t *testing.T) {
	t.Parallel()
	testenv.Flavors(t, testCascadeThenReuse)
}

func testCascadeThenReuse(t *testing.T, env *testenv.Env) {
	m := cascadeScenario(env).run(t)
	compareTable(t, m, "users", 100, plain("id"), plain("name"))
	compareTable(t, m, "logins", 100, plain("id"), plain("user_id"), plain("email"))
	compareTable(t, m, "sessions", 100, plain("token"), plain("user_id"))
}

// cascadeScenario: users deleted with cascading logins, their e-mail
// addresses and tokens reused; sessions get their cascading key mid-stream.
func cascadeScenario(env *testenv.Env) scenario {
	return scenario{
		env:        env,
		prefix:     "rw_cascade",
		schemaFile: "accounts.sql",
		seed: func(t *testing.T, my flavorDB) {
			if _, err := my.Exec(`INSERT INTO users (name) SELECT CONCAT('user', seq) FROM seq_1_to_200;
				INSERT INTO logins (user_id, email) SELECT seq, CONCAT('e', seq, '@example.org') FROM seq_1_to_200;
				INSERT INTO sessions SELECT LEFT(SHA2(seq, 256), 32), seq FROM seq_1_to_200`); err != nil {
				t.Fatal(err)
			}
		},
		write: cascadeWrite,
		midStream: []string{
			"ALTER TABLE sessions ADD CONSTRAINT fk_session_user FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE",
		},
	}
}

// TestCascadeThenReuseIntoMySQL runs the scenario into a MariaDB target on
// InnoDB, whose foreign keys cascade the user deletes as the source's do.
func TestCascadeThenReuseIntoMySQL(t *testing.T) {
	t.Parallel()
	intoMySQLFlavors(t, testCascadeThenReuseIntoMySQL)
}

func testCascadeThenReuseIntoMySQL(t *testing.T, env *testenv.Env) {
	s := cascadeScenario(env)
	s.into = intoMySQL("InnoDB")
	m := s.run(t)
	compareBytes(t, m)
	if t.Failed() {
		return
	}
	damageAndRepair(t, m, []string{
		"DELETE FROM " + m.q("sessions") + " ORDER BY token LIMIT 1",
		"UPDATE " + m.q("users") + " SET name = 'tampered' ORDER BY id DESC LIMIT 1",
	}, "sessions", "users")
	compareBytes(t, m)
}

// cascadeWrite deletes the oldest user and gives its e-mail address and
// session token to a new user, in two transactions. Before sessions have
// their foreign key, the user's sessions are deleted explicitly.
func cascadeWrite(my *sql.DB, rng *rand.Rand) error {
	var id int
	var email, token string
	if err := my.QueryRow(`SELECT u.id, l.email, s.token FROM users u JOIN logins l ON l.user_id = u.id
		JOIN sessions s ON s.user_id = u.id ORDER BY u.id LIMIT 1`).Scan(&id, &email, &token); err != nil {
		return err
	}
	if _, err := my.Exec("DELETE FROM users WHERE id = ?", id); err != nil {
		return err
	}
	if _, err := my.Exec("DELETE FROM sessions WHERE user_id = ?", id); err != nil { // no-op once the FK cascades
		return err
	}
	if err := inTxn(my, func(tx *sql.Tx) error {
		res, err := tx.Exec("INSERT INTO users (name) VALUES (?)", fmt.Sprint("reborn", id))
		if err != nil {
			return err
		}
		nid, _ := res.LastInsertId()
		if _, err = tx.Exec("INSERT INTO logins (user_id, email) VALUES (?, ?)", nid, email); err != nil {
			return err
		}
		_, err = tx.Exec("INSERT INTO sessions (token, user_id) VALUES (LEFT(SHA2(CONCAT('new', ?), 256), 32), ?)", nid, nid)
		return err
	}); err != nil {
		return err
	}
	// The freed token goes to another existing user in its own transaction:
	// it shares no key with the delete nor with the login insert.
	_, err := my.Exec("INSERT INTO sessions (token, user_id) SELECT ?, id FROM users ORDER BY id DESC LIMIT 1 OFFSET ?", token, 1+rng.IntN(100))
	return err
}
