package mysql

import (
	"strings"
	"testing"
)

// mysql97Extra is what MySQL 9.7.4 prints for a table with the MySQL 8+
// syntax MariaDB lacks (functional indexes apart).
const mysql97Extra = "CREATE TABLE `extra` (\n" +
	"  `id` int NOT NULL,\n" +
	"  `a` int DEFAULT NULL /*!80023 INVISIBLE */,\n" +
	"  `b` varchar(10) CHARACTER SET utf8mb4 COLLATE utf8mb4_0900_as_cs DEFAULT NULL,\n" +
	"  `c` json DEFAULT (json_object()),\n" +
	"  `g` geometry NOT NULL /*!80003 SRID 4326 */,\n" +
	"  `p` point DEFAULT NULL /*!80003 SRID 0 */,\n" +
	"  `e` varchar(10) CHARACTER SET utf8mb4 COLLATE utf8mb4_ja_0900_as_cs DEFAULT NULL,\n" +
	"  `f` varchar(5) CHARACTER SET latin1 COLLATE latin1_swedish_ci DEFAULT NULL,\n" +
	"  PRIMARY KEY (`id`),\n" +
	"  SPATIAL KEY `g` (`g`),\n" +
	"  CONSTRAINT `extra_chk_1` CHECK ((`a` > 0)),\n" +
	"  CONSTRAINT `ne` CHECK ((`id` > 0)) /*!80016 NOT ENFORCED */\n" +
	") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci"

func TestToMariaDB(t *testing.T) {
	has := func(c string) bool {
		return c == "utf8mb4_uca1400_nopad_ai_ci" || c == "utf8mb4_uca1400_nopad_as_cs" || c == "latin1_swedish_ci"
	}
	got, warnings, err := toMariaDB(mysql97Extra, "db.extra", has)
	if err != nil {
		t.Fatal(err)
	}
	want := "CREATE TABLE `extra` (\n" +
		"  `id` int NOT NULL,\n" +
		"  `a` int DEFAULT NULL INVISIBLE,\n" +
		"  `b` varchar(10) CHARACTER SET utf8mb4 COLLATE utf8mb4_uca1400_nopad_as_cs DEFAULT NULL,\n" +
		"  `c` json DEFAULT (json_object()),\n" +
		"  `g` geometry REF_SYSTEM_ID=4326 NOT NULL,\n" +
		"  `p` point REF_SYSTEM_ID=0 DEFAULT NULL,\n" +
		"  `e` varchar(10) CHARACTER SET utf8mb4 DEFAULT NULL,\n" +
		"  `f` varchar(5) CHARACTER SET latin1 COLLATE latin1_swedish_ci DEFAULT NULL,\n" +
		"  PRIMARY KEY (`id`),\n" +
		"  SPATIAL KEY `g` (`g`),\n" +
		"  CONSTRAINT `extra_chk_1` CHECK ((`a` > 0))\n" +
		") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_uca1400_nopad_ai_ci"
	if got != want {
		t.Errorf("translated:\n%s\nwant:\n%s", got, want)
	}
	if len(warnings) != 2 || !strings.Contains(warnings[0], "utf8mb4_ja_0900_as_cs") || !strings.Contains(warnings[1], "NOT ENFORCED") {
		t.Errorf("warnings %q", warnings)
	}

	// Prefix and multi-column keys are not functional.
	plain := strings.Replace(mysql97Extra, "  PRIMARY KEY (`id`),\n", "  PRIMARY KEY (`id`),\n  KEY `k` (`b`(5),`id`),\n  UNIQUE KEY `u` (`f`,`b`(3)),\n", 1)
	if _, _, err := toMariaDB(plain, "db.extra", has); err != nil {
		t.Errorf("prefix keys: %v", err)
	}

	for _, bad := range []struct{ line, says string }{
		{"  KEY `functional_index` (((`a` + 1))),", "functional index (KEY `functional_index`"},
		{"  UNIQUE KEY `fx` (`id`,(cast(json_extract(`c`,_utf8mb4'$.x') as unsigned))),", "functional index (UNIQUE KEY `fx`"},
		{"  `z` int DEFAULT NULL /*!80099 SOMETHING */,", "MySQL-only syntax /*!80099 SOMETHING */"},
	} {
		create := strings.Replace(mysql97Extra, "  PRIMARY KEY (`id`),\n", "  PRIMARY KEY (`id`),\n"+bad.line+"\n", 1)
		_, _, err := toMariaDB(create, "db.extra", has)
		if err == nil || !strings.Contains(err.Error(), bad.says) || !strings.Contains(err.Error(), "table db.extra") ||
			!strings.Contains(err.Error(), "--exclude") {
			t.Errorf("%s: %v, want a refusal saying %q", bad.line, err, bad.says)
		}
	}
}
