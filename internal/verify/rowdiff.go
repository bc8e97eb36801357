package verify

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
)

// The row diff fetches the rows of a scope from both sides, ordered by the
// bytes of their normalised key text (the same order in both engines:
// binary strings in MySQL, COLLATE "C" in PostgreSQL), and merges them.
// Small values come whole; large ones (text, binary, geometry) as an MD5
// plus a prefix for the report; JSON as text, canonicalised here.

// cell is one fetched column value.
type cell struct {
	null bool
	cmp  string // what is compared
	show string // what the report shows
}

// fetchedRow is one row of a row diff.
type fetchedRow struct {
	keyText string
	key     []string // raw key values: source SelectExpr text, or target ::text
	cells   []cell
}

// fetchSelect returns the select list of the row fetch for one side.
func (p *tablePlan) fetchSelect(source bool) []string {
	var sel []string
	if source {
		sel = append(sel, p.myKeyText)
		sel = append(sel, p.myKeySel...)
	} else {
		sel = append(sel, p.pgKeyText)
		for _, k := range p.pgKeySel {
			sel = append(sel, k+"::text")
		}
	}
	for _, c := range p.cols {
		switch {
		case c.isJSON() && source:
			sel = append(sel, c.MySQLRaw)
		case c.isJSON():
			sel = append(sel, c.PGRaw)
		case c.Large && source:
			sel = append(sel, p.digest.my(c.MySQL), "LEFT("+c.MySQL+", "+fmt.Sprint(prefixLen)+")")
		case c.Large:
			sel = append(sel, p.digest.pg(c.PG), "left("+c.PG+", "+fmt.Sprint(prefixLen)+")")
		case source:
			sel = append(sel, c.MySQL)
		default:
			sel = append(sel, c.PG)
		}
	}
	return sel
}

func (p *tablePlan) fetchWidth() int {
	n := 1 + len(p.key)
	for _, c := range p.cols {
		n++
		if c.Large && !c.isJSON() {
			n++
		}
	}
	return n
}

// readRow decodes one fetched row (values are copied).
func (p *tablePlan) readRow(vals [][]byte, source bool) fetchedRow {
	r := fetchedRow{keyText: string(vals[0]), key: make([]string, len(p.key)), cells: make([]cell, len(p.cols))}
	for k := range p.key {
		r.key[k] = string(vals[1+k])
	}
	i := 1 + len(p.key)
	for ci, c := range p.cols {
		v := vals[i]
		i++
		switch {
		case c.isJSON():
			t := p.jsonText(v, source)
			r.cells[ci] = cell{null: v == nil, cmp: t, show: truncate(t)}
			if v == nil {
				r.cells[ci].show = "NULL"
			}
		case c.Large:
			prefix := vals[i]
			i++
			r.cells[ci] = cell{null: v == nil, cmp: string(v), show: display(c.Kind, prefix, v == nil)}
		default:
			r.cells[ci] = cell{null: v == nil, cmp: string(v), show: display(c.Kind, v, v == nil)}
		}
	}
	return r
}

// fetchSource reads the rows of a scope from the source, in key-text order.
func (p *tablePlan) fetchSource(ctx context.Context, db *sql.DB, s scope) ([]fetchedRow, error) {
	return p.myFetch(ctx, db, p.myTable, "source", s)
}

// myFetch is fetchSource of a MySQL table (the source's, or its copy in a
// MySQL target).
func (p *tablePlan) myFetch(ctx context.Context, db *sql.DB, table, side string, s scope) ([]fetchedRow, error) {
	where, args, err := p.myWhere(s)
	if err != nil {
		return nil, err
	}
	q := "SELECT " + strings.Join(p.fetchSelect(true), ", ") + " FROM " + table + " WHERE " + where + " ORDER BY 1"
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("%s rows of %s (%s): %w", side, p.sideName(side), s, err)
	}
	src := sqlRows{rows}
	defer src.Close()
	var out []fetchedRow
	n := p.fetchWidth()
	for src.Next() {
		vals, err := src.Values(n)
		if err != nil {
			return nil, fmt.Errorf("%s rows of %s: %w", side, p.sideName(side), err)
		}
		out = append(out, p.readRow(vals, p.mysqlJSON(side)))
	}
	if err := src.Err(); err != nil {
		return nil, fmt.Errorf("%s rows of %s: %w", side, p.sideName(side), err)
	}
	return out, nil
}

