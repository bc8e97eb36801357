package mysql

import (
	"context"
	"strings"

	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/schema"
)

// The multi-row UPDATE of a table whose primary key is one integer column
// (plan.updateCase):
//
//	UPDATE db.t SET `a` = CASE `id` WHEN 1 THEN 'x' WHEN 2 THEN 'y' END,
//	  `b` = CASE `id` WHEN 2 THEN 4 ELSE `b` END WHERE `id` IN (1,2)
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
// Every value of one column is a literal of the same kind (literal.go), and
// an ELSE (caseElse) has that kind too, so the CASE's result type is that
// kind: binary strings stay binary strings, stored byte for byte; exact
// numbers stay exact (DECIMAL literals of several scales aggregate to the
// largest, which holds each of them).

// updateCase writes the first rows of run (at least two, up to the
// statement bound) as one CASE UPDATE and returns how many it took.
//
// A column that keeps its value in a row (before and after image equal) is
// left out of that row's WHENs where its CASE can end in ELSE the column
// itself (plan.caseElse: integers and strings, whose ELSE has the type the
// literals have), and out of the statement where no row changes it: a row
// then keeps the value the target holds, which is the source's as long as
// the target held the before image (what a found row proves for the key
// only, for every form alike). oltp_write_only's updates change one column
// of three: the statement, the target's parsing and the query text its
// binlog annotates the rows with shrink by half. Other columns (temporal
// ones among them: ON UPDATE CURRENT_TIMESTAMP must not fire) are written
// in every row.
func updateCase(ctx context.Context, b *batch, p *plan, run []pipeline.Change, buf []byte) ([]byte, int, error) {
	n, err := encodeCaseRows(b, p, run)
	if err != nil {
		return buf, 0, err
	}
	cv := caseVals{w: 1 + len(p.setCols), vals: b.vals, off: b.off, listed: b.listed}
	buf = append(buf[:0], p.caseHead...)
	buf = appendCaseSets(buf, p, cv, n)
	buf = append(buf, " WHERE "...)
	buf = append(buf, p.caseKey...)
	buf = append(buf, " IN ("...)
	for r := 0; r < n; r++ {
		if r > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, cv.value(r, 0)...)
	}
	buf = append(buf, ')')
	return buf, n, b.addUpdateMany(ctx, buf, p, run[:n])
}

// encodeCaseRows encodes the key and the written set values of the first
// rows of run into b.vals, b.off and b.listed (see caseVals), as many as
// the statement bound allows (at least two), and returns how many.
func encodeCaseRows(b *batch, p *plan, run []pipeline.Change) (int, error) {
	vals, off, listed := b.vals[:0], b.off[:0], b.listed[:0]
	size := len(p.caseHead) + len(" WHERE  IN ()") + len(p.caseKey)
	n := 0
	for n < len(run) && (n < 2 || size < b.s.a.stmtBytes) {
		ch := &run[n]
		if len(ch.Before) < len(p.table.Columns) || len(ch.After) < len(p.table.Columns) {
			return 0, &stmtError{ch: ch, err: errShortImage(p, ch)}
		}
		start := len(vals)
		var err error
		k := p.key[0]
		if vals, err = p.enc[k](vals, ch.Before[k]); err != nil {
			return 0, &stmtError{ch: ch, err: errColumn(p, k, err)}
		}
		keyLen := len(vals) - start
		off, listed = append(off, len(vals)), append(listed, true)
		whens := 0
		for c, i := range p.setCols {
			list := !pipeline.ValueEqual(ch.Before[i], ch.After[i])
			if p.caseElse[c] == "" {
				// No ELSE keeps it: written in every row, or (changedOnly)
				// in none of the run's rows where it is unchanged in all
				// (caseCompatible keeps runs so).
				list = list || !p.changedOnly || p.table.Columns[i].OnUpdateCurrentTS
			}
			if list {
				if vals, err = p.enc[i](vals, ch.After[i]); err != nil {
					return 0, &stmtError{ch: ch, err: errColumn(p, i, err)}
				}
				whens++
			}
			off, listed = append(off, len(vals)), append(listed, list)
		}
		// " WHEN key THEN " per value written, the key again in the IN list.
		size += len(vals) - start + whens*(keyLen+len(" WHEN  THEN ")) + keyLen + 1
		n++
	}
	b.vals, b.off, b.listed = vals, off, listed
	return n, nil
}

