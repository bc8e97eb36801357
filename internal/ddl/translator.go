package ddl

import (
	"fmt"
	"strings"
	"sync"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/typemap"
)

// Translator turns replicated DDL statements into PostgreSQL statements and
// new table versions. Besides the current tables (passed to each call) it
// needs what parsing CREATE TABLE needs to fill columns the way
// information_schema would: database defaults, default collations, flavor.
//
// Translate returns new table versions and never modifies the tables it is
// given; it does record database default changes (CREATE/ALTER/DROP
// DATABASE) in the Translator, which is safe for concurrent use.
type Translator struct {
	Mapper *typemap.Mapper
	Naming schema.Naming
	Filter schema.Filter
	// Flavor is "mariadb" or "mysql": generated constraint names and the
	// JSON type differ.
	Flavor                       string
	ExplicitDefaultsForTimestamp bool
	// Server is the server's default charset and collation.
	Server schema.Database
	// ReplayTarget: the target replays the source's own statement (a MySQL
	// or MariaDB target) and only the table versions are used, so what only
	// PostgreSQL cannot do (an implicit value of a type it lacks) is not refused.
	ReplayTarget bool

	mu sync.RWMutex
	// databases holds each known database's default charset and collation.
	// A CREATE TABLE without CHARSET in a database missing here is an error.
	databases map[string]schema.Database
	// collations maps a charset to the server's default collation for it.
	collations map[string]string
}

// NewTranslator starts a translator from a loaded catalog (schema.Load
// reads the database defaults and collations it needs).
func NewTranslator(c *schema.Catalog, m *typemap.Mapper, n schema.Naming, f schema.Filter) *Translator {
	tr := &Translator{
		Mapper: m, Naming: n, Filter: f,
		Flavor:                       c.Flavor,
		ExplicitDefaultsForTimestamp: c.ExplicitDefaultsForTimestamp,
		Server:                       c.Server,
		databases:                    map[string]schema.Database{},
		collations:                   map[string]string{},
	}
	for _, d := range c.Databases {
		tr.databases[d.Name] = d
	}
	for k, v := range c.Collations {
		tr.collations[k] = v
	}
	if tr.Mapper == nil {
		tr.Mapper = kindMapper
	}
	return tr
}

// Database returns the defaults of a database, if known.
func (tr *Translator) Database(name string) (schema.Database, bool) {
	tr.mu.RLock()
	defer tr.mu.RUnlock()
	d, ok := tr.databases[name]
	return d, ok
}

func (tr *Translator) setDatabase(name string, d *schema.Database) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if d == nil {
		delete(tr.databases, name)
		return
	}
	tr.databases[name] = *d
}

// charsetOf returns the charset of a collation name ("latin1_bin" → "latin1").
func charsetOf(collation string) string {
	c := strings.ToLower(collation)
	if c == "binary" {
		return "binary"
	}
	cs, _, _ := strings.Cut(c, "_")
	if cs == "utf8" {
		return "utf8mb3"
	}
	return cs
}

// normCharset spells a charset the way information_schema does (MariaDB
// 10.6+ and MySQL 8 report utf8 as utf8mb3).
func normCharset(cs string) string {
	cs = strings.ToLower(cs)
	if cs == "utf8" {
		return "utf8mb3"
	}
	return cs
}

// normCollation spells a collation as information_schema does.
func normCollation(coll string) string {
	coll = strings.ToLower(coll)
	if strings.HasPrefix(coll, "utf8_") {
		return "utf8mb3_" + strings.TrimPrefix(coll, "utf8_")
	}
	return coll
}

// defaultCollation returns the server's default collation of a charset.
func (tr *Translator) defaultCollation(cs string) (string, error) {
	tr.mu.RLock()
	c, ok := tr.collations[cs]
	tr.mu.RUnlock()
	if ok {
		return c, nil
	}
	if cs == "binary" {
		return "binary", nil
	}
	return "", fmt.Errorf("charset %s: default collation unknown (not in the source's information_schema.COLLATIONS)", cs)
}

// resolveCharset completes a (charset, collation) pair where either may be
// empty; both empty means "inherit" and is returned as is.
func (tr *Translator) resolveCharset(cs, coll string) (string, string, error) {
	cs, coll = normCharset(cs), normCollation(coll)
	switch {
	case cs == "" && coll == "":
		return "", "", nil
	case coll == "":
		c, err := tr.defaultCollation(cs)
		return cs, c, err
	case cs == "":
		return charsetOf(coll), coll, nil
	}
	return cs, coll, nil
}
