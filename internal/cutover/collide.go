package cutover

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/schema"
)

// Collision is a set of PostgreSQL rows whose unique key values are equal
// under the MySQL column's collation: the reverse stream could not write
// them all back into the MySQL table.
type Collision struct {
	Table  string   `json:"table"` // source db.table
	Key    string   `json:"key"`   // PRIMARY or the unique index name
	Values []string `json:"values"`
	Rows   int64    `json:"rows"`
}

func (c Collision) String() string {
	return fmt.Sprintf("%s key %s: %d rows with %s", c.Table, c.Key, c.Rows, strings.Join(c.Values, " / "))
}

// maxCollisions bounds the collisions reported per key.
const maxCollisions = 5

// collisions finds, for every unique key of a migrated table with a text
// column under a collation that folds case, accents or trailing spaces, the
// rows of the PostgreSQL table that MySQL would see as duplicates:
// PostgreSQL compares 'a'/'A', 'e'/'é' and 'a'/'a ' as different, MySQL's
// _ci PAD SPACE collations do not. An approximation of MySQL's collations:
// rtrim() for PAD SPACE ones, and for case-insensitive ones an ICU
// collation of the same strength (primary: case and accents ignored;
// secondary for MySQL's _as_ci: accents count), or lower() where
// PostgreSQL has no ICU.
func (r *run) collisions(ctx context.Context) ([]Collision, error) {
	icu := r.icuCollations(ctx)
	var out []Collision
	for _, t := range r.tables {
		for _, k := range uniqueKeys(t) {
			q, ok := collisionQuery(r.o.Naming, t, k, icu)
			if !ok {
				continue
			}
			rows, err := r.pg.Query(ctx, q)
			if err != nil {
				return nil, fmt.Errorf("unique key %s of %s: look for values equal under the MySQL collation: %w", k.name, t.TableID, err)
			}
			var n int64
			var vals []string
			_, err = pgx.ForEachRow(rows, []any{&n, &vals}, func() error {
				out = append(out, Collision{Table: t.TableID.String(), Key: k.name, Values: vals, Rows: n})
				return nil
			})
			if err != nil {
				return nil, fmt.Errorf("unique key %s of %s: %w", k.name, t.TableID, err)
			}
		}
	}
	return out, nil
}

type uniqueKey struct {
	name string
	cols []schema.IndexColumn
}

// uniqueKeys are the primary key and the unique indexes without
// functional parts.
func uniqueKeys(t *schema.Table) []uniqueKey {
	var out []uniqueKey
	if len(t.PrimaryKey) > 0 {
		k := uniqueKey{name: "PRIMARY"}
		for _, c := range t.PrimaryKey {
			k.cols = append(k.cols, schema.IndexColumn{Name: c})
		}
		out = append(out, k)
	}
next:
	for _, ix := range t.Indexes {
		if !ix.Unique || ix.Kind == "FULLTEXT" || ix.Kind == "SPATIAL" {
			continue
		}
		for _, c := range ix.Columns {
			if c.Name == "" {
				continue next
			}
		}
		out = append(out, uniqueKey{name: ix.Name, cols: ix.Columns})
	}
	return out
}

// collisionQuery groups the target table by the key folded as MySQL
// compares it; ok is false when no column of the key folds (PostgreSQL's
// own unique index then guarantees MySQL's too).
func collisionQuery(n schema.Naming, t *schema.Table, k uniqueKey, icu bool) (string, bool) {
	var group, notNull, shown []string
	folds := false
	for _, ic := range k.cols {
		c := t.Column(ic.Name)
		if c == nil {
			return "", false
		}
		col := n.QColumn(t.TableID, c.Name)
		expr := col
		if isText(c) {
			expr = col + "::text"
			if ic.SubPart > 0 {
				expr = fmt.Sprintf("left(%s, %d)", expr, ic.SubPart)
			}
			coll := strings.ToLower(c.Collation)
			if padSpace(coll) {
				expr, folds = "rtrim("+expr+", ' ')", true
			}
			switch {
			case !strings.Contains(coll, "_ci"):
			case !icu:
				expr, folds = "lower("+expr+")", true
			case strings.Contains(coll, "_as_"):
				expr, folds = expr+" COLLATE "+icuCaseInsensitive, true
			default:
				expr, folds = expr+" COLLATE "+icuCaseAccentInsensitive, true
			}
		}
		group = append(group, expr)
		notNull = append(notNull, col+" IS NOT NULL")
		shown = append(shown, "quote_literal("+col+"::text)")
	}
	if !folds {
		return "", false
	}
	// MySQL unique keys allow any number of NULLs: rows with a NULL part never collide.
	return fmt.Sprintf(`SELECT count(*), (array_agg(concat_ws(', ', %s)))[1:%d]
		FROM %s WHERE %s GROUP BY %s HAVING count(*) > 1 LIMIT %d`,
		strings.Join(shown, ", "), maxCollisions, n.QTable(t.TableID), strings.Join(notNull, " AND "),
		strings.Join(group, ", "), maxCollisions), true
}

func isText(c *schema.Column) bool {
	switch c.DataType {
	case "char", "varchar", "tinytext", "text", "mediumtext", "longtext", "enum", "set":
		return c.Charset != "binary"
	}
	return false
}

// padSpace reports whether a MySQL/MariaDB collation ignores trailing
// spaces: all but MySQL 8's _0900_ collations and MariaDB's _nopad_ ones.
func padSpace(coll string) bool {
	return coll != "" && !strings.Contains(coll, "_0900_") && !strings.Contains(coll, "nopad") && coll != "binary"
}

// The ICU collations the collision check groups by, created per session in
// pg_temp (nothing is left behind).
const (
	icuCaseAccentInsensitive = "pg_temp.sluice_ci_ai" // strength 1: base letters only
	icuCaseInsensitive       = "pg_temp.sluice_ci_as" // strength 2: accents count, case does not
)

// icuCollations creates them; false when PostgreSQL has no ICU (lower() is
// used then).
func (r *run) icuCollations(ctx context.Context) bool {
	for name, level := range map[string]string{icuCaseAccentInsensitive: "1", icuCaseInsensitive: "2"} {
		q := fmt.Sprintf("CREATE COLLATION IF NOT EXISTS %s (provider = icu, locale = 'und-u-ks-level%s', deterministic = false)", name, level)
		if _, err := r.pg.Exec(ctx, q); err != nil {
			r.log.Warn("cutover: no ICU collation on the target; the unique key check folds case with lower() and ignores accents", "err", err)
			return false
		}
	}
	return true
}
