package mysql

import "testing"

func TestRewriteDatabaseAndEngine(t *testing.T) {
	r := rewriter{sourceDB: "app", targetDB: "replica", engine: "ROCKSDB", collation: "COLLATE=utf8mb4_general_ci"}
	cases := []struct{ in, want string }{
		{"CREATE TABLE t (id INT PRIMARY KEY, engine VARCHAR(10))",
			"CREATE TABLE t (id INT PRIMARY KEY, engine VARCHAR(10)) ENGINE=ROCKSDB COLLATE=utf8mb4_general_ci"},
		{"CREATE TABLE `app`.`t` (id INT) ENGINE=InnoDB DEFAULT CHARSET=latin1 COLLATE latin1_bin",
			"CREATE TABLE `replica`.`t` (id INT) ENGINE=ROCKSDB DEFAULT CHARSET=latin1 COLLATE latin1_bin"},
		{"CREATE TABLE IF NOT EXISTS app.t (a INT, CHECK (a > 0)) PARTITION BY HASH (a) PARTITIONS 2",
			"CREATE TABLE IF NOT EXISTS `replica`.t (a INT, CHECK (a > 0)) ENGINE=ROCKSDB COLLATE=utf8mb4_general_ci PARTITION BY HASH (a) PARTITIONS 2"},
		{"ALTER TABLE app.t ENGINE InnoDB", "ALTER TABLE `replica`.t ENGINE ROCKSDB"},
		{"ALTER TABLE t ADD COLUMN engine INT, CHANGE a engine2 INT", "ALTER TABLE t ADD COLUMN engine INT, CHANGE a engine2 INT"},
		{"ALTER TABLE t ADD c VARCHAR(10) DEFAULT 'app.x' COMMENT \"app.y\" /* app.z */",
			"ALTER TABLE t ADD c VARCHAR(10) DEFAULT 'app.x' COMMENT \"app.y\" /* app.z */"},
		{"RENAME TABLE `app`.a TO `app`.b", "RENAME TABLE `replica`.a TO `replica`.b"},
		{"CREATE TABLE t2 LIKE app.t", "CREATE TABLE t2 LIKE `replica`.t"},
		{"CREATE TABLE c (id INT, p INT, FOREIGN KEY (p) REFERENCES app.p (id)) /*!50100 ENGINE=InnoDB */",
			"CREATE TABLE c (id INT, p INT, FOREIGN KEY (p) REFERENCES `replica`.p (id)) COLLATE=utf8mb4_general_ci /*!50100 ENGINE=ROCKSDB */"},
		{"DROP TABLE apps.t, app.u", "DROP TABLE apps.t, `replica`.u"},
	}
	for _, c := range cases {
		if got := r.rewrite(c.in); got != c.want {
			t.Errorf("rewrite(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
	keep := rewriter{sourceDB: "app", targetDB: "replica"}
	if got := keep.rewrite("CREATE TABLE t (id INT) ENGINE=MyISAM"); got != "CREATE TABLE t (id INT) ENGINE=MyISAM" {
		t.Errorf("without --target-engine: %q", got)
	}
}

func TestCreatesTable(t *testing.T) {
	for q, want := range map[string]bool{
		"CREATE TABLE t (a INT)":                       true,
		"create table if not exists `app`.`t` (a INT)": true,
		"CREATE OR REPLACE TABLE t (a INT)":            true,
		"CREATE TABLE u (a INT)":                       false,
		"ALTER TABLE t ADD b INT":                      false,
	} {
		if got := createsTable(q, "t"); got != want {
			t.Errorf("createsTable(%q) = %v", q, got)
		}
	}
}

func TestLiterals(t *testing.T) {
	for _, c := range []struct {
		v    any
		bits int
		want string
	}{
		{int8(-1), 8, "255"}, {int32(-1), 24, "16777215"}, {int64(-1), 64, "18446744073709551615"}, {int64(-5), 0, "-5"},
		{uint64(18446744073709551615), 0, "18446744073709551615"},
		{"it's \\ \x00\n", 0, `'it\'s \\ \0\n'`}, {[]byte{0xff, '"'}, 0, "'\xff\"'"},
		{float32(0.1), 0, "1.0000000149011612e-01"}, {1.5, 0, "1.5e+00"}, {nil, 0, "NULL"},
	} {
		got, err := encodeAny(nil, c.v, c.bits)
		if err != nil || string(got) != c.want {
			t.Errorf("encode %#v: %q, %v; want %q", c.v, got, err, c.want)
		}
	}
	if got, err := encodeDecimal(nil, "-12.500"); err != nil || string(got) != "-12.500" {
		t.Errorf("decimal: %q %v", got, err)
	}
	if _, err := encodeDecimal(nil, "1; DROP"); err == nil {
		t.Error("decimal accepted garbage")
	}
}

func TestMySQLJSONText(t *testing.T) {
	in := `{"a":[1,"x, \"y\": z\\",{"d":[true,1.5]}],"b":{"c":null}}`
	want := `{"a": [1, "x, \"y\": z\\", {"d": [true, 1.5]}], "b": {"c": null}}`
	if got := string(mysqlJSONText([]byte(in))); got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}
