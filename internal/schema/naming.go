package schema

import (
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// MetaSchema is the PostgreSQL schema on the target that holds sluice's own
// state (checkpoint, schema history, snapshot progress). No source database
// may map to it.
const MetaSchema = "sluice"

// Naming maps MySQL names to PostgreSQL names: each MySQL database becomes
// a PostgreSQL schema of the same name unless --schema-map renames it; table,
// column, index and constraint names keep their exact spelling and case
// (they are always quoted).
type Naming struct {
	schemas map[string]string // source database → target schema
}

// NewNaming builds the mapping from --schema-map entries "src=dst".
func NewNaming(entries []string) (Naming, error) {
	n := Naming{schemas: map[string]string{}}
	for _, e := range entries {
		src, dst, ok := strings.Cut(strings.TrimSpace(e), "=")
		src, dst = strings.TrimSpace(src), strings.TrimSpace(dst)
		if !ok || src == "" || dst == "" {
			return Naming{}, fmt.Errorf("--schema-map %q: want source_database=target_schema, e.g. shop=public", e)
		}
		if prev, dup := n.schemas[src]; dup && prev != dst {
			return Naming{}, fmt.Errorf("--schema-map: database %s mapped twice (to %s and %s)", src, prev, dst)
		}
		if dst == MetaSchema {
			return Naming{}, fmt.Errorf("--schema-map %q: schema %q is reserved for sluice's own state", e, MetaSchema)
		}
		n.schemas[src] = dst
	}
	return n, nil
}

// Schema returns the target schema name (unquoted) for a source database.
func (n Naming) Schema(db string) string {
	if s, ok := n.schemas[db]; ok {
		return s
	}
	return db
}

// CheckDatabases returns an error when a source database in scope would land
// in sluice's metadata schema.
func (n Naming) CheckDatabases(dbs []string) error {
	for _, db := range dbs {
		if n.Schema(db) == MetaSchema {
			return fmt.Errorf("source database %q would become PostgreSQL schema %q, which sluice reserves for its state: "+
				"rename it with --schema-map %s=other_name", db, MetaSchema, db)
		}
	}
	return nil
}

// QSchema returns the quoted target schema of a source database.
func (n Naming) QSchema(db string) string { return QuoteIdent(n.Schema(db)) }

// QTable returns the quoted, schema-qualified target name of a source table.
func (n Naming) QTable(id TableID) string {
	return pgx.Identifier{n.Schema(id.Database), id.Name}.Sanitize()
}

// QName returns a quoted name in the target schema of db (for indexes,
// sequences, functions and other schema-level objects).
func (n Naming) QName(db, name string) string {
	return pgx.Identifier{n.Schema(db), name}.Sanitize()
}

// QuoteIdent quotes one PostgreSQL identifier, keeping its case.
func QuoteIdent(name string) string { return pgx.Identifier{name}.Sanitize() }

// QuoteIdents quotes each name and joins them with ", ".
func QuoteIdents(names []string) string {
	q := make([]string, len(names))
	for i, s := range names {
		q[i] = QuoteIdent(s)
	}
	return strings.Join(q, ", ")
}

// Map returns a copy of the explicit --schema-map entries.
func (n Naming) Map() map[string]string {
	m := make(map[string]string, len(n.schemas))
	for k, v := range n.schemas {
		m[k] = v
	}
	return m
}
