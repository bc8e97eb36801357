package reverse

import (
	"strings"
	"testing"
)

// TestReverseIdentifiersLowerAndRename: a forward stream made with
// --identifiers lower and --rename has "orders" with columns id, remark and
// camelcase on PostgreSQL for MySQL's `Orders` (`ID`, `Note`, `CamelCase`);
// the way back writes PostgreSQL's changes into the MySQL table and columns
// they came from (it looked for a MySQL table "orders" and columns by their
// PostgreSQL names, and left the table behind with a warning).
func TestReverseIdentifiersLowerAndRename(t *testing.T) {
	g := newRig(t, "rvlow", "CREATE TABLE `Orders` (`ID` INT PRIMARY KEY, `Note` VARCHAR(20), `CamelCase` INT)",
		"INSERT INTO `Orders` VALUES (1, 'one', 10), (2, 'two', 20)")
	g.naming.Identifiers = "lower"
	g.naming.Renames = []string{g.db + ".Orders.Note=remark"}
	g.snapshot()
	g.catchUp()
	g.postgres("INSERT INTO orders (id, remark, camelcase) VALUES (3, 'three', 30)",
		"UPDATE orders SET remark = 'uno', camelcase = 11 WHERE id = 1", "DELETE FROM orders WHERE id = 2")
	g.catchUp()
	// hex of ID|Note|CamelCase
	if got, want := strings.Join(g.rows("Orders", []string{"ID", "Note", "CamelCase"}, "ID"), " "), "31|756E6F|3131 33|7468726565|3330"; got != want {
		t.Fatalf("MySQL Orders: %s, want %s", got, want)
	}
}
