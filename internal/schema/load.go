package schema

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/sluice-db/sluice/internal/exitcode"
)

// Catalog is what Load reads from the source: the tables in scope and the
// objects sluice does not migrate, which the report lists.
type Catalog struct {
	Tables      []*Table // sorted by Database, Name
	NotMigrated []Object // sorted by Database, Kind, Name
	// Databases are the in-scope databases with their default charset and
	// collation (the DDL parser needs them for CREATE TABLE without CHARSET).
	Databases []Database
	// Collations maps each charset to the source server's default collation.
	Collations map[string]string
	Flavor     string // "mariadb" or "mysql"
	Version    string // VERSION() of the source
	// ExplicitDefaultsForTimestamp is the server's
	// explicit_defaults_for_timestamp: when off, a TIMESTAMP column declared
	// without NULL is NOT NULL (the DDL parser needs it).
	ExplicitDefaultsForTimestamp bool
	// Server holds the server's default charset and collation
	// (character_set_server, collation_server), for CREATE DATABASE without them.
	Server Database
}

// Object is a source object that sluice does not migrate.
type Object struct {
	Kind     string // "view", "trigger", "procedure", "function", "event", "sequence"
	Database string
	Name     string
}

func (o Object) String() string { return o.Kind + " " + o.Database + "." + o.Name }

// Database is a source database and its defaults.
type Database struct {
	Name      string
	Charset   string
	Collation string
}

// Table returns the table with the given id or nil.
func (c *Catalog) Table(id TableID) *Table {
	i := sort.Search(len(c.Tables), func(i int) bool { return !lessID(c.Tables[i].TableID, id) })
	if i < len(c.Tables) && c.Tables[i].TableID == id {
		return c.Tables[i]
	}
	return nil
}

func lessID(a, b TableID) bool {
	if a.Database != b.Database {
		return a.Database < b.Database
	}
	return a.Name < b.Name
}

// loader holds one Load call's connection and what it learned about the server.
type loader struct {
	conn    *sql.Conn
	filter  Filter
	flavor  string
	version string
	// isCols holds "TABLE.COLUMN" for the information_schema columns this
	// server has, so queries adapt to MariaDB 10.x and MySQL 5.7/8.0.
	isCols map[string]bool
	dbs    []string // in-scope databases, for IN (...) lists
}

// Load reads the schema of every table in scope from information_schema with
// a fixed number of set-based queries (independent of the number of tables).
func Load(ctx context.Context, db *sql.DB, f Filter) (*Catalog, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("load schema: connect: %w", err)
	}
	defer conn.Close()
	l := &loader{conn: conn, filter: f}
	if err := l.probe(ctx); err != nil {
		return nil, fmt.Errorf("load schema: %w", err)
	}
	cat, err := l.load(ctx)
	if err != nil {
		return nil, fmt.Errorf("load schema: %w", err)
	}
	if err := checkLiteralIncludes(cat, f); err != nil {
		return nil, err
	}
	return cat, nil
}

func (l *loader) probe(ctx context.Context) error {
	if err := l.conn.QueryRowContext(ctx, "SELECT VERSION()").Scan(&l.version); err != nil {
		return fmt.Errorf("read server version: %w", err)
	}
	l.flavor = "mysql"
	if strings.Contains(strings.ToLower(l.version), "mariadb") {
		l.flavor = "mariadb"
	} else {
		// MySQL 8 caches AUTO_INCREMENT in information_schema.TABLES for a day
		// by default; this session needs the current value. Older servers do
		// not know the variable, which is fine: they do not cache.
		_, _ = l.conn.ExecContext(ctx, "SET SESSION information_schema_stats_expiry = 0")
	}
	rows, err := l.conn.QueryContext(ctx, `SELECT UPPER(TABLE_NAME), UPPER(COLUMN_NAME) FROM information_schema.COLUMNS
		WHERE TABLE_SCHEMA = 'information_schema'
		AND TABLE_NAME IN ('COLUMNS', 'STATISTICS', 'CHECK_CONSTRAINTS', 'TABLE_CONSTRAINTS')`)
	if err != nil {
		return fmt.Errorf("probe information_schema: %w", err)
	}
	defer rows.Close()
	l.isCols = map[string]bool{}
	for rows.Next() {
		var t, c string
		if err := rows.Scan(&t, &c); err != nil {
			return fmt.Errorf("probe information_schema: %w", err)
		}
		l.isCols[t+"."+c] = true
	}
	return rows.Err()
}

