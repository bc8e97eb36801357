package ddl_test

import (
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/schema"
)

// TestAlterDefaultsCompoundAndJSON: the same defaults arriving by DDL
// replication (CREATE TABLE and ALTER TABLE ... ADD COLUMN / ALTER COLUMN
// SET DEFAULT as MySQL writes them in the binlog, with charset introducers).
func TestAlterDefaultsCompoundAndJSON(t *testing.T) {
	tr := namedTranslator(t, schema.NamingOptions{})
	pg, err := translateAll(t, tr, "CREATE TABLE t (id INT PRIMARY KEY, doc JSON DEFAULT (json_object()))",
		"ALTER TABLE t ADD COLUMN exp DATETIME DEFAULT (now() + INTERVAL _utf8mb4'1:30' HOUR_MINUTE), "+
			"ADD COLUMN tags JSON DEFAULT (json_array('a', 1)), ALTER COLUMN doc SET DEFAULT (json_object('v', 2))")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`DEFAULT (LOCALTIMESTAMP + interval '1 hours 30 minutes')`, `DEFAULT '["a",1]'::jsonb`, `SET DEFAULT '{"v":2}'::jsonb`} {
		if !strings.Contains(pg, want) {
			t.Errorf("lacks %s:\n%s", want, pg)
		}
	}
}
