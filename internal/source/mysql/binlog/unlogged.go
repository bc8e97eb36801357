package binlog

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sluice-db/sluice/internal/ddl"
	"github.com/sluice-db/sluice/internal/schema"
)

// checkSkipped decides what a row image without some columns means. MariaDB 11.8 leaves
// generated columns (VIRTUAL and STORED) out of the before and after images of UPDATE and
// DELETE even with binlog_row_image=FULL; every other missing column is a partial row image.
// A generated column is computed by the target itself (a MySQL target, or PostgreSQL's
// GENERATED ALWAYS AS for a translated expression) and never written, so its absence is
// harmless; one that sluice copies into PostgreSQL as a plain column (its expression has no
// exact translation) would be written as NULL, so it is refused, naming the column.
func checkSkipped(t *schema.Table, skipped [][]int) error {
	var generated []int
	for _, cols := range skipped {
		for _, i := range cols {
			if i >= len(t.Columns) || t.Columns[i].GenerationExpr == "" {
				return fmt.Errorf("table %s: the row image lacks columns %v: sluice needs binlog_row_image=FULL "+
					"(SET GLOBAL binlog_row_image='FULL' and restart the writing sessions)", t.TableID, cols)
			}
			if !slices.Contains(generated, i) {
				generated = append(generated, i)
			}
		}
	}
	if len(generated) == 0 {
		return nil
	}
	copied := ddl.WritableColumns(t)
	var names []string
	for _, i := range generated {
		if slices.Contains(copied, i) {
			names = append(names, t.Columns[i].Name)
		}
	}
	if len(names) > 0 {
		return fmt.Errorf("table %s: the source leaves the generated columns %s out of UPDATE and DELETE row images "+
			"(MariaDB 11), and sluice copies them into PostgreSQL as plain columns (no exact PostgreSQL expression): "+
			"their new values are unknown; leave them out with --exclude-columns or replace the expression (docs/versions.md)",
			t.TableID, strings.Join(names, ", "))
	}
	return nil
}
