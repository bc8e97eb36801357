package alter

import (
	"testing"

	"github.com/sluice-db/sluice/internal/schema"
)

// TestLiteralOfDecides which column changes row images may carry: only
// those where a literal of the old value converts into the new column as
// INSERT … SELECT converts the old column.
func TestLiteralOfDecides(t *testing.T) {
	cases := []struct {
		dt, charset, oldType, newType string
		generated, mysqlJSON          bool
		images                        bool
	}{
		{dt: "int", oldType: "int(11)", newType: "int(11)", images: true},
		{dt: "int", oldType: "int(11)", newType: "bigint(20) unsigned", images: true},
		{dt: "int", oldType: "int(11)", newType: "decimal(12,3)"},
		{dt: "int", oldType: "int(11)", newType: "varchar(20)"},
		{dt: "decimal", oldType: "decimal(10,2)", newType: "decimal(14,4)", images: true},
		{dt: "varchar", charset: "latin1", oldType: "varchar(10)", newType: "text", images: true},
		{dt: "char", charset: "utf8mb4", oldType: "char(10)", newType: "int(11)"},
		{dt: "varbinary", oldType: "varbinary(10)", newType: "varbinary(10)", images: true},
		{dt: "varbinary", oldType: "varbinary(10)", newType: "varbinary(20)"},
		{dt: "enum", oldType: "enum('a','b')", newType: "enum('a','b')", images: true},
		{dt: "enum", oldType: "enum('a','b')", newType: "enum('b','a')"},
		{dt: "set", oldType: "set('a','b')", newType: "set('a','b')", images: true},
		{dt: "set", oldType: "set('a','b')", newType: "set('a','b','c')"},
		{dt: "timestamp", oldType: "timestamp(3)", newType: "timestamp(3)", images: true},
		{dt: "timestamp", oldType: "timestamp", newType: "datetime"},
		{dt: "datetime", oldType: "datetime", newType: "datetime(3)"},
		{dt: "json", oldType: "json", newType: "json", mysqlJSON: true},
		{dt: "json", charset: "utf8mb4", oldType: "longtext", newType: "longtext", images: true},
		{dt: "geometry", oldType: "geometry", newType: "geometry"},
		{dt: "int", oldType: "int(11)", newType: "int(11)", generated: true},
	}
	for _, tc := range cases {
		c := schema.Column{Name: "c", DataType: tc.dt, Charset: tc.charset, ColumnType: tc.oldType}
		o := &colDef{Name: "c", Type: tc.oldType, Generated: tc.generated}
		n := &colDef{Name: "c", Type: tc.newType}
		enc, why := literalOf(c, o, n, tc.mysqlJSON)
		if (enc != nil) != tc.images {
			t.Errorf("%s %s → %s (MySQL JSON %v): row images %v (%s), want %v", tc.dt, tc.oldType, tc.newType, tc.mysqlJSON, enc != nil, why, tc.images)
		}
	}
}
