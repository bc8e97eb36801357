package mysql

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/schema"
)

// maxUpdateRows bounds the rows of one multi-row UPDATE.
const maxUpdateRows = 256

// updatesMany says whether the table's target engine takes multi-row
// UPDATEs. Measured on MyRocks: multi-row UPDATEs of parallel workers ran
// into lock wait timeouts (live oltp_write_only stalled), which one-row
// updates do not.
func (a *Sink) updatesMany(t *schema.Table) bool {
	engine := a.cfg.Engine
	if engine == "" {
		engine = t.Engine
	}
	return strings.EqualFold(engine, "InnoDB")
}

// FoldsReinsert is pipeline.ReinsertFolder: a DELETE and a re-INSERT of one
// row become one UPDATE only where updates go several rows to a statement;
// elsewhere (MyRocks) the multi-row DELETE and INSERT they were cost less
// than one-row UPDATEs (measured: live oltp_write_only into MyRocks lagged
// up to 9.3 s with the fold, 2.7 s without).
func (a *Sink) FoldsReinsert(t *schema.Table) bool { return a.updatesMany(t) }

// updateManyOK says whether updates of the table may go several rows to a
// statement: it has an integer primary key, a column to set besides it, and unique
// keys made of whole columns (uniqueCols), which an update must leave as
// they were to join one (pipeline.UniqueUnchanged).
func updateManyOK(t *schema.Table, p *plan) ([]int, bool) {
	if p.key == nil || len(p.setCols) == 0 {
		return nil, false
	}
	// An integer key only: the server joins a derived table's binary
	// string to a text key column by a scan of the table, not by the key.
	for _, i := range p.key {
		if _, ok := intBits[strings.ToLower(t.Columns[i].DataType)]; !ok {
			return nil, false
		}
	}
	return t.UniqueKeyColumns()
}

// updates queues a run of updates. Consecutive updates that leave every
// unique-key column unchanged and change distinct rows go several to a
// statement, joined by primary key to the derived table of their new
// values:
//
//	UPDATE db.t AS t JOIN (SELECT k AS k0, v AS c0 UNION ALL SELECT …) AS v
//	ON t.pk = v.k0 SET t.c = v.c0, …
//
// Its found rows (see Open) must be their number: the rows are distinct, so
// a row missing on the target is a divergence, named by a one-row retry.
// The others go one row per statement, in source order.
func (s *session) updates(ctx context.Context, b *batch, p *plan, run []pipeline.Change, single bool) error {
	many := p.updateMany && !single && len(run) >= 2
	var seen map[uint64]bool
	if many {
		seen = make(map[uint64]bool, min(len(run), maxUpdateRows))
	}
	buf := make([]byte, 0, 4<<10)
	for i := 0; i < len(run); {
		j := i
		if many {
			clear(seen)
			for j < len(run) && j-i < maxUpdateRows && run[j].HasIdent && !seen[run[j].Ident] && pipeline.UniqueUnchanged(p.uniqueCols, &run[j].RowChange) {
				seen[run[j].Ident] = true
				j++
			}
		}
		if j-i < 2 {
			var err error
			if buf, err = p.appendUpdate(buf[:0], run[i].Before, run[i].After); err != nil {
				return &stmtError{ch: &run[i], err: err}
			}
			if err := b.add(ctx, buf, 1, &run[i], 1); err != nil {
				return err
			}
			i++
			continue
		}
		// Up to the statement size bound (at least two rows).
		buf = append(buf[:0], p.updateManyHead...)
		n := 0
		for i+n < j && (n < 2 || len(buf) < s.a.stmtBytes) {
			var err error
			if buf, err = p.appendUpdateManyRow(buf, n, &run[i+n]); err != nil {
				return &stmtError{ch: &run[i+n], err: err}
			}
			n++
		}
		buf = append(buf, p.updateManyTail...)
		if err := b.addUpdateMany(ctx, buf, p, run[i:i+n]); err != nil {
			return err
		}
		i += n
	}
	return nil
}

// buildUpdateMany prepares the fixed parts of a multi-row UPDATE.
func (p *plan) buildUpdateMany() {
	p.updateManyHead = "UPDATE " + p.qtable + " AS t JOIN ("
	tail := ") AS v ON "
	for n, i := range p.key {
		if n > 0 {
			tail += " AND "
		}
		tail += "t." + quoteIdent(p.table.Columns[i].Name) + " = v.k" + strconv.Itoa(n)
	}
	tail += " SET "
	for n, i := range p.setCols {
		if n > 0 {
			tail += ", "
		}
		tail += "t." + quoteIdent(p.table.Columns[i].Name) + " = v.c" + strconv.Itoa(n)
	}
	p.updateManyTail = tail
}

// appendUpdateManyRow appends the derived-table row of one update: its key
// (from the before image) and the new values of the columns it sets; the
// first row names the columns.
func (p *plan) appendUpdateManyRow(buf []byte, n int, ch *pipeline.Change) ([]byte, error) {
	if len(ch.Before) < len(p.table.Columns) || len(ch.After) < len(p.table.Columns) {
		return buf, errShortImage(p, ch)
	}
	if n > 0 {
		buf = append(buf, " UNION ALL "...)
	}
	buf = append(buf, "SELECT "...)
	var err error
	for k, i := range p.key {
		if k > 0 {
			buf = append(buf, ',')
		}
		if buf, err = p.enc[i](buf, ch.Before[i]); err != nil {
			return buf, errColumn(p, i, err)
		}
		if n == 0 {
			buf = append(buf, " AS k"...)
			buf = strconv.AppendInt(buf, int64(k), 10)
		}
	}
	for k, i := range p.setCols {
		buf = append(buf, ',')
		if buf, err = p.enc[i](buf, ch.After[i]); err != nil {
			return buf, errColumn(p, i, err)
		}
		if n == 0 {
			buf = append(buf, " AS c"...)
			buf = strconv.AppendInt(buf, int64(k), 10)
		}
	}
	return buf, nil
}

func errShortImage(p *plan, ch *pipeline.Change) error {
	return fmt.Errorf("row image has %d/%d values, table %s has %d columns", len(ch.Before), len(ch.After), p.table.TableID, len(p.table.Columns))
}

func errColumn(p *plan, i int, err error) error {
	return fmt.Errorf("column %s: %w", p.table.Columns[i].Name, err)
}
