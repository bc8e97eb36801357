package schema

import (
	"fmt"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"
)

// MetaSchema is the PostgreSQL schema on the target that holds sluice's own
// state (checkpoint, schema history, snapshot progress). No source database
// may map to it.
const MetaSchema = "sluice"

// MaxIdent is PostgreSQL's identifier limit in bytes (NAMEDATALEN-1): a
// longer name is cut silently by the server, so sluice refuses it instead.
const MaxIdent = 63

// Identifier policies of --identifiers.
const (
	IdentPreserve = "preserve" // names keep their exact spelling and case (always quoted)
	IdentLower    = "lower"    // names are lower-cased on the target
)

// NamingOptions are the naming flags: --schema-map, --identifiers, --rename
// and --exclude-columns.
type NamingOptions struct {
	SchemaMap      []string
	Identifiers    string
	Renames        []string
	ExcludeColumns []string
	// RowPolicy is the stream's row filters and column masks, one line each
	// (rowpolicy.Policy.Describe: the key's fingerprint, never the key).
	RowPolicy []string `json:",omitempty"`
}

// Naming maps MySQL names to PostgreSQL names, the one mapping every
// PostgreSQL path (snapshot, replication and its DDL, verify, repair)
// uses: each MySQL database becomes a PostgreSQL schema of the same name
// unless --schema-map renames it; tables and columns keep their name unless
// --rename gives them another; with --identifiers lower every name that was
// not given explicitly (schema, table, column, index, constraint) is
// lower-cased. Names are always quoted. --exclude-columns columns do not
// exist on the target.
//
// Lookups take source names: table names exactly (as TableID compares
// them), column names case-insensitively (as MySQL compares them).
type Naming struct {
	schemas  map[string]string             // source database → target schema
	lower    bool                          // --identifiers lower
	tables   map[TableID]string            // --rename db.t=new
	columns  map[TableID]map[string]string // --rename db.t.c=new, keyed by lower-cased column
	excluded map[TableID]map[string]bool   // --exclude-columns, keyed by lower-cased column
	opts     NamingOptions
	// anyLength: the target takes every name the source has (a MySQL or
	// MariaDB target), so PostgreSQL's 63-byte limit does not apply.
	anyLength bool
}

// ForMySQLTarget is n for a MySQL or MariaDB target: the source's names,
// whose length the source already bounds, without PostgreSQL's 63-byte limit.
func (n Naming) ForMySQLTarget() Naming {
	n.anyLength = true
	return n
}

// NewNaming builds the mapping from --schema-map entries "src=dst" alone.
func NewNaming(entries []string) (Naming, error) {
	return NewNamingOptions(NamingOptions{SchemaMap: entries})
}

