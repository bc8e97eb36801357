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
