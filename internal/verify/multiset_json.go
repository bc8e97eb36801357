package verify

import (
	"context"
	"fmt"
	"strings"

	"github.com/sluice-db/sluice/internal/verify/verifydb"
)

// freshJSONInserts reads the whole source table once and returns inserts
// of the rows whose row hash the target lacks, as many of each as missing.
func (e *engine) freshJSONInserts(ctx context.Context, p *verifydb.Plan, missing map[uint64]int64) ([]verifydb.Stmt, error) {
	left := make(map[uint64]int64, len(missing))
	for h, n := range missing {
		left[h] = n
	}
	sel := make([]string, 0, len(p.Cols)+1+len(p.JSON))
	for i := range p.Cols {
		sel = append(sel, verifydb.SelectExprOf(p, i))
	}
	sel = append(sel, p.JSONRowSelect(false)...)
	rows, err := e.src.QueryContext(ctx, "SELECT "+strings.Join(sel, ", ")+" FROM "+p.MyTable)
	if err != nil {
		return nil, fmt.Errorf("repair: read %s: %w", p.Name, err)
	}
	src := verifydb.SQLRows{Rows: rows}
	defer src.Close()
	var out []verifydb.Stmt
	jsons := make([]string, len(p.JSON))
	n := len(p.Cols)
	for src.Next() {
		v, err := src.Values(len(sel))
		if err != nil {
			return nil, fmt.Errorf("repair: read %s: %w", p.Name, err)
		}
		for k := range p.JSON {
			jsons[k] = p.JSONText(v[n+1+k], p.MySQLJSON("source"))
		}
		h := verifydb.RowHashOf(v[n], jsons)
		if left[h] == 0 {
			continue
		}
		left[h]--
		vals := make([][]byte, n)
		for i := range vals {
			if v[i] != nil {
				vals[i] = append([]byte{}, v[i]...)
			}
		}
		ins, err := e.tgt.InsertRow(p, vals)
		if err != nil {
			return nil, err
		}
		out = append(out, ins)
	}
	if err := src.Err(); err != nil {
		return nil, fmt.Errorf("repair: read %s: %w", p.Name, err)
	}
	return out, nil
}

// jsonMultisetStmts are the repair statements of a keyless table with
// JSON columns: deletes of surplus target rows by their stored spelling,
// inserts of missing rows read fresh from the source. A source row that
// changed since the comparison is simply not found; the check after the
// repair then reports the table as not repaired.
func (e *engine) jsonMultisetStmts(ctx context.Context, p *verifydb.Plan, diffs []MultisetDiff) ([]verifydb.Stmt, error) {
	surplus := map[uint64]int64{}
	missing := map[uint64]int64{}
	for _, d := range diffs {
		var h uint64
		if _, err := fmt.Sscanf(d.RowHash, "%x", &h); err != nil {
			return nil, fmt.Errorf("row hash %q: %w", d.RowHash, err)
		}
		if d.TargetCount > d.SourceCount {
			surplus[h] = d.TargetCount - d.SourceCount
		} else {
			missing[h] = d.SourceCount - d.TargetCount
		}
	}
	var stmts []verifydb.Stmt
	if len(surplus) > 0 {
		rows, err := e.tgt.JSONRows(ctx, p)
		if err != nil {
			return nil, err
		}
		ids, counts, err := p.SurplusIDs(rows, surplus)
		if err != nil {
			return nil, err
		}
		for i, id := range ids {
			stmts = append(stmts, e.tgt.DeleteJSONCopies(p, id, counts[i]))
		}
	}
	if len(missing) > 0 {
		ins, err := e.freshJSONInserts(ctx, p, missing)
		if err != nil {
			return nil, err
		}
		stmts = append(stmts, ins...)
	}
	return stmts, nil
}