func (l *loader) load(ctx context.Context) (*Catalog, error) {
	cat := &Catalog{Flavor: l.flavor, Version: l.version}
	var explicit sql.NullString
	if err := l.conn.QueryRowContext(ctx, "SELECT @@global.explicit_defaults_for_timestamp").Scan(&explicit); err == nil {
		cat.ExplicitDefaultsForTimestamp = explicit.String == "1" || strings.EqualFold(explicit.String, "ON")
	}
	if err := l.conn.QueryRowContext(ctx, "SELECT @@global.character_set_server, @@global.collation_server").
		Scan(&cat.Server.Charset, &cat.Server.Collation); err != nil {
		return nil, fmt.Errorf("read server charset: %w", err)
	}
	var err error
	if cat.Collations, err = l.loadCollations(ctx); err != nil {
		return nil, err
	}
	if cat.Databases, err = l.loadDatabases(ctx); err != nil {
		return nil, err
	}
	for _, d := range cat.Databases {
		l.dbs = append(l.dbs, d.Name)
	}
	if len(l.dbs) == 0 {
		return cat, nil
	}
	byID, objs, err := l.loadTables(ctx)
	if err != nil {
		return nil, err
	}
	cat.NotMigrated = objs
	steps := []func(context.Context, map[TableID]*Table) error{
		l.loadColumns, l.loadIndexes, l.loadForeignKeys, l.loadChecks,
	}
	for _, step := range steps {
		if err := step(ctx, byID); err != nil {
			return nil, err
		}
	}
	more, err := l.loadObjects(ctx)
	if err != nil {
		return nil, err
	}
	cat.NotMigrated = append(cat.NotMigrated, more...)
	for _, t := range byID {
		SortKeys(t)
		cat.Tables = append(cat.Tables, t)
	}
	sort.Slice(cat.Tables, func(i, j int) bool { return lessID(cat.Tables[i].TableID, cat.Tables[j].TableID) })
	sort.Slice(cat.NotMigrated, func(i, j int) bool {
		a, b := cat.NotMigrated[i], cat.NotMigrated[j]
		if a.Database != b.Database {
			return a.Database < b.Database
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.Name < b.Name
	})
	return cat, nil
}

// loadCollations maps each charset to its default collation: COLLATIONS' IS_DEFAULT, then
// MariaDB's COLLATION_CHARACTER_SET_APPLICABILITY, whose IS_DEFAULT follows
// character_set_collations (MariaDB 11.8 makes utf8mb3/utf8mb4/utf16/... default to their
// uca1400 collations there only; COLLATIONS marks none of theirs). MySQL and MariaDB before
// 10.10 have no such columns: COLLATIONS alone.
func (l *loader) loadCollations(ctx context.Context) (map[string]string, error) {
	m := map[string]string{}
	if err := l.readCollations(ctx, m, `SELECT CHARACTER_SET_NAME, COLLATION_NAME
		FROM information_schema.COLLATIONS WHERE IS_DEFAULT = 'Yes'`); err != nil {
		return nil, err
	}
	err := l.readCollations(ctx, m, `SELECT CHARACTER_SET_NAME, FULL_COLLATION_NAME
		FROM information_schema.COLLATION_CHARACTER_SET_APPLICABILITY WHERE IS_DEFAULT = 'Yes'`)
	var me *mysql.MySQLError
	if errors.As(err, &me) && me.Number == 1054 { // unknown column: not MariaDB 10.10+
		err = nil
	}
	return m, err
}

func (l *loader) readCollations(ctx context.Context, m map[string]string, q string) error {
	rows, err := l.conn.QueryContext(ctx, q)
	if err != nil {
		return fmt.Errorf("read collations: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var cs, coll string
		if err := rows.Scan(&cs, &coll); err != nil {
			return fmt.Errorf("read collations: %w", err)
		}
		m[cs] = coll
	}
	return rows.Err()
}

func (l *loader) loadDatabases(ctx context.Context) ([]Database, error) {
	rows, err := l.conn.QueryContext(ctx, `SELECT SCHEMA_NAME, DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME
		FROM information_schema.SCHEMATA ORDER BY SCHEMA_NAME`)
	if err != nil {
		return nil, fmt.Errorf("read databases: %w", err)
	}
	defer rows.Close()
	var dbs []Database
	for rows.Next() {
		var d Database
		if err := rows.Scan(&d.Name, &d.Charset, &d.Collation); err != nil {
			return nil, fmt.Errorf("read databases: %w", err)
		}
		if l.filter.MatchDatabase(d.Name) {
			dbs = append(dbs, d)
		}
	}
	return dbs, rows.Err()
}

// inList returns "(?, ?, ...)" and the arguments for the in-scope databases.
func (l *loader) inList() (string, []any) {
	args := make([]any, len(l.dbs))
	for i, d := range l.dbs {
		args[i] = d
	}
	return "(" + strings.TrimSuffix(strings.Repeat("?, ", len(l.dbs)), ", ") + ")", args
}

// query runs a query whose text contains one %s for the database IN list.
func (l *loader) query(ctx context.Context, what, q string) (*sql.Rows, error) {
	in, args := l.inList()
	rows, err := l.conn.QueryContext(ctx, fmt.Sprintf(q, in), args...)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", what, err)
	}
	return rows, nil
}

// checkLiteralIncludes fails when an --include names one table (no
// wildcards) that does not exist on the source.
func checkLiteralIncludes(cat *Catalog, f Filter) error {
	var errs []error
	for _, id := range f.LiteralIncludes() {
		if !f.Match(id.Database, id.Name) || cat.Table(id) != nil {
			continue // excluded on purpose, or found
		}
		msg := fmt.Sprintf("table %s not found on the source", id)
		for _, o := range cat.NotMigrated {
			if o.Database == id.Database && o.Name == id.Name {
				msg = fmt.Sprintf("table %s not found on the source: it is a %s, which sluice does not migrate", id, o.Kind)
			}
		}
		errs = append(errs, errors.New(msg+" (check --include)"))
	}
	return exitcode.ConfigError(errors.Join(errs...))
}
