package binlog

import (
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/ddl"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/schema"
)

// MariaDB 11.8 leaves generated columns out of UPDATE/DELETE images under binlog_row_image=FULL.
func TestCheckSkipped(t *testing.T) {
	tb := &schema.Table{TableID: schema.TableID{Database: "d", Name: "t"}, Columns: []schema.Column{
		{Name: "a", DataType: "int", ColumnType: "int(11)"},
		{Name: "g", DataType: "int", ColumnType: "int(11)", GenerationExpr: "a + 1"},
		{Name: "h", DataType: "int", ColumnType: "int(11)", GenerationExpr: "crc32(a)"},
	}}
	intoPG := ddl.WritableColumns(tb) // a and h: PostgreSQL computes g itself
	if err := checkSkipped(tb, [][]int{nil, {}}, intoPG); err != nil {
		t.Errorf("full images: %v", err)
	}
	if err := checkSkipped(tb, [][]int{{1}, {1}}, intoPG); err != nil {
		t.Errorf("a generated column PostgreSQL computes itself left out: %v", err)
	}
	err := checkSkipped(tb, [][]int{{0, 1}, {}}, intoPG)
	if err == nil || !strings.Contains(err.Error(), "binlog_row_image=FULL") {
		t.Errorf("a plain column left out: err = %v, want the binlog_row_image=FULL refusal", err)
	}
	err = checkSkipped(tb, [][]int{{1, 2}, {1, 2}}, intoPG)
	if err == nil || !strings.Contains(err.Error(), "generated columns h out of") || !strings.Contains(err.Error(), "--exclude-columns") {
		t.Errorf("a copied generated column left out: err = %v, want a refusal naming h", err)
	}
	if code := exitcode.Of(err); code != exitcode.Config {
		t.Errorf("a copied generated column left out: exit code %d, want %d (the fix is an option)", code, exitcode.Config)
	}
	// A MySQL target computes every generated column; Kafka is written all of them.
	if err := checkSkipped(tb, [][]int{{1, 2}}, nil); err != nil {
		t.Errorf("into a MySQL target: %v", err)
	}
	if err := checkSkipped(tb, [][]int{{1}}, []int{0, 1, 2}); err == nil || !strings.Contains(err.Error(), "columns g out of") {
		t.Errorf("into Kafka: err = %v, want a refusal naming g", err)
	}
}
