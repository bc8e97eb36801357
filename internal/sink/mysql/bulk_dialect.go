package mysql

import (
	"fmt"
	"regexp"
	"strings"
)

// A MySQL 8+ source into a MariaDB target: MySQL's SHOW CREATE TABLE is
// mostly MariaDB's dialect too. What is not, each line translated or the
// table refused with the reason (toMariaDB):
//
//   - utf8mb4_0900_* collations: MariaDB's closest (TargetCollation,
//     the mapping replication's replayed CREATE TABLE uses); without one the
//     charset keeps its default collation, with a warning.
//   - /*!80023 INVISIBLE */: MariaDB's INVISIBLE.
//   - /*!80003 SRID n */: MariaDB's REF_SYSTEM_ID=n, after the type.
//   - CHECK ... /*!80016 NOT ENFORCED */: left out with a warning (MariaDB
//     would enforce it; the source does not).
//   - functional key parts ((expr)): refused, MariaDB has none.
//   - any other versioned comment /*!8... */: refused, naming it.
//
// DEFAULT (expr), CHECK, generated columns, JSON (a LONGTEXT with a
// json_valid CHECK on MariaDB, holding MySQL's text of the document) and
// spatial types need nothing. An expression calling a function MariaDB lacks
// (UUID_TO_BIN...) fails at CREATE TABLE with the target's message.

var (
	collateRe    = regexp.MustCompile(`(?i)( CHARACTER SET [a-z0-9_]+)? COLLATE([ =])([a-z0-9_]+)`)
	invisibleRe  = regexp.MustCompile(`/\*!80023 INVISIBLE \*/`)
	sridRe       = regexp.MustCompile(` /\*!80003 SRID ([0-9]+) \*/`)
	notEnforced  = "/*!80016 NOT ENFORCED */"
	versionedRe  = regexp.MustCompile(`/\*!8[0-9]{4} [^*]*\*/`)
	columnTypeRe = regexp.MustCompile("^(`(?:[^`]|``)+` [a-z]+(?:\\([^)]*\\))?)")
	functionalRe = regexp.MustCompile("^(?:UNIQUE |FULLTEXT |SPATIAL )?KEY `(?:[^`]|``)+` \\((?:.*, ?)?\\(")
	primaryFnRe  = regexp.MustCompile(`^PRIMARY KEY \((?:.*, ?)?\(`)
)

// toMariaDB translates a MySQL source table's SHOW CREATE TABLE (src names
// it in messages) for a MariaDB target whose collations has lists.
func toMariaDB(create, src string, has func(string) bool) (string, []string, error) {
	var warnings, refused []string
	lines := strings.Split(create, "\n")
	out := lines[:0:0]
	for _, l := range lines {
		d := strings.TrimSpace(l)
		if functionalRe.MatchString(d) || primaryFnRe.MatchString(d) {
			refused = append(refused, fmt.Sprintf("a functional index (%s), which MariaDB does not have", strings.TrimSuffix(d, ",")))
			continue
		}
		if strings.HasPrefix(d, "CONSTRAINT ") && strings.Contains(d, notEnforced) {
			warnings = append(warnings, fmt.Sprintf("%s: NOT ENFORCED check constraint left out (MariaDB enforces every CHECK): %s",
				src, strings.TrimSuffix(d, ",")))
			continue
		}
		l = invisibleRe.ReplaceAllString(l, "INVISIBLE")
		if m := sridRe.FindStringSubmatch(l); m != nil {
			l = sridRe.ReplaceAllString(l, "")
			indent := l[:len(l)-len(strings.TrimLeft(l, " "))]
			body := strings.TrimLeft(l, " ")
			if t := columnTypeRe.FindString(body); t != "" {
				l = indent + t + " REF_SYSTEM_ID=" + m[1] + body[len(t):]
			} else {
				refused = append(refused, "SRID "+m[1]+" on a line sluice cannot read: "+d)
			}
		}
		l = collateRe.ReplaceAllStringFunc(l, func(s string) string {
			m := collateRe.FindStringSubmatch(s)
			coll, ok := TargetCollation(m[3], has)
			if ok {
				return m[1] + " COLLATE" + m[2] + coll
			}
			warnings = append(warnings, fmt.Sprintf("%s: the target has no collation close to %s: its charset's default collation is used "+
				"(the bytes are kept; comparisons and unique keys may differ)", src, m[3]))
			return m[1] // the charset alone: its default collation
		})
		if v := versionedRe.FindString(l); v != "" {
			refused = append(refused, "MySQL-only syntax "+v)
		}
		out = append(out, l)
	}
	if len(refused) > 0 {
		return "", nil, fmt.Errorf("table %s cannot be created on a MariaDB target: it has %s; exclude the table (--exclude) "+
			"or change it on the source", src, strings.Join(refused, "; "))
	}
	// A left-out last definition leaves a comma before the closing parenthesis.
	for i := 1; i < len(out); i++ {
		if strings.HasPrefix(out[i], ")") {
			out[i-1] = strings.TrimSuffix(out[i-1], ",")
		}
	}
	return strings.Join(out, "\n"), warnings, nil
}
