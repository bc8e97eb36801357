package ddl

import (
	"testing"

	"github.com/sluice-db/sluice/internal/schema"
)

func TestPrepareRewrites(t *testing.T) {
	cases := []struct{ in, want string }{
		{"CREATE TABLE t (a INT1, b DOUBLE PRECISION, c NCHAR(3) NOT NULL, d LONG VARCHAR, e uuid DEFAULT uuid())",
			"CREATE TABLE t (a tinyint , b double , c char(3) character set utf8mb3 NOT NULL , d mediumtext , " +
				"e varchar(1) character set sluice_type_uuid DEFAULT ( uuid() ))"},
		{"CREATE TABLE t (a INT CHECK (a > 0), b JSON, c BIT DEFAULT b'1', d FLOAT DEFAULT 1.25e-5)",
			"CREATE TABLE t (a INT , b longtext character set utf8mb4 collate utf8mb4_bin , c BIT DEFAULT b'1' , " +
				"d FLOAT DEFAULT 1.25e-5 , constraint a check (a > 0) , constraint b check ( json_valid ( b ) ))"},
		{"CREATE TABLE g (id int, p POINT REF_SYSTEM_ID=4326 NOT NULL, q GEOMETRY ref_system_id = 0, SPATIAL KEY (p))",
			"CREATE TABLE g (id int , p POINT NOT NULL , q GEOMETRY , SPATIAL KEY (p))"},
		{"CREATE OR REPLACE TABLE t (a int AS (b) PERSISTENT) PAGE_CHECKSUM=1",
			"CREATE TABLE t (a int AS (b) stored)"},
		{"CREATE TABLE t (a INT STORAGE DISK, b INT STORAGE MEMORY NOT NULL, c INT STORAGE DEFAULT)",
			"CREATE TABLE t (a INT , b INT NOT NULL , c INT)"},
		{"ALTER TABLE t ADD COLUMN IF NOT EXISTS j JSON, DROP COLUMN IF EXISTS c, ADD PRIMARY KEY USING BTREE (a)",
			"ALTER TABLE t ADD COLUMN j longtext character set utf8mb4 collate utf8mb4_bin , " +
				"add constraint j check ( json_valid ( j ) ) , DROP COLUMN c , ADD PRIMARY KEY (a)"},
	}
	for _, tc := range cases {
		got := prepare(tc.in, "mariadb")
		if got.sql != tc.want {
			t.Errorf("prepare(%s)\n got %s\nwant %s", tc.in, got.sql, tc.want)
		}
	}
	p := prepare("ALTER TABLE t ADD COLUMN IF NOT EXISTS j INT, DROP INDEX IF EXISTS `Ix`", "mariadb")
	if !p.ifNotExists["j"] || !p.ifExists["ix"] {
		t.Errorf("conditions not recorded: %+v", p)
	}
	if !prepare("CREATE OR REPLACE TABLE t (a int)", "mariadb").orReplace {
		t.Error("orReplace not recorded")
	}
}

func TestMySQLFlavorParse(t *testing.T) {
	cat := &schema.Catalog{Flavor: "mysql", ExplicitDefaultsForTimestamp: true,
		Databases:  []schema.Database{{Name: "d", Charset: "utf8mb4", Collation: "utf8mb4_0900_ai_ci"}},
		Collations: map[string]string{"utf8mb4": "utf8mb4_0900_ai_ci"}}
	tr := NewTranslator(cat, nil, schema.Naming{}, schema.Filter{})
	tb, err := tr.TableFromCreate("CREATE TABLE t (a INT UNSIGNED, b TINYINT(1), c JSON, d YEAR, e INT CHECK (e > 0), "+
		"f INT ZEROFILL)", "d")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a": "int unsigned", "b": "tinyint(1)", "c": "json", "d": "year", "f": "int(10) unsigned zerofill"}
	for name, ct := range want {
		if c := tb.Column(name); c == nil || c.ColumnType != ct {
			t.Errorf("column %s: %+v, want column type %s", name, c, ct)
		}
	}
	if !tb.Column("c").IsJSON || tb.Column("c").Charset != "" {
		t.Errorf("MySQL JSON: %+v", tb.Column("c"))
	}
	if len(tb.Checks) != 1 || tb.Checks[0].Name != "t_chk_1" {
		t.Errorf("MySQL names unnamed checks <table>_chk_<n>: %+v", tb.Checks)
	}
}
