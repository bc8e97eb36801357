package realworld

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestCharsetDefaultsIntoMySQL: the snapshot creates the MariaDB target's
// tables from the source's SHOW CREATE TABLE; string literals in it (the
// defaults of utf16 and latin1 columns, ENUM members) must keep their text,
// which a binary session did not (utf16 default d'ef became 搧敦).
// compareBytes compares every column's default. Found by
// TestFuzzDifferential (seed 631, MariaDB → MariaDB target).
func TestCharsetDefaultsIntoMySQL(t *testing.T) {
	t.Parallel()
	s := scenario{
		prefix: "rw_csdef",
		schemaSQL: "CREATE TABLE d (id INT PRIMARY KEY, " +
			"u VARCHAR(20) CHARACTER SET utf16 DEFAULT 'd''ef', " +
			"l VARCHAR(20) CHARACTER SET latin1 DEFAULT 'café', " +
			"e ENUM('é', 'x') CHARACTER SET latin1 DEFAULT 'é', " +
			"m VARCHAR(20) CHARACTER SET utf8mb4 DEFAULT 'ж€')",
		seed: func(t *testing.T, my flavorDB) {
			if _, err := my.Exec("INSERT INTO d (id) SELECT seq FROM seq_1_to_20"); err != nil {
				t.Fatal(err)
			}
		},
		write: func(my *sql.DB, rng *rand.Rand) error {
			_, err := my.Exec(fmt.Sprintf("INSERT IGNORE INTO d (id) VALUES (%d)", 100+rng.IntN(10000)))
			return err
		},
		into: intoMySQL(""),
	}
	compareBytes(t, s.run(t))
}
