package binlog

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/schema"
)

// checkSkipped checks a rows event's missing columns against the columns the target is written.
func (s *Stream) checkSkipped(mt *mappedTable, skipped [][]int) error {
	if !slices.ContainsFunc(skipped, func(c []int) bool { return len(c) > 0 }) {
		return nil
	}
	if !mt.writtenDone {
		mt.written, mt.writtenDone = nil, true
		if s.cfg.WrittenGenerated != nil {
			mt.written = s.cfg.WrittenGenerated(mt.table)
		} else {
			for i := range mt.table.Columns {
				mt.written = append(mt.written, i)
			}
		}
	}
	return checkSkipped(mt.table, skipped, mt.written)
}

// checkSkipped decides what a row image without some columns means. MariaDB 11.8 leaves
// generated columns (VIRTUAL and STORED) out of the before and after images of UPDATE and
// DELETE even with binlog_row_image=FULL; every other missing column is a partial row image.
// A generated column is computed by the target itself (a MySQL target, or PostgreSQL's
// GENERATED ALWAYS AS for a translated expression) and never written, so its absence is
// harmless; one that sluice copies into PostgreSQL as a plain column (its expression has no
// exact translation) would be written as NULL, so it is refused (exit 2: --exclude-columns or
// another expression is the fix), naming the column. written
// are the columns the target is written.
func checkSkipped(t *schema.Table, skipped [][]int, written []int) error {
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
	var names []string
	for _, i := range generated {
		if slices.Contains(written, i) {
			names = append(names, t.Columns[i].Name)
		}
	}
	if len(names) > 0 {
		return exitcode.ConfigError(fmt.Errorf("table %s: the source leaves the generated columns %s out of UPDATE and DELETE row images "+
			"(MariaDB 11), and the target does not compute them (a plain column in PostgreSQL: no exact PostgreSQL expression; "+
			"Kafka): their new values are unknown; leave them out with --exclude-columns or replace the expression (docs/versions.md)",
			t.TableID, strings.Join(names, ", ")))
	}
	return nil
}
