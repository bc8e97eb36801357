package binlog

import (
	"testing"

	"github.com/sluice-db/sluice/internal/schema"
)

// TestEpochFraction: a TIMESTAMP at 0 s after the epoch with a fraction
// (MariaDB's out-of-range value written with a fraction) is that instant,
// not go-mysql's zero date; a DATETIME's zero date and the zero TIMESTAMP
// stay. Found by TestFuzzDifferential (seed 323).
func TestEpochFraction(t *testing.T) {
	tbl := &schema.Table{TableID: schema.TableID{Database: "d", Name: "t"},
		Columns: []schema.Column{{Name: "ts", DataType: "timestamp"}, {Name: "dt", DataType: "datetime"}, {Name: "z", DataType: "timestamp"}}}
	row, _, err := detachImage(tbl, []any{"0000-00-00 00:00:00.99", "0000-00-00 00:00:00.99", "0000-00-00 00:00:00.000"})
	if err != nil {
		t.Fatal(err)
	}
	want := []any{"1970-01-01 00:00:00.99", "0000-00-00 00:00:00.99", "0000-00-00 00:00:00.000"}
	for i := range want {
		if row[i] != want[i] {
			t.Errorf("%s: %v, want %v", tbl.Columns[i].Name, row[i], want[i])
		}
	}
}
