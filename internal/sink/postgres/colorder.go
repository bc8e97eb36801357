package postgres

import (
	"context"
	"strings"

	"github.com/sluice-db/sluice/internal/schema"
)

// withTargetOrder returns the tables of a schema change as the schema
// history records them: each with TargetOrder set when the target table's
// columns (read in the change's transaction, after its statements) are in
// another order than the source's. The tables are copied: the stream
// shares them.
func withTargetOrder(ctx context.Context, q Querier, naming schema.Naming, tables []*schema.Table) ([]*schema.Table, error) {
	out := make([]*schema.Table, len(tables))
	for i, t := range tables {
		out[i] = t
		if t.LeftOut != "" {
			continue
		}
		cols, err := TableColumns(ctx, q, naming.Schema(t.Database), t.Name)
		if err != nil {
			return nil, err
		}
		if cols == nil {
			continue
		}
		tgt := make([]string, 0, len(cols))
		known := map[string]bool{}
		for _, c := range t.Columns {
			known[strings.ToLower(c.Name)] = true
		}
		for _, c := range cols {
			if known[strings.ToLower(c.Name)] {
				tgt = append(tgt, c.Name)
			}
		}
		src := make([]string, 0, len(t.Columns))
		for _, c := range t.Columns {
			src = append(src, c.Name)
		}
		if strings.EqualFold(strings.Join(src, "\x00"), strings.Join(tgt, "\x00")) {
			if t.TargetOrder != nil {
				c := *t
				c.TargetOrder = nil
				out[i] = &c
			}
			continue
		}
		c := *t
		c.TargetOrder = tgt
		out[i] = &c
	}
	return out, nil
}
