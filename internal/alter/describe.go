package alter

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/sluice-db/sluice/internal/schema"
)

// tableDef is what the plan compares between the old and the new
// definition, read with SHOW FULL COLUMNS and SHOW INDEX so that it also
// works on a temporary table (--dry-run tries the ALTER on one).
type tableDef struct {
	Columns []colDef
	Keys    []keyDef // the primary key first, then unique keys, in index order
	// Indexes: the columns of every index, unique or not (a foreign key
	// needs one that starts with its columns).
	Indexes [][]string
}

type colDef struct {
	Name      string
	Type      string // full column type, e.g. "int(10) unsigned"
	Collation string
	Nullable  bool
	Generated bool
}

// keyDef is a unique key; Usable when it identifies a row: every column NOT
// NULL, whole columns (no prefix, no expression).
type keyDef struct {
	Name    string
	Columns []string
	Usable  bool
}

func (d *tableDef) column(name string) *colDef {
	for i := range d.Columns {
		if strings.EqualFold(d.Columns[i].Name, name) {
			return &d.Columns[i]
		}
	}
	return nil
}

// describe reads the definition of db.name on conn.
func describe(ctx context.Context, q querier, db, name string) (*tableDef, error) {
	full := schema.QuoteMySQL(db) + "." + schema.QuoteMySQL(name)
	rows, err := queryMaps(ctx, q, "SHOW FULL COLUMNS FROM "+full)
	if err != nil {
		return nil, fmt.Errorf("read columns of %s: %w", full, err)
	}
	d := &tableDef{}
	for _, r := range rows {
		extra := strings.ToUpper(r["extra"])
		d.Columns = append(d.Columns, colDef{
			Name: r["field"], Type: r["type"], Collation: r["collation"],
			Nullable:  r["null"] == "YES",
			Generated: strings.Contains(extra, "GENERATED") || strings.Contains(extra, "VIRTUAL") || strings.Contains(extra, "PERSISTENT") || strings.Contains(extra, "STORED"),
		})
	}
	idx, err := queryMaps(ctx, q, "SHOW INDEX FROM "+full)
	if err != nil {
		return nil, fmt.Errorf("read indexes of %s: %w", full, err)
	}
	byName := map[string]*keyDef{}
	var order []string
	d.Indexes = indexColumns(idx)
	for _, r := range idx {
		if r["non_unique"] != "0" {
			continue
		}
		k := byName[r["key_name"]]
		if k == nil {
			k = &keyDef{Name: r["key_name"], Usable: true}
			byName[k.Name] = k
			order = append(order, k.Name)
		}
		seq, _ := strconv.Atoi(r["seq_in_index"])
		col := r["column_name"]
		for len(k.Columns) < seq {
			k.Columns = append(k.Columns, "")
		}
		k.Columns[seq-1] = col
		c := d.column(col)
		if col == "" || r["sub_part"] != "" || c == nil || c.Nullable {
			k.Usable = false
		}
	}
	if k := byName["PRIMARY"]; k != nil {
		d.Keys = append(d.Keys, *k)
	}
	for _, n := range order {
		if n != "PRIMARY" {
			d.Keys = append(d.Keys, *byName[n])
		}
	}
	return d, nil
}

// indexColumns are the columns of each index of SHOW INDEX's rows, in
// their order.
func indexColumns(idx []map[string]string) [][]string {
	var out [][]string
	at := map[string]int{}
	for _, r := range idx {
		i, ok := at[r["key_name"]]
		if !ok {
			i = len(out)
			at[r["key_name"]] = i
			out = append(out, nil)
		}
		seq, _ := strconv.Atoi(r["seq_in_index"])
		for len(out[i]) < seq {
			out[i] = append(out[i], "")
		}
		out[i][seq-1] = r["column_name"]
	}
	return out
}

// querier is a *sql.DB, *sql.Conn or *sql.Tx.
type querier interface {
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error)
}

// queryMaps returns every row as lower-case column name → text (NULL: "").
func queryMaps(ctx context.Context, q querier, query string, args ...any) ([]map[string]string, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out []map[string]string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		m := make(map[string]string, len(cols))
		for i, c := range cols {
			m[strings.ToLower(c)] = vals[i].String
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// sharedKey returns a key that is a usable unique key of both definitions,
// with the same column types and collations on both sides (so a key value
// read from the old table finds the same row in the new one): the old
// primary key when it qualifies, else the first old unique key that does.
// It returns the old table's index name and the columns.
func sharedKey(old, new *tableDef) (string, []string) {
	for _, ko := range old.Keys {
		if !ko.Usable {
			continue
		}
		for _, kn := range new.Keys {
			if kn.Usable && sameSet(ko.Columns, kn.Columns) && sameTypes(old, new, ko.Columns) {
				return ko.Name, ko.Columns
			}
		}
	}
	return "", nil
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		found := false
		for _, y := range b {
			found = found || strings.EqualFold(x, y)
		}
		if !found {
			return false
		}
	}
	return true
}

func sameTypes(old, new *tableDef, cols []string) bool {
	for _, c := range cols {
		o, n := old.column(c), new.column(c)
		if o == nil || n == nil || !strings.EqualFold(o.Type, n.Type) || !strings.EqualFold(o.Collation, n.Collation) {
			return false
		}
	}
	return true
}

// sharedColumns are the columns the copy carries over: in both definitions
// and not generated in the new one (the server computes those). dropped are
// the old columns the new definition lacks.
func sharedColumns(old, new *tableDef) (shared, dropped []string) {
	for _, c := range old.Columns {
		n := new.column(c.Name)
		switch {
		case n == nil:
			dropped = append(dropped, c.Name)
		case !n.Generated:
			shared = append(shared, c.Name)
		}
	}
	return shared, dropped
}
