package mysql

import (
	"context"

	"github.com/sluice-db/sluice/internal/pipeline"
)

// The multi-row UPDATE of a table whose primary key is one integer column
// (plan.updateCase):
//
//	UPDATE db.t SET `a` = CASE `id` WHEN 1 THEN 'x' WHEN 2 THEN 'y' END,
//	  `b` = CASE `id` WHEN 1 THEN 3 WHEN 2 THEN 4 END WHERE `id` IN (1,2)
//
// The server finds each row by one primary key lookup and updates it in
// place: against INSERT … ON DUPLICATE KEY UPDATE (an insert that fails on
// the duplicate, then a second lookup of the row) that is one B-tree
// descent of the clustered index less per row, which was a fifth of the
// target's CPU in the oltp_write_only catch-up (perf; see docs/benchmarks.md),
// and no derived table to build as the joined UPDATE has. Its found rows
// (see Open) count every row it finds, changed or not, so the rows of a
// statement (distinct, see updates) must all be found: one missing on the
// target is a divergence, as for the other forms, and an update that leaves
// its row as it was needs no statement of its own.
//
// Every value of one column is a literal of the same kind (literal.go), so
// the CASE's result type is that kind: binary strings stay binary strings,
// stored byte for byte; exact numbers stay exact (DECIMAL literals of
// several scales aggregate to the largest, which holds each of them).

// updateCase writes the first rows of run (at least two, up to the
// statement bound) as one CASE UPDATE and returns how many it took.
func updateCase(ctx context.Context, b *batch, p *plan, run []pipeline.Change, buf []byte) ([]byte, int, error) {
	// Each value is encoded once into vals; off[r*w+k] ends value k of row r
	// (k = 0 the key, then the set columns).
	w := 1 + len(p.setCols)
	vals := b.vals[:0]
	off := b.off[:0]
	size := len(p.caseHead) + len(" WHERE  IN ()") + len(p.caseKey)
	n := 0
	for n < len(run) && (n < 2 || size < b.s.a.stmtBytes) {
		ch := &run[n]
		if len(ch.Before) < len(p.table.Columns) || len(ch.After) < len(p.table.Columns) {
			return buf, 0, &stmtError{ch: ch, err: errShortImage(p, ch)}
		}
		start := len(vals)
		var err error
		k := p.key[0]
		if vals, err = p.enc[k](vals, ch.Before[k]); err != nil {
			return buf, 0, &stmtError{ch: ch, err: errColumn(p, k, err)}
		}
		keyLen := len(vals) - start
		off = append(off, len(vals))
		for _, i := range p.setCols {
			if vals, err = p.enc[i](vals, ch.After[i]); err != nil {
				return buf, 0, &stmtError{ch: ch, err: errColumn(p, i, err)}
			}
			off = append(off, len(vals))
		}
		// " WHEN key THEN " per set column, the key again in the IN list.
		size += len(vals) - start + len(p.setCols)*(keyLen+len(" WHEN  THEN ")) + keyLen + 1
		n++
	}
	b.vals, b.off = vals, off
	value := func(r, k int) []byte {
		from := 0
		if r*w+k > 0 {
			from = off[r*w+k-1]
		}
		return vals[from:off[r*w+k]]
	}
	buf = append(buf[:0], p.caseHead...)
	for k := range p.setCols {
		if k > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, p.setNames[p.setPos[k]]...)
		buf = append(buf, "CASE "...)
		buf = append(buf, p.caseKey...)
		for r := 0; r < n; r++ {
			buf = append(buf, " WHEN "...)
			buf = append(buf, value(r, 0)...)
			buf = append(buf, " THEN "...)
			buf = append(buf, value(r, 1+k)...)
		}
		buf = append(buf, " END"...)
	}
	buf = append(buf, " WHERE "...)
	buf = append(buf, p.caseKey...)
	buf = append(buf, " IN ("...)
	for r := 0; r < n; r++ {
		if r > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, value(r, 0)...)
	}
	buf = append(buf, ')')
	return buf, n, b.addUpdateMany(ctx, buf, p, run[:n])
}

// buildUpdateCase prepares the fixed parts of the CASE UPDATE.
func (p *plan) buildUpdateCase() {
	p.updateCase = true
	p.caseHead = "UPDATE " + p.qtable + " SET "
	p.caseKey = quoteIdent(p.table.Columns[p.key[0]].Name)
	pos := make(map[int]int, len(p.cols))
	for n, i := range p.cols {
		pos[i] = n
	}
	p.setPos = make([]int, len(p.setCols))
	for k, i := range p.setCols {
		p.setPos[k] = pos[i]
	}
}