// mergeRows merges two row lists sorted by key text into their differences.
func mergeRows(src, tgt []fetchedRow) []rowDiff {
	var diffs []rowDiff
	i, j := 0, 0
	for i < len(src) || j < len(tgt) {
		switch {
		case j >= len(tgt) || (i < len(src) && src[i].keyText < tgt[j].keyText):
			diffs = append(diffs, rowDiff{kind: OnlyInSource, src: &src[i]})
			i++
		case i >= len(src) || tgt[j].keyText < src[i].keyText:
			diffs = append(diffs, rowDiff{kind: OnlyInTarget, tgt: &tgt[j]})
			j++
		default:
			if cols := differingCells(&src[i], &tgt[j]); len(cols) > 0 {
				diffs = append(diffs, rowDiff{kind: Differs, src: &src[i], tgt: &tgt[j], cols: cols})
			}
			i++
			j++
		}
	}
	return diffs
}

// rowDiff is one differing row found by the merge.
type rowDiff struct {
	kind     string
	src, tgt *fetchedRow
	cols     []int // differing columns (Differs)
}

func (d rowDiff) keyText() string {
	if d.src != nil {
		return d.src.keyText
	}
	return d.tgt.keyText
}

// diffTarget streams the target rows of a scope and merges them with the
// source rows (sorted alike).
func (p *tablePlan) diffTarget(ctx context.Context, pool *pgxpool.Pool, s scope, src []fetchedRow) ([]rowDiff, error) {
	where, args, err := p.pgWhere(s)
	if err != nil {
		return nil, err
	}
	q := "SELECT " + strings.Join(p.fetchSelect(false), ", ") + " FROM " + p.pgTable + " WHERE " + where +
		" ORDER BY " + p.pgKeyText + " COLLATE \"C\""
	rows, err := pool.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("target rows of %s (%s): %w", p.target, s, err)
	}
	tgt := pgRows{rows}
	defer tgt.Close()
	var diffs []rowDiff
	i, n := 0, p.fetchWidth()
	for tgt.Next() {
		vals, err := tgt.Values(n)
		if err != nil {
			return nil, fmt.Errorf("target rows of %s: %w", p.target, err)
		}
		t := p.readRow(vals, false)
		for i < len(src) && src[i].keyText < t.keyText {
			diffs = append(diffs, rowDiff{kind: OnlyInSource, src: &src[i]})
			i++
		}
		if i < len(src) && src[i].keyText == t.keyText {
			if cols := differingCells(&src[i], &t); len(cols) > 0 {
				diffs = append(diffs, rowDiff{kind: Differs, src: &src[i], tgt: &t, cols: cols})
			}
			i++
			continue
		}
		diffs = append(diffs, rowDiff{kind: OnlyInTarget, tgt: &t})
	}
	if err := tgt.Err(); err != nil {
		return nil, fmt.Errorf("target rows of %s: %w", p.target, err)
	}
	for ; i < len(src); i++ {
		diffs = append(diffs, rowDiff{kind: OnlyInSource, src: &src[i]})
	}
	return diffs, nil
}

func differingCells(a, b *fetchedRow) []int {
	var cols []int
	for i := range a.cells {
		x, y := a.cells[i], b.cells[i]
		if x.null != y.null || x.cmp != y.cmp {
			cols = append(cols, i)
		}
	}
	return cols
}

// rowReport turns a row diff into its report form.
func rowReport(p *tablePlan, d rowDiff) RowDiff {
	r := RowDiff{Kind: d.kind, sortKey: d.keyText()}
	row := d.src
	if row == nil {
		row = d.tgt
	}
	for _, k := range p.key {
		r.Key = append(r.Key, KeyValue{Column: p.cols[k].Name, Value: row.cells[k].show})
	}
	for _, c := range d.cols {
		r.Columns = append(r.Columns, ColumnDiff{Column: p.cols[c].Name, Source: d.src.cells[c].show, Target: d.tgt.cells[c].show})
	}
	return r
}
