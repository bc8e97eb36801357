package ddl

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/testenv"
	"github.com/sluice-db/sluice/internal/typemap"
)

// TestCompoundIntervalMatchesServer adds each compound-unit interval to one
// fixed moment on the source server and its translation to the same moment
// on PostgreSQL: the results must be equal to the microsecond (MySQL's
// right-aligned fields, the minus, the microsecond digits, month ends).
func TestCompoundIntervalMatchesServer(t *testing.T) {
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		ctx := context.Background()
		my := env.MySQL(t, "")
		pg := env.PG(t)
		const base = "2001-01-31 23:59:59.250000"
		for _, c := range []struct{ v, unit string }{
			{"1:30", "hour_minute"}, {"-1:30", "hour_minute"}, {"1:90", "hour_minute"}, {"45", "hour_minute"},
			{"1 2:3:4", "day_second"}, {"3:4", "day_second"}, {"4", "day_second"}, {"-2 0:0:1", "day_second"},
			{"1-1", "year_month"}, {"0-13", "year_month"}, {"-1-1", "year_month"}, {"2", "year_month"},
			{"1.5", "second_microsecond"}, {"5", "second_microsecond"}, {"1.000001", "second_microsecond"},
			{"-0.75", "second_microsecond"}, {"1:1.123456", "minute_microsecond"},
			{"1 1:1:1.5", "day_microsecond"}, {"2:3:4.25", "hour_microsecond"}, {"2 12", "day_hour"},
			{"1 2:3", "day_minute"}, {"1:2:3", "hour_second"}, {"7:8", "minute_second"},
		} {
			d := fmt.Sprintf("(now(6) + interval '%s' %s)", c.v, c.unit)
			pgExpr, ok := intervalDefault(d, typemap.KindDateTime)
			if !ok {
				t.Errorf("%s: not translated", d)
				continue
			}
			var want, got string
			if err := my.QueryRowContext(ctx, fmt.Sprintf("SELECT DATE_FORMAT(TIMESTAMP'%s' + INTERVAL '%s' %s, '%%Y-%%m-%%d %%H:%%i:%%s.%%f')",
				base, c.v, c.unit)).Scan(&want); err != nil {
				t.Fatal(err)
			}
			q := "SELECT to_char(" + strings.Replace(pgExpr, "LOCALTIMESTAMP", "TIMESTAMP '"+base+"'", 1) + ", 'YYYY-MM-DD HH24:MI:SS.US')"
			if err := pg.QueryRow(ctx, q).Scan(&got); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			if got != want {
				t.Errorf("INTERVAL '%s' %s: source %s, PostgreSQL %s (%s)", c.v, c.unit, want, got, pgExpr)
			}
		}
	})
}
