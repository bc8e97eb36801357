package consistent

import (
	"context"
	"fmt"
	"strings"

	"github.com/sluice-db/sluice/internal/schema"
)

// Size is the server's estimate of a table's size (information_schema.TABLES:
// InnoDB samples, so it may be off by a factor of two). It only orders the
// work and feeds the progress display's ETA.
type Size struct {
	Rows  int64
	Bytes int64
}

// TableSizes returns the estimates of the given tables' databases.
func (s *Source) TableSizes(ctx context.Context, tables []*schema.Table) (map[schema.TableID]Size, error) {
	dbs := map[string]bool{}
	for _, t := range tables {
		dbs[t.Database] = true
	}
	var args []any
	var marks []string
	for db := range dbs {
		args = append(args, db)
		marks = append(marks, "?")
	}
	out := map[schema.TableID]Size{}
	if len(args) == 0 {
		return out, nil
	}
	rows, err := s.DB.QueryContext(ctx, `SELECT TABLE_SCHEMA, TABLE_NAME, COALESCE(TABLE_ROWS, 0), COALESCE(DATA_LENGTH, 0)
		FROM information_schema.TABLES WHERE TABLE_SCHEMA IN (`+strings.Join(marks, ",")+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("read table sizes: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id schema.TableID
		var sz Size
		if err := rows.Scan(&id.Database, &id.Name, &sz.Rows, &sz.Bytes); err != nil {
			return nil, fmt.Errorf("read table sizes: %w", err)
		}
		out[id] = sz
	}
	return out, rows.Err()
}
