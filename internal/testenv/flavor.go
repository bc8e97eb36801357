package testenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Flavor is the kind of source server a test runs against. MariaDB and MySQL share the protocol
// but differ in binlog events, GTIDs, types, functions and statements; the flavor axis runs one
// test body against both without copying it.
type Flavor string

const (
	// MariaDB is the sandbox's MariaDB 10.11 (SLUICE_TEST_MYSQL_ADMIN), what Get returns.
	MariaDB Flavor = "mariadb"
	// MySQL is the sandbox's MySQL 9.7 (SLUICE_TEST_MYSQL9_ADMIN, port 13307).
	MySQL Flavor = "mysql"
)

// AllFlavors is every flavor, in the order Flavors runs them.
var AllFlavors = []Flavor{MariaDB, MySQL}

// Flavor says which source server this environment uses.
func (e *Env) Flavor() Flavor { return e.flavor }

// IsMySQL reports whether the source is MySQL (not MariaDB): fixtures branch on it for what only
// one of the two has (seq_1_to_N tables, UUID/INET types, SHOW MASTER STATUS, ...).
func (e *Env) IsMySQL() bool { return e.flavor == MySQL }

var (
	mysqlFlavorOnce sync.Once
	mysqlFlavorEnv  *Env
	mysqlFlavorErr  error
)

// GetFlavor returns the environment whose source is a server of flavor f and whose target is
// the shared PostgreSQL. Without such a server it skips the test, or fails it under CI=true.
// SLUICE_TEST_FLAVORS (e.g. "mariadb") restricts the flavors run; the others are skipped.
func GetFlavor(t testing.TB, f Flavor) *Env {
	t.Helper()
	if !flavorSelected(f) {
		t.Skipf("testenv: flavor %s not in SLUICE_TEST_FLAVORS=%s", f, os.Getenv("SLUICE_TEST_FLAVORS"))
	}
	base := Get(t)
	switch f {
	case MariaDB:
		return base
	case MySQL:
	default:
		t.Fatalf("testenv: unknown flavor %q", f)
	}
	mysqlFlavorOnce.Do(func() { mysqlFlavorEnv, mysqlFlavorErr = base.withMySQL(context.Background()) })
	if mysqlFlavorErr != nil {
		if InCI() {
			t.Fatalf("testenv: CI=true but no MySQL test server: %v", mysqlFlavorErr)
		}
		t.Skipf("testenv: no MySQL test server (%v). `bash scripts/sandbox start` starts one on 127.0.0.1:13307.", mysqlFlavorErr)
	}
	return mysqlFlavorEnv
}

// Flavors runs fn once per flavor, as subtests named after the flavor ("mariadb", "mysql").
func Flavors(t *testing.T, fn func(t *testing.T, env *Env)) {
	t.Helper()
	for _, f := range AllFlavors {
		t.Run(string(f), func(t *testing.T) {
			fn(t, GetFlavor(t, f))
		})
	}
}

// flavorSelected applies SLUICE_TEST_FLAVORS (comma-separated; empty means all).
func flavorSelected(f Flavor) bool {
	v := strings.TrimSpace(os.Getenv("SLUICE_TEST_FLAVORS"))
	if v == "" {
		return true
	}
	for _, s := range strings.Split(v, ",") {
		if Flavor(strings.ToLower(strings.TrimSpace(s))) == f {
			return true
		}
	}
	return false
}

// withMySQL is a copy of e whose source is the MySQL server: its admin URL, and the sluice
// account on it (SLUICE_TEST_MYSQL9_SOURCE, by default sluice:sluice).
func (e *Env) withMySQL(ctx context.Context) (*Env, error) {
	if e.mysql9 == "" {
		return nil, errors.New("SLUICE_TEST_MYSQL9_ADMIN is not set")
	}
	admin, err := parseMySQLURL(e.mysql9)
	if err != nil {
		return nil, fmt.Errorf("MySQL admin URL: %w", err)
	}
	source := mysqlURL{User: "sluice", Password: "sluice", Host: admin.Host, Port: admin.Port}
	if v := os.Getenv("SLUICE_TEST_MYSQL9_SOURCE"); v != "" {
		if source, err = parseMySQLURL(v); err != nil {
			return nil, fmt.Errorf("SLUICE_TEST_MYSQL9_SOURCE: %w", err)
		}
	}
	m := *e
	m.mysqlAdmin, m.source, m.flavor = admin, source, MySQL
	if err := m.ping(ctx); err != nil {
		return nil, err
	}
	return &m, nil
}