// caseVals are a CASE UPDATE's encoded values: each value is encoded once
// into vals; off[r*w+k] ends value k of row r (k = 0 the key, then the set
// columns), and listed[r*w+k] says whether it is written (a value left out
// is empty).
type caseVals struct {
	w      int
	vals   []byte
	off    []int
	listed []bool
}

// value is value k of row r as encoded.
func (cv caseVals) value(r, k int) []byte {
	from := 0
	if r*cv.w+k > 0 {
		from = cv.off[r*cv.w+k-1]
	}
	return cv.vals[from:cv.off[r*cv.w+k]]
}

// appendCaseSets appends the SET list: a CASE per set column some row
// writes, ending in ELSE where a row keeps its value.
func appendCaseSets(buf []byte, p *plan, cv caseVals, n int) []byte {
	w, listed := cv.w, cv.listed
	cols := 0
	for k := range p.setCols {
		rows := 0
		for r := 0; r < n; r++ {
			if listed[r*w+1+k] {
				rows++
			}
		}
		if rows == 0 {
			continue // no row changes it (caseElse columns only)
		}
		if cols > 0 {
			buf = append(buf, ',')
		}
		cols++
		buf = append(buf, p.setNames[p.setPos[k]]...)
		buf = append(buf, "CASE "...)
		buf = append(buf, p.caseKey...)
		for r := 0; r < n; r++ {
			if !listed[r*w+1+k] {
				continue
			}
			buf = append(buf, " WHEN "...)
			buf = append(buf, cv.value(r, 0)...)
			buf = append(buf, " THEN "...)
			buf = append(buf, cv.value(r, 1+k)...)
		}
		if rows < n {
			buf = append(buf, " ELSE "...)
			buf = append(buf, p.caseElse[k]...)
		}
		buf = append(buf, " END"...)
	}
	if cols == 0 {
		// No row changes anything: the statement still finds every row
		// (the key, an integer, set to itself).
		buf = append(buf, p.caseKey...)
		buf = append(buf, '=')
		buf = append(buf, p.caseKey...)
	}
	return buf
}

// caseCompatible says whether, with changedOnly, row b may share a CASE
// UPDATE with row a: every set column whose CASE has no ELSE (caseElse "")
// is changed in both or in neither, so that its CASE lists every row of the
// statement or is left out.
func (p *plan) caseCompatible(a, b *pipeline.Change) bool {
	for c, i := range p.setCols {
		if p.caseElse[c] != "" || p.table.Columns[i].OnUpdateCurrentTS {
			continue
		}
		if i >= len(a.Before) || i >= len(b.Before) || i >= len(a.After) || i >= len(b.After) {
			return false
		}
		if pipeline.ValueEqual(a.Before[i], a.After[i]) != pipeline.ValueEqual(b.Before[i], b.After[i]) {
			return false
		}
	}
	return true
}

// buildUpdateCase prepares the fixed parts of the CASE UPDATE.
func (p *plan) buildUpdateCase() {
	p.updateCase = true
	p.caseHead = "UPDATE " + p.qtable + " SET "
	p.caseKey = schema.QuoteMySQL(p.table.Columns[p.key[0]].Name)
	pos := make(map[int]int, len(p.cols))
	for n, i := range p.cols {
		pos[i] = n
	}
	p.setPos = make([]int, len(p.setCols))
	p.caseElse = make([]string, len(p.setCols))
	for k, i := range p.setCols {
		p.setPos[k] = pos[i]
		p.caseElse[k] = caseElse(p.table.Columns[i])
	}
}

// caseElse is the ELSE of a column's CASE that keeps the row's value with
// the type the column's literals have (literal.go), or "" where there is
// none: integers (not BIT, YEAR, ENUM or SET, whose literals are numbers
// the column's own type would not aggregate with as a number), text as its
// bytes (the literals are binary strings: a text column would make the
// CASE convert them to its charset) and binary strings as they are.
func caseElse(c schema.Column) string {
	q := schema.QuoteMySQL(c.Name)
	switch strings.ToLower(c.DataType) {
	case "tinyint", "smallint", "mediumint", "int", "integer", "bigint":
		return q
	case "binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob":
		return q
	case "char", "varchar", "tinytext", "text", "mediumtext", "longtext":
		if c.Charset == "" || c.Charset == "binary" {
			return q
		}
		return "CAST(" + q + " AS BINARY)"
	}
	return ""
}