// NewNamingOptions builds the mapping from every naming flag.
func NewNamingOptions(o NamingOptions) (Naming, error) {
	n := Naming{schemas: map[string]string{}, tables: map[TableID]string{},
		columns: map[TableID]map[string]string{}, excluded: map[TableID]map[string]bool{}}
	for _, e := range o.SchemaMap {
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
	switch strings.ToLower(strings.TrimSpace(o.Identifiers)) {
	case "", IdentPreserve:
		o.Identifiers = IdentPreserve
	case IdentLower:
		o.Identifiers, n.lower = IdentLower, true
	default:
		return Naming{}, fmt.Errorf("--identifiers %q: want preserve (names keep their case) or lower", o.Identifiers)
	}
	for _, e := range o.Renames {
		src, dst, ok := strings.Cut(strings.TrimSpace(e), "=")
		parts := strings.Split(strings.TrimSpace(src), ".")
		dst = strings.TrimSpace(dst)
		if !ok || dst == "" || len(parts) < 2 || len(parts) > 3 || hasEmpty(parts) {
			return Naming{}, fmt.Errorf("--rename %q: want db.table=new_name or db.table.column=new_name", e)
		}
		if len(dst) > MaxIdent {
			return Naming{}, fmt.Errorf("--rename %q: %q is %d bytes; PostgreSQL keeps only %d", e, dst, len(dst), MaxIdent)
		}
		id := TableID{Database: parts[0], Name: parts[1]}
		if len(parts) == 2 {
			if prev, dup := n.tables[id]; dup && prev != dst {
				return Naming{}, fmt.Errorf("--rename: table %s renamed twice (to %s and %s)", id, prev, dst)
			}
			n.tables[id] = dst
			continue
		}
		col := strings.ToLower(parts[2])
		if n.columns[id] == nil {
			n.columns[id] = map[string]string{}
		}
		if prev, dup := n.columns[id][col]; dup && prev != dst {
			return Naming{}, fmt.Errorf("--rename: column %s.%s renamed twice (to %s and %s)", id, parts[2], prev, dst)
		}
		n.columns[id][col] = dst
	}
	for _, e := range o.ExcludeColumns {
		parts := strings.Split(strings.TrimSpace(e), ".")
		if len(parts) != 3 || hasEmpty(parts) {
			return Naming{}, fmt.Errorf("--exclude-columns %q: want db.table.column", e)
		}
		id := TableID{Database: parts[0], Name: parts[1]}
		if n.excluded[id] == nil {
			n.excluded[id] = map[string]bool{}
		}
		n.excluded[id][strings.ToLower(parts[2])] = true
	}
	n.opts = NamingOptions{SchemaMap: sorted(o.SchemaMap), Identifiers: o.Identifiers,
		Renames: sorted(o.Renames), ExcludeColumns: sorted(o.ExcludeColumns), RowPolicy: sorted(o.RowPolicy)}
	return n, nil
}

func hasEmpty(parts []string) bool {
	for _, p := range parts {
		if strings.TrimSpace(p) == "" {
			return true
		}
	}
	return false
}

func sorted(s []string) []string {
	out := make([]string, 0, len(s))
	for _, e := range s {
		out = append(out, strings.TrimSpace(e))
	}
	sort.Strings(out)
	return out
}

// Options returns the naming flags in a canonical form (sorted, trimmed,
// the identifier policy spelled out): the mapping's identity, recorded with
// a stream so a later run cannot route rows under other names.
func (n Naming) Options() NamingOptions {
	o := n.opts
	if o.Identifiers == "" {
		o.Identifiers = IdentPreserve
	}
	return o
}

// Differs names the naming options in which n and a recorded mapping
// differ, empty when they agree.
func (o NamingOptions) Differs(recorded NamingOptions) []string {
	var out []string
	if strings.Join(o.SchemaMap, "\x00") != strings.Join(recorded.SchemaMap, "\x00") {
		out = append(out, fmt.Sprintf("--schema-map (recorded %v, now %v)", recorded.SchemaMap, o.SchemaMap))
	}
	if o.Identifiers != recorded.Identifiers {
		out = append(out, fmt.Sprintf("--identifiers (recorded %s, now %s)", recorded.Identifiers, o.Identifiers))
	}
	if strings.Join(o.Renames, "\x00") != strings.Join(recorded.Renames, "\x00") {
		out = append(out, fmt.Sprintf("--rename (recorded %v, now %v)", recorded.Renames, o.Renames))
	}
	if strings.Join(o.ExcludeColumns, "\x00") != strings.Join(recorded.ExcludeColumns, "\x00") {
		out = append(out, fmt.Sprintf("--exclude-columns (recorded %v, now %v)", recorded.ExcludeColumns, o.ExcludeColumns))
	}
	if strings.Join(o.RowPolicy, "\x00") != strings.Join(recorded.RowPolicy, "\x00") {
		out = append(out, fmt.Sprintf("--where/--mask (recorded %q, now %q)", recorded.RowPolicy, o.RowPolicy))
	}
	return out
}

// Renames reports whether the mapping changes any table or column name or
// leaves out columns (beyond --schema-map): a MySQL target, which replays
// the source's own DDL, cannot follow that.
func (n Naming) Renames() bool {
	return n.lower || len(n.tables) > 0 || len(n.columns) > 0 || len(n.excluded) > 0
}

// Lower reports whether --identifiers lower is in effect.
func (n Naming) Lower() bool { return n.lower }

// fold applies the identifier policy to a name that was not given explicitly.
func (n Naming) fold(name string) string {
	if n.lower {
		return strings.ToLower(name)
	}
	return name
}

// Schema returns the target schema name (unquoted) for a source database.
func (n Naming) Schema(db string) string {
	if s, ok := n.schemas[db]; ok {
		return s
	}
	return n.fold(db)
}

// Table returns the target table name (unquoted) of a source table.
func (n Naming) Table(id TableID) string {
	if s, ok := n.tables[id]; ok {
		return s
	}
	return n.fold(id.Name)
}

// Column returns the target name (unquoted) of a column of a source table.
func (n Naming) Column(id TableID, col string) string {
	if s, ok := n.columns[id][strings.ToLower(col)]; ok {
		return s
	}
	return n.fold(col)
}

// Ident returns the target spelling of an index or constraint name (the
// identifier policy; derived names add the table's target name).
func (n Naming) Ident(name string) string { return n.fold(name) }

// Excluded reports whether --exclude-columns leaves the column out.
func (n Naming) Excluded(id TableID, col string) bool {
	return n.excluded[id][strings.ToLower(col)]
}

// ExcludedColumns returns the --exclude-columns entries of a table (lower-cased).
func (n Naming) ExcludedColumns(id TableID) []string {
	var out []string
	for c := range n.excluded[id] {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

// Keep returns the column indexes of t (from cols) that exist on the
// target: those --exclude-columns does not leave out.
func (n Naming) Keep(t *Table, cols []int) []int {
	if len(n.excluded[t.TableID]) == 0 {
		return cols
	}
	out := make([]int, 0, len(cols))
	for _, i := range cols {
		if !n.Excluded(t.TableID, t.Columns[i].Name) {
			out = append(out, i)
		}
	}
	return out
}

// QColumn returns the quoted target name of a column of a source table.
func (n Naming) QColumn(id TableID, col string) string { return QuoteIdent(n.Column(id, col)) }

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
	return pgx.Identifier{n.Schema(id.Database), n.Table(id)}.Sanitize()
}

// Ident2 returns the unquoted target schema and table of a source table.
func (n Naming) Ident2(id TableID) pgx.Identifier {
	return pgx.Identifier{n.Schema(id.Database), n.Table(id)}
}

// QName returns a quoted name in the target schema of db (for indexes,
// sequences, functions and other schema-level objects); name is already
// the target's spelling.
func (n Naming) QName(db, name string) string {
	return pgx.Identifier{n.Schema(db), name}.Sanitize()
}

// QuoteIdent quotes one PostgreSQL identifier, keeping its case.
func QuoteIdent(name string) string { return pgx.Identifier{name}.Sanitize() }

// QuoteMySQL quotes one MySQL/MariaDB identifier: backquotes, an inner
// backquote doubled. It is the one copy every MySQL-facing package uses.
func QuoteMySQL(name string) string { return "`" + strings.ReplaceAll(name, "`", "``") + "`" }

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

// RefuseForMySQL refuses --identifiers lower, --rename and --exclude-columns
// for a MySQL target: that target replays the source's own DDL text and
// keeps the source's names, so it cannot follow another mapping.
func RefuseForMySQL(o NamingOptions) error {
	var set []string
	if id := strings.ToLower(strings.TrimSpace(o.Identifiers)); id != "" && id != IdentPreserve {
		set = append(set, "--identifiers "+o.Identifiers)
	}
	if len(o.Renames) > 0 {
		set = append(set, "--rename")
	}
	if len(o.ExcludeColumns) > 0 {
		set = append(set, "--exclude-columns")
	}
	if len(set) == 0 {
		return nil
	}
	return fmt.Errorf("%s: not supported for a MySQL target (it keeps the source's names and columns, replaying the source's own DDL); "+
		"these options apply to a postgres:// target", strings.Join(set, ", "))
}
