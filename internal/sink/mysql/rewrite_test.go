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

// TestRewriteMySQLCollations: a MySQL 8+ source's DDL into MariaDB names
// MariaDB's collations, and a utf8mb4 charset without COLLATE gets the
// source's default for it, which MariaDB's own default (general_ci) is not.
func TestRewriteMySQLCollations(t *testing.T) {
	has := map[string]bool{"utf8mb4_uca1400_nopad_ai_ci": true, "utf8mb4_uca1400_nopad_as_cs": true, "latin1_swedish_ci": true}
	r := rewriter{sourceDB: "app", targetDB: "replica", collation: "COLLATE=utf8mb4_uca1400_nopad_ai_ci",
		utf8mb4Collation: "utf8mb4_uca1400_nopad_ai_ci",
		mapCollation: func(c string) string {
			if m, ok := TargetCollation(c, func(c string) bool { return has[c] }); ok && m != c {
				return m
			}
			return ""
		}}
	for _, c := range []struct{ in, want string }{
		{"ALTER TABLE category CONVERT TO CHARACTER SET utf8mb4",
			"ALTER TABLE category CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_uca1400_nopad_ai_ci"},
		{"ALTER TABLE `group` MODIFY `desc` VARCHAR(255) CHARACTER SET utf8mb4 NOT NULL DEFAULT ''",
			"ALTER TABLE `group` MODIFY `desc` VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_uca1400_nopad_ai_ci NOT NULL DEFAULT ''"},
		{"ALTER TABLE t ADD c VARCHAR(5) CHARSET utf8mb4 COLLATE utf8mb4_0900_as_cs, ADD d TEXT COLLATE 'utf8mb4_0900_ai_ci'",
			"ALTER TABLE t ADD c VARCHAR(5) CHARSET utf8mb4 COLLATE utf8mb4_uca1400_nopad_as_cs, ADD d TEXT COLLATE utf8mb4_uca1400_nopad_ai_ci"},
		{"ALTER TABLE t ADD c VARCHAR(5) CHARACTER SET latin1", "ALTER TABLE t ADD c VARCHAR(5) CHARACTER SET latin1"},
		{"CREATE TABLE t (a VARCHAR(3) CHARACTER SET utf8mb4) DEFAULT CHARSET=utf8mb4",
			"CREATE TABLE t (a VARCHAR(3) CHARACTER SET utf8mb4 COLLATE utf8mb4_uca1400_nopad_ai_ci) DEFAULT CHARSET=utf8mb4 COLLATE utf8mb4_uca1400_nopad_ai_ci"},
		{"CREATE TABLE t (a INT) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci",
			"CREATE TABLE t (a INT) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_uca1400_nopad_ai_ci"},
		{"ALTER TABLE t ADD g VARCHAR(9) AS (CAST(a AS CHAR CHARACTER SET utf8mb4))",
			"ALTER TABLE t ADD g VARCHAR(9) AS (CAST(a AS CHAR CHARACTER SET utf8mb4))"},
	} {
		if got := r.rewrite(c.in); got != c.want {
			t.Errorf("rewrite(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}
