package realworld

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestCascadeThenReuse: a user is deleted (InnoDB deletes its logins by
// ON DELETE CASCADE; the binlog has only the user's row) and the next
// transaction gives a freed e-mail address to another user. The login
// insert shares no conflict key with the user delete, yet it must not be
// applied before PostgreSQL has cascaded the delete.
func TestCascadeThenReuse(t *testing.T) {
	t.Parallel()
	s := scenario{
		prefix:     "rw_cascade",
		schemaFile: "accounts.sql",
		seed: func(t *testing.T, my *sql.DB) {
			if _, err := my.Exec(`INSERT INTO users (name) SELECT CONCAT('user', seq) FROM seq_1_to_200;
				INSERT INTO logins (user_id, email) SELECT seq, CONCAT('e', seq, '@example.org') FROM seq_1_to_200`); err != nil {
				t.Fatal(err)
			}
		},
		write: cascadeWrite,
	}
	m := s.run(t)
	compareTable(t, m, "users", 100, plain("id"), plain("name"))
	compareTable(t, m, "logins", 100, plain("id"), plain("user_id"), plain("email"))
}

// cascadeWrite deletes the oldest user and re-creates its e-mail addresses
// for a new user, in two transactions.
func cascadeWrite(my *sql.DB, rng *rand.Rand) error {
	var id int
	var email string
	if err := my.QueryRow("SELECT u.id, l.email FROM users u JOIN logins l ON l.user_id = u.id ORDER BY u.id LIMIT 1").Scan(&id, &email); err != nil {
		return err
	}
	if _, err := my.Exec("DELETE FROM users WHERE id = ?", id); err != nil {
		return err
	}
	return inTxn(my, func(tx *sql.Tx) error {
		res, err := tx.Exec("INSERT INTO users (name) VALUES (?)", fmt.Sprint("reborn", id))
		if err != nil {
			return err
		}
		nid, _ := res.LastInsertId()
		_, err = tx.Exec("INSERT INTO logins (user_id, email) VALUES (?, ?)", nid, email)
		return err
	})
}
