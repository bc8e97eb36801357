package alter

import (
	"testing"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sluice-db/sluice/internal/schema"
)

func TestTouches(t *testing.T) {
	p := sqlparser.NewTestParser()
	id := schema.TableID{Database: "db1", Name: "t"}
	for stmt, want := range map[string]bool{
		"RENAME TABLE `db1`.`t` TO `db1`.`_t_old`, `db1`.`t_new` TO `db1`.`t`": true,
		"ALTER TABLE t ADD COLUMN x INT":                                       true,
		"ALTER TABLE db2.t ADD COLUMN x INT":                                   false,
		"CREATE TABLE `db1`.`t_new` LIKE `db1`.`t`":                            true,
		"DROP TABLE `db1`.`_t_old`":                                            false,
		"CREATE TABLE other (id INT)":                                          false,
	} {
		if got := touches(p, stmt, "db1", id); got != want {
			t.Errorf("touches(%q) = %v, want %v", stmt, got, want)
		}
	}
}

func TestTouchesText(t *testing.T) {
	id := schema.TableID{Database: "db1", Name: "t"}
	for _, tc := range []struct {
		stmt, db string
		want     bool
	}{
		{"ALTER ONLINE TABLE `t` ADD COLUMN IF NOT EXISTS w INT", "other", false},
		{"ALTER ONLINE TABLE `t` ADD COLUMN IF NOT EXISTS w INT", "db1", true},
		{"ALTER ONLINE TABLE t ADD COLUMN w INT", "db1", true},
		{"ALTER ONLINE TABLE `db1`.`t` ADD COLUMN w INT", "other", true},
		{"ALTER ONLINE TABLE db1.t ADD COLUMN w INT", "", true},
		{"ALTER ONLINE TABLE db1.t2 ADD COLUMN w INT", "", false},
		{"ALTER ONLINE TABLE `t_new` ADD COLUMN w INT", "db1", false},
		{"ALTER ONLINE TABLE tt ADD COLUMN w INT", "db1", false},
	} {
		if got := touchesText(tc.stmt, tc.db, id); got != tc.want {
			t.Errorf("touchesText(%q, %q) = %v, want %v", tc.stmt, tc.db, got, tc.want)
		}
	}
}
