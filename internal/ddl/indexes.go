package ddl

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/sqlexpr"
	"github.com/sluice-db/sluice/internal/typemap"
)

// createIndex returns the statements for one MySQL index (the index and its
// comment) and a warning when the PostgreSQL index differs from MySQL's:
//   - prefix key parts become left(col, n) (text) or substr(col, 1, n)
//     (bytea) expressions, which keeps UNIQUE prefix semantics exact; queries
//     must use the same expression to use the index;
//   - FULLTEXT becomes a GIN index on to_tsvector('simple', ...);
//   - SPATIAL becomes GiST with PostGIS, else it is skipped;
//   - HASH and BTREE become btree; descending parts stay descending.
func createIndex(t *schema.Table, ix schema.Index, m *typemap.Mapper, n schema.Naming) ([]string, string) {
	name := IndexName(n.Table(t.TableID), n.Ident(ix.Name))
	qname := n.QTable(t.TableID)
	var stmt, warn string
	switch ix.Kind {
	case "FULLTEXT":
		parts := make([]string, 0, len(ix.Columns))
		for _, ic := range ix.Columns {
			parts = append(parts, "coalesce("+colName(t, ic.Name, n)+", '')")
		}
		stmt = "CREATE INDEX IF NOT EXISTS " + q(name) + " ON " + qname + " USING gin (to_tsvector('simple', " +
			strings.Join(parts, " || ' ' || ") + "))"
		warn = fmt.Sprintf("%s: FULLTEXT index %s becomes GIN index %s on to_tsvector('simple', ...): "+
			"MATCH ... AGAINST queries must be rewritten to use @@", t, ix.Name, name)
	case "SPATIAL":
		if !m.Options().PostGIS {
			return nil, fmt.Sprintf("%s: SPATIAL index %s not created: the target has no PostGIS (geometry is stored as bytea)",
				t, ix.Name)
		}
		stmt = "CREATE INDEX IF NOT EXISTS " + q(name) + " ON " + qname + " USING gist (" + colName(t, ix.Columns[0].Name, n) + ")"
	default:
		keys, prefixes, err := indexKeys(t, ix, m, n)
		if err != nil {
			return nil, fmt.Sprintf("%s: index %s not created: %v", t, ix.Name, err)
		}
		unique := ""
		if ix.Unique {
			unique = "UNIQUE "
		}
		stmt = "CREATE " + unique + "INDEX IF NOT EXISTS " + q(name) + " ON " + qname + " (" + strings.Join(keys, ", ") + ")"
		if len(prefixes) > 0 {
			warn = fmt.Sprintf("%s: index %s has prefix key parts (%s): indexed as expressions %s",
				t, ix.Name, strings.Join(prefixes, ", "), strings.Join(keys, ", "))
		}
	}
	stmts := []string{stmt}
	if ix.Comment != "" {
		stmts = append(stmts, "COMMENT ON INDEX "+n.QName(t.Database, name)+" IS "+sqlexpr.QuotePG(stripNUL(ix.Comment)))
	}
	return stmts, warn
}

func colName(t *schema.Table, name string, n schema.Naming) string {
	if c := t.Column(name); c != nil {
		return n.QColumn(t.TableID, c.Name)
	}
	return n.QColumn(t.TableID, name)
}

// indexKeys translates the key parts of a btree index.
func indexKeys(t *schema.Table, ix schema.Index, m *typemap.Mapper, n schema.Naming) (keys, prefixes []string, err error) {
	x := newExprTranslator(t, m, sqlexpr.Index, n)
	for _, ic := range ix.Columns {
		var key string
		switch {
		case ic.Expression != "":
			e, err := x.translateText(ic.Expression)
			if err != nil {
				return nil, nil, fmt.Errorf("functional key part %s: %w", ic.Expression, err)
			}
			key = parens(e.SQL)
		case ic.SubPart > 0:
			c := t.Column(ic.Name)
			if c == nil {
				return nil, nil, fmt.Errorf("unknown column %s", ic.Name)
			}
			_, kind, err := m.PGType(*c)
			if err != nil {
				return nil, nil, err
			}
			switch kind {
			case typemap.KindBinary:
				key = "substr(" + n.QColumn(t.TableID, c.Name) + ", 1, " + strconv.Itoa(ic.SubPart) + ")"
			case typemap.KindText:
				key = "left(" + n.QColumn(t.TableID, c.Name) + ", " + strconv.Itoa(ic.SubPart) + ")"
			default:
				key = n.QColumn(t.TableID, c.Name) // a prefix of a whole value (e.g. JSON) : index the value
			}
			prefixes = append(prefixes, c.Name+"("+strconv.Itoa(ic.SubPart)+")")
		default:
			key = colName(t, ic.Name, n)
		}
		if ic.Desc {
			key += " DESC"
		}
		keys = append(keys, key)
	}
	return keys, prefixes, nil
}

// addForeignKey writes ALTER TABLE ... ADD CONSTRAINT ... FOREIGN KEY.
func addForeignKey(qname string, t *schema.Table, fk schema.ForeignKey, n schema.Naming) string {
	refID := schema.TableID{Database: fk.RefDatabase, Name: fk.RefTable}
	ref := n.QTable(refID)
	refCols := make([]string, len(fk.RefColumns))
	for i, c := range fk.RefColumns {
		refCols[i] = n.QColumn(refID, c)
	}
	s := "ALTER TABLE " + qname + " ADD CONSTRAINT " + q(ConstraintName(n.Ident(fk.Name))) + " FOREIGN KEY (" +
		quoteCols(t, fk.Columns, n) + ") REFERENCES " + ref + " (" + strings.Join(refCols, ", ") + ")"
	if a := fkAction(fk.OnDelete); a != "" {
		s += " ON DELETE " + a
	}
	if a := fkAction(fk.OnUpdate); a != "" {
		s += " ON UPDATE " + a
		if a == "CASCADE" {
			// MySQL 9 (foreign keys in the SQL layer, innodb_native_foreign_keys=OFF)
			// binlogs the cascaded child rows before the parent row that caused them:
			// a child arrives with the new key before its parent has it. Checking at
			// commit accepts that order; PostgreSQL's own cascade still runs at once
			// (referential actions are never deferred) and finds the children moved.
			s += " DEFERRABLE INITIALLY DEFERRED"
		}
	}
	return s
}

// fkAction maps a MySQL referential action; NO ACTION (the default) is omitted.
func fkAction(a string) string {
	switch strings.ToUpper(strings.TrimSpace(a)) {
	case "CASCADE":
		return "CASCADE"
	case "SET NULL":
		return "SET NULL"
	case "SET DEFAULT":
		return "SET DEFAULT"
	case "RESTRICT":
		return "RESTRICT"
	}
	return ""
}
