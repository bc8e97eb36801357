package replicate

import (
	"sort"
	"strings"
	"sync"

	"github.com/sluice-db/sluice/internal/ddl"
	"github.com/sluice-db/sluice/internal/schema"
)

// A column placed FIRST or AFTER another on the source changes the
// source's column order; PostgreSQL cannot reorder columns, so the target
// keeps its order (values still land by name). The replicator says so once
// per table and run, at WARN, naming the column and the source's order;
// the stop report lists every such table; the sink records the target's
// order in the schema history (schema.Table.TargetOrder), where status and
// verify read it. A MySQL target replays the statement and keeps the order.

// colOrders are the tables whose column order changed in a run.
type colOrders struct {
	mu     sync.Mutex
	tables map[schema.TableID]string // the source's latest order
}

// noteMoves records the moves of one schema change and warns about the
// first one of each table.
func (r *runner) noteMoves(moves []ddl.ColumnMove, stmt string) {
	for _, m := range moves {
		order := strings.Join(m.SourceOrder, ", ")
		r.moved.mu.Lock()
		if r.moved.tables == nil {
			r.moved.tables = map[schema.TableID]string{}
		}
		_, seen := r.moved.tables[m.Table]
		r.moved.tables[m.Table] = order
		r.moved.mu.Unlock()
		if seen {
			r.log.Info("schema change: column moved on the source; the target keeps its column order", "table", m.Table.String(),
				"column", m.Column, "place", m.Place, "source_order", order)
			continue
		}
		r.log.Warn("schema change: column moved on the source; PostgreSQL cannot reorder columns, so the target's column order "+
			"now differs: positional INSERT and SELECT * see another order there (sluice writes by name; verify and status list it)",
			"table", m.Table.String(), "column", m.Column, "place", m.Place, "source_order", order, "statement", clip(stmt))
	}
}

// reportMoves lists, when replication stops, the tables whose column order
// changed on the source during the run.
func (r *runner) reportMoves() {
	r.moved.mu.Lock()
	defer r.moved.mu.Unlock()
	if len(r.moved.tables) == 0 {
		return
	}
	var parts []string
	for id, order := range r.moved.tables {
		parts = append(parts, id.String()+" (source: "+order+")")
	}
	sort.Strings(parts)
	r.log.Warn("column order differs between source and target (PostgreSQL cannot reorder columns; values are by name)",
		"tables", strings.Join(parts, "; "))
}
