package mysql

import "testing"

func TestTargetCollation(t *testing.T) {
	mariadb := map[string]bool{}
	for _, c := range []string{"utf8mb4_general_ci", "utf8mb4_bin", "utf8mb4_nopad_bin", "utf8mb4_uca1400_nopad_ai_ci",
		"utf8mb4_uca1400_nopad_as_cs", "utf8mb4_uca1400_nopad_as_ci", "utf8mb4_uca1400_swedish_nopad_ai_ci",
		"utf8mb4_uca1400_german2_nopad_as_cs", "utf8mb4_uca1400_danish_nopad_ai_ci", "utf8mb4_unicode_520_nopad_ci", "latin1_swedish_ci"} {
		mariadb[c] = true
	}
	old := map[string]bool{"utf8mb4_unicode_520_nopad_ci": true} // MariaDB before 10.10
	mariadb["utf8mb4_uca1400_ai_ci"], mariadb["utf8mb4_uca1400_swedish_ai_ci"] = true, true
	rocks := map[string]bool{}
	onRocks := CollationsFor("ROCKSDB", func(c string) bool { return mariadb[c] })
	for c := range mariadb {
		if onRocks(c) {
			rocks[c] = true
		}
	}
	for _, tc := range []struct {
		src  string
		has  map[string]bool
		want string
	}{
		{"utf8mb4_general_ci", mariadb, "utf8mb4_general_ci"},
		{"latin1_swedish_ci", mariadb, "latin1_swedish_ci"},
		{"utf8mb4_0900_ai_ci", mariadb, "utf8mb4_uca1400_nopad_ai_ci"},
		{"UTF8MB4_0900_AI_CI", mariadb, "utf8mb4_uca1400_nopad_ai_ci"},
		{"utf8mb4_0900_as_cs", mariadb, "utf8mb4_uca1400_nopad_as_cs"},
		{"utf8mb4_0900_as_ci", mariadb, "utf8mb4_uca1400_nopad_as_ci"},
		{"utf8mb4_0900_bin", mariadb, "utf8mb4_nopad_bin"},
		{"utf8mb4_sv_0900_ai_ci", mariadb, "utf8mb4_uca1400_swedish_nopad_ai_ci"},
		{"utf8mb4_de_pb_0900_as_cs", mariadb, "utf8mb4_uca1400_german2_nopad_as_cs"},
		{"utf8mb4_nb_0900_ai_ci", mariadb, "utf8mb4_uca1400_danish_nopad_ai_ci"},
		{"utf8mb4_0900_ai_ci", old, "utf8mb4_unicode_520_nopad_ci"},
		{"utf8mb4_ja_0900_as_cs", mariadb, ""},
		{"utf8mb4_ja_0900_as_cs_ks", mariadb, ""},
		{"utf8mb4_ru_0900_ai_ci", mariadb, ""},
		{"utf8mb4_0900_as_cs", old, ""},
		{"utf8mb4_0900_ai_ci", rocks, "utf8mb4_uca1400_ai_ci"},
		{"utf8mb4_0900_bin", rocks, "utf8mb4_bin"},
		{"utf8mb4_sv_0900_ai_ci", rocks, "utf8mb4_uca1400_swedish_ai_ci"},
	} {
		got, ok := TargetCollation(tc.src, func(c string) bool { return tc.has[c] })
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("TargetCollation(%s) = %q, %v; want %q", tc.src, got, ok, tc.want)
		}
	}
}
