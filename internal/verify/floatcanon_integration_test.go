package verify

import (
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/testenv"
	"github.com/sluice-db/sluice/internal/typemap"
	"github.com/sluice-db/sluice/internal/verify/verifydb"
)

// TestFloatCanonAgreesRandom prints random doubles of every magnitude as
// verify normalises a DOUBLE column in MySQL/MariaDB and in PostgreSQL: the
// texts must be equal. Integers past 2^53 are many: there the shortest
// decimal often lies exactly half-way to the next double, which PostgreSQL
// does not print (pgAbsFloatText); 17 digits and a 3-digit exponent do not
// fit MySQL 9's text of a double expression (mysqlNorm).
func TestFloatCanonAgreesRandom(t *testing.T) {
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		s := newSide(t, env, "verify_floats")
		rng := rand.New(rand.NewPCG(7, 9))
		var lits []string
		for len(lits) < 3000 {
			var f float64
			switch len(lits) % 3 {
			case 0: // any finite double
				f = math.Float64frombits(rng.Uint64())
			case 1: // large integers, as Zabbix's history holds
				f = math.Round(rng.NormFloat64() * math.Pow(10, float64(16+rng.IntN(4))))
			default:
				f = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(40)-20))
			}
			if math.IsNaN(f) || math.IsInf(f, 0) {
				continue
			}
			lits = append(lits, strconv.FormatFloat(f, 'g', -1, 64))
		}
		s.mustMy(t, "CREATE TABLE fl (id INT PRIMARY KEY, v DOUBLE)")
		var ins strings.Builder
		ins.WriteString("INSERT INTO fl VALUES ")
		for i, l := range lits {
			if i > 0 {
				ins.WriteString(", ")
			}
			ins.WriteString("(" + strconv.Itoa(i) + ", " + l + ")")
		}
		s.mustMy(t, ins.String())
		loaded, err := typemap.New(typemap.DefaultOptions(), nil).Compile(loadTable(t, s.my, s.db, "fl"))
		if err != nil {
			t.Fatal(err)
		}
		norm, err := verifydb.NewNormColumn(loaded.Columns[1], "v", typemap.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		my := testenv.MySQLTexts(t, s.my, "SELECT "+norm.MySQL+" FROM fl ORDER BY id")
		rows, err := s.pg.Query(context.Background(), "SELECT "+norm.PG+
			" FROM unnest($1::float8[]) WITH ORDINALITY AS u(v, n) ORDER BY n", lits)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		bad := 0
		for i := 0; rows.Next(); i++ {
			var pg string
			if err := rows.Scan(&pg); err != nil {
				t.Fatal(err)
			}
			if got := my[i][0].String; got != pg {
				if bad++; bad <= 10 {
					t.Errorf("%s: MySQL %s, PostgreSQL %s", lits[i], got, pg)
				}
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if bad > 0 {
			t.Errorf("%d of %d doubles print differently", bad, len(lits))
		}
	})
}
