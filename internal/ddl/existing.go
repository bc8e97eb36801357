package ddl

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/schema"
)

// DropTable returns the statements that remove a table sluice created,
// with its sequences, indexes, constraints and ON UPDATE trigger function
// (for --drop-existing and DROP TABLE replication).
func DropTable(id schema.TableID, n schema.Naming) []string {
	return []string{
		"DROP TABLE IF EXISTS " + n.QTable(id) + " CASCADE",
		"DROP FUNCTION IF EXISTS " + n.QName(id.Database, OnUpdateFunction(n.Table(id))) + "() CASCADE",
	}
}

// Querier is what CheckExisting needs: *pgx.Conn, pgx.Tx and *pgxpool.Pool have it.
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// ExistingColumn is one column of a table found on the target.
type ExistingColumn struct {
	Name   string
	PGType string // format_type() spelling
}

// CheckExisting compares the target's table (if any) with the plan. It
// returns exists=false when there is no such table, exists=true and nil when
// the table has exactly the planned columns (a resumed snapshot), and an
// error naming the differences otherwise.
func CheckExisting(ctx context.Context, db Querier, p *TablePlan, n schema.Naming) (exists bool, err error) {
	rows, err := db.Query(ctx, `SELECT a.attname::text, format_type(a.atttypid, a.atttypmod)
		FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace s ON s.oid = c.relnamespace
		WHERE s.nspname = $1 AND c.relname = $2 AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped
		ORDER BY a.attnum`, n.Schema(p.Table.Database), n.Table(p.Table.TableID))
	if err != nil {
		return false, fmt.Errorf("check target table %s: %w", p.QName, err)
	}
	cols, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (ExistingColumn, error) {
		var c ExistingColumn
		err := r.Scan(&c.Name, &c.PGType)
		return c, err
	})
	if err != nil {
		return false, fmt.Errorf("check target table %s: %w", p.QName, err)
	}
	if len(cols) == 0 {
		return false, nil
	}
	if diff := columnDiff(cols, p.Columns); diff != "" {
		return true, fmt.Errorf("target table %s already exists with other columns (%s): "+
			"drop it, or re-run with --drop-existing to replace it", p.QName, diff)
	}
	return true, nil
}

// columnDiff describes how the existing columns differ from the planned ones
// ("" when they are the same, in the same order, with the same types).
func columnDiff(have []ExistingColumn, want []PlannedColumn) string {
	var diffs []string
	for i := 0; i < len(have) || i < len(want); i++ {
		switch {
		case i >= len(have):
			diffs = append(diffs, "missing "+want[i].Name+" "+want[i].PGType)
		case i >= len(want):
			diffs = append(diffs, "extra "+have[i].Name+" "+have[i].PGType)
		case have[i].Name != want[i].Name:
			diffs = append(diffs, fmt.Sprintf("column %d is %s, want %s", i+1, have[i].Name, want[i].Name))
		case NormalizeType(have[i].PGType) != NormalizeType(want[i].PGType):
			diffs = append(diffs, fmt.Sprintf("%s is %s, want %s", have[i].Name, have[i].PGType, want[i].PGType))
		}
	}
	return strings.Join(diffs, "; ")
}

var typeAliases = []struct {
	re  *regexp.Regexp
	out string
}{
	{regexp.MustCompile(`^varchar\((\d+)\)$`), "character varying($1)"},
	{regexp.MustCompile(`^varchar$`), "character varying"},
	{regexp.MustCompile(`^int$|^int4$`), "integer"},
	{regexp.MustCompile(`^int2$`), "smallint"},
	{regexp.MustCompile(`^int8$`), "bigint"},
	{regexp.MustCompile(`^float4$`), "real"},
	{regexp.MustCompile(`^float8$`), "double precision"},
	{regexp.MustCompile(`^timestamptz\((\d)\)$`), "timestamp($1) with time zone"},
	{regexp.MustCompile(`^timestamp\((\d)\)$`), "timestamp($1) without time zone"},
	{regexp.MustCompile(`^geometry\(.*\)$`), "geometry"},
}

// NormalizeType spells a PostgreSQL type the way format_type() does, for
// comparing planned types with a table found on the target.
func NormalizeType(t string) string {
	t = strings.ToLower(strings.TrimSpace(t))
	for _, a := range typeAliases {
		if a.re.MatchString(t) {
			return a.re.ReplaceAllString(t, a.out)
		}
	}
	return t
}
