package realworld

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestEmptyGeometryIntoMySQL: ALTER TABLE … ADD COLUMN p POINT NOT NULL
// (no DEFAULT) gives the rows that exist an empty value, which no statement
// may write (error 1416). Updates of those rows replicated into the MariaDB
// target must leave the column alone, not write every column back. Found by
// TestFuzzDifferential (seed 214, MariaDB → MariaDB target).
func TestEmptyGeometryIntoMySQL(t *testing.T) {
	t.Parallel()
	s := scenario{
		prefix:    "rw_geom",
		schemaSQL: "CREATE TABLE g (id INT PRIMARY KEY, v VARCHAR(10) NOT NULL)",
		seed: func(t *testing.T, my flavorDB) {
			if _, err := my.Exec("INSERT INTO g SELECT seq, 'seed' FROM seq_1_to_200"); err != nil {
				t.Fatal(err)
			}
		},
		write: func(my *sql.DB, rng *rand.Rand) error {
			_, err := my.Exec(fmt.Sprintf("UPDATE g SET v = 'w%d' WHERE id = %d", rng.IntN(1000), 101+rng.IntN(100)))
			return err
		},
		midStream: []string{"ALTER TABLE g ADD COLUMN p POINT NOT NULL",
			"UPDATE g SET v = 'after' WHERE id <= 50", "UPDATE g SET p = POINT(1, 2) WHERE id BETWEEN 40 AND 60"},
		into: intoMySQL(""),
	}
	m := s.run(t)
	compareBytes(t, m)
	var n int
	if err := m.tgt.QueryRow("SELECT count(*) FROM " + m.q("g") + " WHERE v = 'after'").Scan(&n); err != nil || n != 50 {
		t.Errorf("rows updated after the ADD COLUMN on the target: %d, %v", n, err)
	}
}
