package typemap

import "testing"

func TestSelectExpr(t *testing.T) {
	cases := []struct {
		col  string
		c    func() string
		want string
	}{
		{"float", func() string { return SelectExpr(col("float", "float"), "`f`") }, "CAST(`f` AS DOUBLE)"},
		{"float(7,3)", func() string { return SelectExpr(col("float", "float(7,3)"), "`f`") }, "CAST(`f` AS DOUBLE)"},
		{"double", func() string { return SelectExpr(col("double", "double"), "`d`") }, "`d`"},
		{"double(10,2)", func() string { return SelectExpr(col("double", "double(10,2)"), "`d`") }, "CAST(`d` AS DOUBLE)"},
		{"varchar utf8mb4", func() string { return SelectExpr(col("varchar", "varchar(3)", charset("utf8mb4")), "`v`") }, "`v`"},
		{"varchar utf8mb3", func() string { return SelectExpr(col("varchar", "varchar(3)", charset("utf8mb3")), "`v`") }, "`v`"},
		{"char latin1", func() string { return SelectExpr(col("char", "char(3)", charset("latin1")), "`v`") }, "CAST(`v` AS BINARY)"},
		{"text sjis", func() string { return SelectExpr(col("text", "text", charset("sjis")), "`v`") }, "CAST(`v` AS BINARY)"},
		{"json latin1", func() string { return SelectExpr(col("longtext", "longtext", isJSON, charset("latin1")), "`j`") }, "CAST(`j` AS BINARY)"},
		{"enum latin1", func() string { return SelectExpr(col("enum", "enum('a')", charset("latin1")), "`e`") }, "`e`"},
		{"bit", func() string { return SelectExpr(col("bit", "bit(3)"), "`b`") }, "`b`"},
		{"blob", func() string { return SelectExpr(col("blob", "blob"), "`b`") }, "`b`"},
	}
	for _, tc := range cases {
		if got := tc.c(); got != tc.want {
			t.Errorf("%s: SelectExpr = %s, want %s", tc.col, got, tc.want)
		}
	}
}
