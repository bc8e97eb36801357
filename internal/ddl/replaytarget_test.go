package ddl_test

import (
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/schema"
)

// TestReplayTargetTakesWhatOnlyPostgreSQLRefuses: a MySQL target replays the
// source's statement, so what only PostgreSQL cannot take (an implicit value
// for a geometry column, a 64-byte or system-column name) is refused for
// PostgreSQL and tracked for a replay target. Found by TestFuzzDifferential
// (seed 1, MariaDB → MariaDB: ADD COLUMN ... LINESTRING NOT NULL stopped replication).
func TestReplayTargetTakesWhatOnlyPostgreSQLRefuses(t *testing.T) {
	create := "CREATE TABLE g (id INT PRIMARY KEY)"
	long := strings.Repeat("ü", 32) // 64 bytes
	for _, stmt := range []string{
		"ALTER TABLE g ADD COLUMN ls LINESTRING NOT NULL FIRST",
		"ALTER TABLE g ADD COLUMN `" + long + "` INT",
		"ALTER TABLE g ADD COLUMN xmin INT",
		"ALTER TABLE g RENAME COLUMN id TO ctid",
	} {
		tr := namedTranslator(t, schema.NamingOptions{})
		if _, err := translateAll(t, tr, create, stmt); err == nil {
			t.Errorf("%s: accepted for PostgreSQL", stmt)
		}
		tr = namedTranslator(t, schema.NamingOptions{})
		tr.ReplayTarget = true
		if _, err := translateAll(t, tr, create, stmt); err != nil {
			t.Errorf("%s: refused for a replay target: %v", stmt, err)
		}
	}
}
