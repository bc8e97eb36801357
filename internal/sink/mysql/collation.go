package mysql

import (
	"context"
	"database/sql"
	"regexp"
	"strings"
)

// MySQL 8 and later sort utf8mb4 by UCA 9.0.0 in collations MariaDB does not
// have (utf8mb4_0900_ai_ci, the default, and its accent-, case- and
// language-specific variants). They are NO PAD: 'a' and 'a ' differ, in
// comparisons and in unique keys. MariaDB 10.10 and later have UCA 14.0.0
// collations with the same sensitivity choices and a NO PAD form of each:
// the closest there is (UCA 14 only adds characters and their weights).

// mysql0900 is a MySQL UCA 9.0.0 collation: language, accents, case.
var mysql0900 = regexp.MustCompile(`^utf8mb4_(?:([a-z_]+)_)?0900_(ai|as)_(ci|cs)$`)

// mariaDBLanguage names MySQL's language tailorings as MariaDB's uca1400
// collations do. MySQL documents Norwegian as Danish, Bosnian and Serbian
// (Latin) as Croatian and Galician as Spanish. Others (ja, zh, ru, bg,
// mn_cyrl) have no MariaDB counterpart.
var mariaDBLanguage = map[string]string{
	"cs": "czech", "da": "danish", "de_pb": "german2", "eo": "esperanto", "es": "spanish", "es_trad": "spanish2",
	"et": "estonian", "hr": "croatian", "hu": "hungarian", "is": "icelandic", "la": "roman", "lt": "lithuanian",
	"lv": "latvian", "pl": "polish", "ro": "romanian", "sk": "slovak", "sl": "slovenian", "sv": "swedish",
	"tr": "turkish", "vi": "vietnamese", "nb": "danish", "nn": "danish", "bs": "croatian", "sr_latn": "croatian",
	"gl": "spanish",
}

// TargetCollation is the collation a target whose collations has knows
// uses for a source collation: the same one when the target has it, else
// MySQL 8+'s utf8mb4 UCA 9.0.0 collations mapped to MariaDB's closest (see
// above; utf8mb4_0900_bin is utf8mb4_nopad_bin). ok is false when the
// target has nothing close: the caller then keeps the charset with the
// target's default collation and says so. Both the snapshot's CREATE TABLE
// and replication's replayed schema changes use it.
func TargetCollation(name string, has func(string) bool) (string, bool) {
	name = strings.ToLower(name)
	if has(name) {
		return name, true
	}
	var candidates []string
	// Each NO PAD collation is followed by its PAD SPACE form, for a target
	// that refuses NO PAD (MyRocks: CollationsFor).
	switch m := mysql0900.FindStringSubmatch(name); {
	case name == "utf8mb4_0900_bin":
		candidates = []string{"utf8mb4_nopad_bin", "utf8mb4_bin"}
	case m == nil:
	case m[1] == "":
		candidates = []string{"utf8mb4_uca1400_nopad_" + m[2] + "_" + m[3], "utf8mb4_uca1400_" + m[2] + "_" + m[3]}
		if m[2] == "ai" && m[3] == "ci" { // MariaDB before 10.10
			candidates = append(candidates, "utf8mb4_unicode_520_nopad_ci", "utf8mb4_unicode_520_ci")
		}
	case mariaDBLanguage[m[1]] != "":
		lang := "utf8mb4_uca1400_" + mariaDBLanguage[m[1]]
		candidates = []string{lang + "_nopad_" + m[2] + "_" + m[3], lang + "_" + m[2] + "_" + m[3]}
	}
	for _, c := range candidates {
		if has(c) {
			return c, true
		}
	}
	return "", false
}

// Collations lists the target's collation names (lower case) for
// TargetCollation, as the sink reads them.
func Collations(ctx context.Context, conn *sql.Conn) (map[string]bool, error) {
	names, _, _, err := readCollations(ctx, conn)
	return names, err
}

// CollationsFor narrows the target's collations (has) to those a table on
// engine can use: MyRocks refuses NO PAD collations (error 4077), so
// TargetCollation picks the PAD SPACE form there.
func CollationsFor(engine string, has func(string) bool) func(string) bool {
	if !strings.EqualFold(engine, "rocksdb") {
		return has
	}
	return func(c string) bool { return !strings.Contains(c, "nopad") && has(c) }
}
