package verifydb

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
	Null bool
	Cmp  string // what is compared
	Show string // what the report shows
}

// FetchedRow is one row of a row diff.
type FetchedRow struct {
	keyText string
	Key     []string // raw key values: source SelectExpr text, or target ::text
	Cells   []cell
}

// fetchSelect returns the select list of the row fetch for one side.
func (p *Plan) fetchSelect(source bool) []string {
	var sel []string
	if source {
		sel = append(sel, p.myKeyText)
		sel = append(sel, p.MyKeySel...)
	} else {
		sel = append(sel, p.pgKeyText)
		for _, k := range p.pgKeySel {
			sel = append(sel, k+"::text")
		}
	}
	for _, c := range p.Cols {
		switch {
		case c.IsJSON() && source:
			sel = append(sel, c.MySQLRaw)
		case c.IsJSON():
			sel = append(sel, c.PGRaw)
		case c.Large && source:
			sel = append(sel, p.Digest.My(c.MySQL), "LEFT("+c.MySQL+", "+fmt.Sprint(prefixLen)+")")
		case c.Large:
			sel = append(sel, p.Digest.PG(c.PG), "left("+c.PG+", "+fmt.Sprint(prefixLen)+")")
		case source:
			sel = append(sel, c.MySQL)
		default:
			sel = append(sel, c.PG)
		}
	}
	return sel
}

func (p *Plan) fetchWidth() int {
	n := 1 + len(p.Key)
	for _, c := range p.Cols {
		n++
		if c.Large && !c.IsJSON() {
			n++
		}
	}
	return n
}

// readRow decodes one fetched row (values are copied).
func (p *Plan) readRow(vals [][]byte, source bool) FetchedRow {
	r := FetchedRow{keyText: string(vals[0]), Key: make([]string, len(p.Key)), Cells: make([]cell, len(p.Cols))}
	for k := range p.Key {
		r.Key[k] = string(vals[1+k])
	}
	i := 1 + len(p.Key)
	for ci, c := range p.Cols {
		v := vals[i]
		i++
		switch {
		case c.IsJSON():
			t := p.JSONText(v, source)
			r.Cells[ci] = cell{Null: v == nil, Cmp: t, Show: Truncate(t)}
			if v == nil {
				r.Cells[ci].Show = "NULL"
			}
		case c.Large:
			prefix := vals[i]
			i++
			r.Cells[ci] = cell{Null: v == nil, Cmp: string(v), Show: Display(c.Kind, prefix, v == nil)}
		default:
			r.Cells[ci] = cell{Null: v == nil, Cmp: string(v), Show: Display(c.Kind, v, v == nil)}
		}
	}
	return r
}

// FetchSource reads the rows of a scope from the source, in key-text order.
func (p *Plan) FetchSource(ctx context.Context, db *sql.DB, s Scope) ([]FetchedRow, error) {
	return p.MyFetch(ctx, db, p.MyTable, "source", s)
}

// MyFetch is fetchSource of a MySQL table (the source's, or its copy in a
// MySQL target).
func (p *Plan) MyFetch(ctx context.Context, db *sql.DB, table, side string, s Scope) ([]FetchedRow, error) {
	where, args, err := p.myWhere(s)
	if err != nil {
		return nil, err
	}
	q := "SELECT " + strings.Join(p.fetchSelect(true), ", ") + " FROM " + table + " WHERE " + where + " ORDER BY 1"
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("%s rows of %s (%s): %w", side, p.sideName(side), s, err)
	}
	src := SQLRows{Rows: rows}
	defer src.Close()
	var out []FetchedRow
	n := p.fetchWidth()
	for src.Next() {
		vals, err := src.Values(n)
		if err != nil {
			return nil, fmt.Errorf("%s rows of %s: %w", side, p.sideName(side), err)
		}
		out = append(out, p.readRow(vals, p.MySQLJSON(side)))
	}
	if err := src.Err(); err != nil {
		return nil, fmt.Errorf("%s rows of %s: %w", side, p.sideName(side), err)
	}
	return out, nil
}

// MergeRows merges two row lists sorted by key text into their differences.
func MergeRows(src, tgt []FetchedRow) []RowDiff {
	var diffs []RowDiff
	i, j := 0, 0
	for i < len(src) || j < len(tgt) {
		switch {
		case j >= len(tgt) || (i < len(src) && src[i].keyText < tgt[j].keyText):
			diffs = append(diffs, RowDiff{Kind: OnlyInSource, Src: &src[i]})
			i++
		case i >= len(src) || tgt[j].keyText < src[i].keyText:
			diffs = append(diffs, RowDiff{Kind: OnlyInTarget, Tgt: &tgt[j]})
			j++
		default:
			if cols := differingCells(&src[i], &tgt[j]); len(cols) > 0 {
				diffs = append(diffs, RowDiff{Kind: Differs, Src: &src[i], Tgt: &tgt[j], Cols: cols})
			}
			i++
			j++
		}
	}
	return diffs
}

// RowDiff is one differing row found by the merge.
type RowDiff struct {
	Kind     string
	Src, Tgt *FetchedRow
	Cols     []int // differing columns (Differs)
}

func (d RowDiff) KeyText() string {
	if d.Src != nil {
		return d.Src.keyText
	}
	return d.Tgt.keyText
}

// DiffTarget streams the target rows of a scope and merges them with the
// source rows (sorted alike).
func (p *Plan) DiffTarget(ctx context.Context, pool *pgxpool.Pool, s Scope, src []FetchedRow) ([]RowDiff, error) {
	where, args, err := p.pgWhere(s)
	if err != nil {
		return nil, err
	}
	q := "SELECT " + strings.Join(p.fetchSelect(false), ", ") + " FROM " + p.PGTable + " WHERE " + where +
		" ORDER BY " + p.pgKeyText + " COLLATE \"C\""
	rows, err := pool.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("target rows of %s (%s): %w", p.Target, s, err)
	}
	tgt := PGRows{Rows: rows}
	defer tgt.Close()
	var diffs []RowDiff
	i, n := 0, p.fetchWidth()
	for tgt.Next() {
		vals, err := tgt.Values(n)
		if err != nil {
			return nil, fmt.Errorf("target rows of %s: %w", p.Target, err)
		}
		t := p.readRow(vals, false)
		for i < len(src) && src[i].keyText < t.keyText {
			diffs = append(diffs, RowDiff{Kind: OnlyInSource, Src: &src[i]})
			i++
		}
		if i < len(src) && src[i].keyText == t.keyText {
			if cols := differingCells(&src[i], &t); len(cols) > 0 {
				diffs = append(diffs, RowDiff{Kind: Differs, Src: &src[i], Tgt: &t, Cols: cols})
			}
			i++
			continue
		}
		diffs = append(diffs, RowDiff{Kind: OnlyInTarget, Tgt: &t})
	}
	if err := tgt.Err(); err != nil {
		return nil, fmt.Errorf("target rows of %s: %w", p.Target, err)
	}
	for ; i < len(src); i++ {
		diffs = append(diffs, RowDiff{Kind: OnlyInSource, Src: &src[i]})
	}
	return diffs, nil
}

func differingCells(a, b *FetchedRow) []int {
	var cols []int
	for i := range a.Cells {
		x, y := a.Cells[i], b.Cells[i]
		if x.Null != y.Null || x.Cmp != y.Cmp {
			cols = append(cols, i)
		}
	}
	return cols
}
