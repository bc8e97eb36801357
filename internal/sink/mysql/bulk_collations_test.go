package mysql

import "testing"

func TestExplicitCollations(t *testing.T) {
	create := "CREATE TABLE `t` (\n" +
		"  `id` int(11) NOT NULL,\n" +
		"  `a``b` text CHARACTER SET utf16 DEFAULT 'x CHARACTER SET latin1',\n" +
		"  `c` varchar(10) CHARACTER SET latin1 COLLATE latin1_bin DEFAULT NULL,\n" +
		"  `d` enum('CHARACTER SET y') CHARACTER SET ucs2,\n" +
		"  `e` varchar(3) DEFAULT NULL,\n" +
		"  PRIMARY KEY (`id`)\n" +
		") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4"
	colls := map[string]string{"a`b": "utf16_general_ci", "c": "latin1_bin", "d": "ucs2_general_ci", "e": "utf8mb4_general_ci"}
	want := "CREATE TABLE `t` (\n" +
		"  `id` int(11) NOT NULL,\n" +
		"  `a``b` text CHARACTER SET utf16 COLLATE utf16_general_ci DEFAULT 'x CHARACTER SET latin1',\n" +
		"  `c` varchar(10) CHARACTER SET latin1 COLLATE latin1_bin DEFAULT NULL,\n" +
		"  `d` enum('CHARACTER SET y') CHARACTER SET ucs2 COLLATE ucs2_general_ci,\n" +
		"  `e` varchar(3) DEFAULT NULL,\n" +
		"  PRIMARY KEY (`id`)\n" +
		") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci"
	if got := explicitCollations(create, colls, "utf8mb4_general_ci"); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// Already explicit: unchanged.
	if got := explicitCollations(want, colls, "utf8mb4_general_ci"); got != want {
		t.Errorf("explicit definition changed:\n%s", got)
	}
}
