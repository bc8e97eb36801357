package realworld

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sluice-db/sluice/internal/testenv"
	"github.com/sluice-db/sluice/internal/testenv/typecorpus"
)

// TestEveryTypeIntoMySQL migrates the every-type corpus into the MariaDB
// target (snapshot, then replication of rows copied, re-keyed and deleted
// under load) and compares every value byte for byte. From a MySQL 9.7
// source the snapshot's CREATE TABLE is translated (collations, INVISIBLE)
// and replication writes MySQL's binary JSON and values into MariaDB. It
// runs MySQL 9.7 → MySQL 9.7 too.
func TestEveryTypeIntoMySQL(t *testing.T) {
	t.Parallel()
	testenv.MySQLTargetFlavors(t, func(t *testing.T, env *testenv.Env) {
		corpus := typecorpus.For(env.IsMySQL()).WithVector(env.HasVector(t))
		var cols []string
		for _, c := range corpus {
			if !c.Generated() {
				cols = append(cols, "`"+c.Name+"`")
			}
		}
		list := strings.Join(cols, ", ")
		var seq atomic.Int64
		s := scenario{
			env:       env,
			prefix:    "rw_types",
			sqlMode:   "NO_ENGINE_SUBSTITUTION", // zero dates, the invalid ENUM value
			schemaSQL: corpus.CreateTable("every") + "; " + corpus.Insert("every"),
			seed:      func(t *testing.T, my flavorDB) {},
			write: func(my *sql.DB, rng *rand.Rand) error {
				n := seq.Add(1)
				from := 1 + rng.IntN(typecorpus.Rows)
				switch rng.IntN(3) {
				case 0: // a corpus row copied through the binlog
					_, err := my.Exec(fmt.Sprintf("INSERT INTO every (id, %s) SELECT %d, %s FROM every WHERE id = %d", list, 1000+n, list, from))
					return err
				case 1: // a copy re-keyed (every column in both images)
					_, err := my.Exec(fmt.Sprintf("UPDATE every SET id = id + 100000 WHERE id = %d", 1000+rng.Int64N(n)))
					return err
				default:
					_, err := my.Exec(fmt.Sprintf("DELETE FROM every WHERE id = %d", 1000+rng.Int64N(n)))
					return err
				}
			},
			into: intoMySQL("InnoDB"),
		}
		m := s.run(t)
		compareBytes(t, m)
		if count(t, m.my, "every") <= typecorpus.Rows {
			t.Errorf("no rows replicated")
		}
	})
}