// seqTable matches MariaDB's sequence-engine tables seq_M_to_N, which MySQL does not have.
// An alias may follow (seq_0_to_3 y, seq_1_to_3 AS l).
var seqTable = regexp.MustCompile(`(?i)\bseq_(\d+)_to_(\d+)\b(\s+(?:AS\s+)?([a-z_][a-z0-9_]*))?`)

// notAlias are the words that may follow a table name without being its alias.
var notAlias = map[string]bool{"where": true, "join": true, "on": true, "group": true, "order": true, "limit": true,
	"union": true, "cross": true, "inner": true, "left": true, "right": true, "straight_join": true, "having": true,
	"window": true, "for": true, "lock": true, "natural": true, "using": true, "into": true, "as": true}

// SQL adapts fixture SQL written for MariaDB to the flavor. On MySQL every seq_M_to_N table
// (MariaDB's sequence engine) becomes a derived table of the same name with one column seq
// holding M..N in order, built from cross-joined digits (a recursive CTE would hit MySQL's
// cte_max_recursion_depth of 1000). On MariaDB the text is returned unchanged.
func (e *Env) SQL(q string) string {
	if e.flavor != MySQL {
		return q
	}
	return seqTable.ReplaceAllStringFunc(q, func(m string) string {
		sm := seqTable.FindStringSubmatch(m)
		from, err1 := strconv.Atoi(sm[1])
		to, err2 := strconv.Atoi(sm[2])
		if err1 != nil || err2 != nil || to < from {
			return m
		}
		name, rest := "seq_"+sm[1]+"_to_"+sm[2], sm[3]
		if alias := sm[4]; alias != "" && !notAlias[strings.ToLower(alias)] {
			name, rest = alias, ""
		}
		return seqDerivedTable(from, to) + " AS " + name + rest
	})
}

// seqDerivedTable is a derived table (SELECT seq ...) of the integers from..to, most significant
// digit joined first; ORDER BY with LIMIT makes MySQL materialise it in ascending order (without
// LIMIT it drops the ORDER BY of a derived table), so auto-increment ids follow seq as on MariaDB.
func seqDerivedTable(from, to int) string {
	n := to - from + 1
	const digits = "(SELECT 0 AS d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL " +
		"SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9)"
	levels := len(strconv.Itoa(n))
	var joins, sum []string
	for i := levels - 1; i >= 0; i-- {
		alias := "d" + strconv.Itoa(i)
		joins = append(joins, digits+" AS "+alias)
		sum = append(sum, alias+".d * "+strconv.Itoa(pow10(i)))
	}
	return "(SELECT seq FROM (SELECT " + strings.Join(sum, " + ") + " + " + strconv.Itoa(from) + " AS seq FROM " +
		strings.Join(joins, " CROSS JOIN ") + ") AS seq_digits WHERE seq <= " + strconv.Itoa(to) + " ORDER BY seq LIMIT " + strconv.Itoa(n) + ")"
}

func pow10(i int) int {
	p := 1
	for ; i > 0; i-- {
		p *= 10
	}
	return p
}

// BinlogStatusSQL is the statement that shows the source's current binlog file and position:
// SHOW MASTER STATUS on MariaDB, SHOW BINARY LOG STATUS on MySQL (8.4 removed the old name).
func (e *Env) BinlogStatusSQL() string {
	if e.flavor == MySQL {
		return "SHOW BINARY LOG STATUS"
	}
	return "SHOW MASTER STATUS"
}
