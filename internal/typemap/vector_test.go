package typemap

import (
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/schema"
)

// TestVectorOnlyForAMySQLTarget: MySQL 9's VECTOR has no PostgreSQL mapping
// (refused, naming the type); compared with a MySQL target it is its bytes.
func TestVectorOnlyForAMySQLTarget(t *testing.T) {
	c := schema.Column{Name: "v", DataType: "vector", ColumnType: "vector(3)"}
	if _, _, err := New(DefaultOptions(), nil).PGType(c); err == nil || !strings.Contains(err.Error(), "vector") {
		t.Errorf("VECTOR into PostgreSQL: %v, want an error naming the type", err)
	}
	o := DefaultOptions()
	o.RawVector = true
	if _, k, err := New(o, nil).PGType(c); err != nil || k != KindBinary {
		t.Errorf("VECTOR with a MySQL target: kind %v, %v; want KindBinary", k, err)
	}
}
