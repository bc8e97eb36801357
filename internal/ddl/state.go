package ddl

import (
	"fmt"
	"strings"

	"github.com/sluice-db/sluice/internal/schema"
)

// Schema is the source schema as DDL replication tracks it: the tables in
// scope plus what parsing CREATE TABLE needs to fill columns the way
// information_schema would (database defaults, default collations, flavor).
// Translate never modifies it; Apply moves it to the state after a Result.
type Schema struct {
	Tables map[schema.TableID]*schema.Table
	// Databases holds each known database's default charset and collation.
	// A CREATE TABLE without CHARSET in a database missing here is an error,
	// so after a restart load them again (schema.Load reads them).
	Databases map[string]schema.Database
	// Collations maps a charset to the server's default collation for it.
	Collations map[string]string
	// Flavor is "mariadb" or "mysql": generated constraint names and the
	// JSON type differ.
	Flavor                       string
	ExplicitDefaultsForTimestamp bool
}

// NewSchema starts the tracked schema from a loaded catalog.
func NewSchema(c *schema.Catalog) *Schema {
	s := &Schema{
		Tables:                       map[schema.TableID]*schema.Table{},
		Databases:                    map[string]schema.Database{},
		Collations:                   map[string]string{},
		Flavor:                       c.Flavor,
		ExplicitDefaultsForTimestamp: c.ExplicitDefaultsForTimestamp,
	}
	for _, t := range c.Tables {
		s.Tables[t.TableID] = t
	}
	for _, d := range c.Databases {
		s.Databases[d.Name] = d
	}
	for k, v := range c.Collations {
		s.Collations[k] = v
	}
	return s
}

// Apply moves the schema to the state after r: new table versions, drops,
// renames and database changes.
func (s *Schema) Apply(r *Result) {
	if r == nil {
		return
	}
	for _, id := range r.Dropped {
		delete(s.Tables, id)
	}
	for _, t := range r.Tables {
		s.Tables[t.TableID] = t
	}
	for name, d := range r.Databases {
		if d == nil {
			delete(s.Databases, name)
			continue
		}
		s.Databases[name] = *d
	}
}

// Table returns the current version of a table, or nil.
func (s *Schema) Table(id schema.TableID) *schema.Table { return s.Tables[id] }

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
func (s *Schema) defaultCollation(cs string) (string, error) {
	if c, ok := s.Collations[cs]; ok {
		return c, nil
	}
	if cs == "binary" {
		return "binary", nil
	}
	return "", fmt.Errorf("charset %s: default collation unknown (not in the source's information_schema.COLLATIONS)", cs)
}

// resolveCharset completes a (charset, collation) pair where either may be
// empty; both empty means "inherit" and is returned as is.
func (s *Schema) resolveCharset(cs, coll string) (string, string, error) {
	cs, coll = normCharset(cs), normCollation(coll)
	switch {
	case cs == "" && coll == "":
		return "", "", nil
	case coll == "":
		c, err := s.defaultCollation(cs)
		return cs, c, err
	case cs == "":
		return charsetOf(coll), coll, nil
	}
	return cs, coll, nil
}
