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

// TestForeignKeysOnly: the swap's constraint moves (and a resumed run's
// replay of them) are told from schema changes that stop the run.
func TestForeignKeysOnly(t *testing.T) {
	p := sqlparser.NewTestParser()
	for stmt, want := range map[string]bool{
		"ALTER TABLE `d`.`c` ADD CONSTRAINT `x` FOREIGN KEY (`t_id`) REFERENCES `t` (`id`) ON DELETE CASCADE, ALGORITHM=INPLACE": true,
		"ALTER TABLE `d`.`t` DROP FOREIGN KEY `x`, DROP FOREIGN KEY `y`, ALGORITHM=INPLACE":                                      true,
		"ALTER TABLE t ADD FOREIGN KEY (a) REFERENCES gp (id)":                                                                   true,
		"ALTER TABLE t DROP FOREIGN KEY x, ADD COLUMN z INT":                                                                     false,
		"ALTER TABLE t ADD CONSTRAINT ck CHECK (a > 0)":                                                                          false,
		"ALTER TABLE t DROP INDEX x":                                                                                             false,
		"ALTER TABLE t ALGORITHM=INPLACE":                                                                                        false,
		"RENAME TABLE t TO u":                                                                                                    false,
	} {
		if got := foreignKeysOnly(p, stmt); got != want {
			t.Errorf("foreignKeysOnly(%q) = %v, want %v", stmt, got, want)
		}
	}
}

// TestCreatesShadow: the copy's creation is told from other DDL (a reader
// shared by several tables may read it).
func TestCreatesShadow(t *testing.T) {
	p := sqlparser.NewTestParser()
	id := schema.TableID{Database: "db1", Name: "t"}
	for _, c := range []struct {
		stmt, db string
		want     bool
	}{
		{"CREATE TABLE `db1`.`t_new` LIKE `db1`.`t`", "other", true},
		{"CREATE TABLE t_new LIKE t", "db1", true},
		{"CREATE TABLE t_new LIKE t", "db2", false},
		{"CREATE TABLE t2 LIKE t", "db1", false},
		{"ALTER TABLE t ADD COLUMN x INT", "db1", false},
		{"CREATE TABLE `db1`.`u_new` LIKE `db1`.`u`", "db1", false},
	} {
		if got := createsShadow(p, c.stmt, c.db, id); got != c.want {
			t.Errorf("createsShadow(%q, %q) = %v, want %v", c.stmt, c.db, got, c.want)
		}
	}
}
