package alter

import "testing"

// TestFitsBack: a type change is revertible when every value of the new
// type converts to the old one unchanged.
func TestFitsBack(t *testing.T) {
	for _, c := range []struct {
		old, new string
		want     bool
	}{
		{"int(11)", "int(11)", true},
		{"bigint(20)", "int(11)", true},  // narrowed: the new values fit the old type
		{"int(11)", "bigint(20)", false}, // widened: a new value may not fit
		{"int(10) unsigned", "smallint(5) unsigned", true},
		{"int(11)", "smallint(5) unsigned", true}, // 16 unsigned bits fit 32 signed
		{"int(11)", "int(10) unsigned", false},    // 2^31 does not fit
		{"int(10) unsigned", "int(11)", false},    // negatives do not fit
		{"varchar(200)", "varchar(100)", true},
		{"varchar(100)", "varchar(200)", false},
		{"varchar(100)", "text", false},
		{"char(10)", "varchar(10)", false},
		{"decimal(10,2)", "decimal(8,2)", true},
		{"decimal(10,2)", "decimal(10,3)", false}, // a third decimal digit would be rounded
		{"decimal(10,2)", "decimal(11,2)", false},
		{"datetime", "datetime(6)", false},
		{"INT", "int", true},
	} {
		if got := fitsBack(c.old, c.new); got != c.want {
			t.Errorf("fitsBack(%q, %q) = %v, want %v", c.old, c.new, got, c.want)
		}
	}
}

// TestWindowNames: the window's old table sorts after the table (the
// revert's RENAME must queue on the table's name first on MariaDB).
func TestWindowNames(t *testing.T) {
	for _, n := range []string{"t", "orders", "Orders", "a_b"} {
		if !(n+"\x00" < windowName(n)+"\x00") {
			t.Errorf("windowName(%q) = %q does not sort after it", n, windowName(n))
		}
	}
}
