package verify

import (
	"context"
	"fmt"
	"strings"
)

// A keyless table with JSON columns has row hashes computed in Go (the
// JSON is canonicalised there, checksum.go), so SQL cannot select its rows
// by hash. Its repair selects them by what both engines can compare
// exactly instead: the digest of the non-JSON columns (computed in SQL,
// as for any row) and each JSON column's stored text as the side prints it
// (PostgreSQL jsonb::text, MySQL's JSON text; NULL as NULL). Rows with one
// row hash but other stored texts (the same document spelled twice in a
// json column) are separate identities, each deleted up to its count.

// jsonRowID is one stored spelling of a row of a keyless JSON table.
type jsonRowID struct {
	digest string
	raws   []*string // nil: SQL NULL
}

func (id jsonRowID) key() string {
	var b strings.Builder
	b.WriteString(id.digest)
	for _, r := range id.raws {
		if r == nil {
			b.WriteString("|N")
			continue
		}
		fmt.Fprintf(&b, "|%d:%s", len(*r), *r)
	}
	return b.String()
}

// jsonRowSelect is the select list of (row digest, JSON raw texts...) on a
// MySQL side (pg false) or on PostgreSQL.
func (p *tablePlan) jsonRowSelect(pg bool) []string {
	if pg {
		sel := []string{p.digest.pg(p.pgRowText)}
		for _, i := range p.json {
			sel = append(sel, p.cols[i].PGRaw)
		}
		return sel
	}
	sel := []string{p.digest.my(p.myRowText)}
	for _, i := range p.json {
		sel = append(sel, p.cols[i].MySQLRaw)
	}
	return sel
}

// surplusIDs reads the target's rows of a keyless JSON table and returns,
// for the row hashes the target has too many of, which stored spellings to
// delete and how many of each.
func (p *tablePlan) surplusIDs(rows rowSource, surplus map[uint64]int64) ([]jsonRowID, []int64, error) {
	defer rows.Close()
	left := make(map[uint64]int64, len(surplus))
	for h, n := range surplus {
		left[h] = n
	}
	var ids []jsonRowID
	var counts []int64
	at := map[string]int{}
	jsons := make([]string, len(p.json))
	for rows.Next() {
		v, err := rows.Values(1 + len(p.json))
		if err != nil {
			return nil, nil, err
		}
		for k := range p.json {
			jsons[k] = p.jsonText(v[1+k], false)
		}
		h := rowHashOf(v[0], jsons)
		if left[h] == 0 {
			continue
		}
		left[h]--
		id := jsonRowID{digest: string(v[0]), raws: make([]*string, len(p.json))}
		for k := range p.json {
			if v[1+k] != nil {
				s := string(v[1+k]) // copied: the row's buffers are reused
				id.raws[k] = &s
			}
		}
		if i, ok := at[id.key()]; ok {
			counts[i]++
			continue
		}
		at[id.key()] = len(ids)
		ids = append(ids, id)
		counts = append(counts, 1)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("target rows of %s: %w", p.target, err)
	}
	return ids, counts, nil
}

// freshJSONInserts reads the whole source table once and returns inserts
// of the rows whose row hash the target lacks, as many of each as missing.
func (e *engine) freshJSONInserts(ctx context.Context, p *tablePlan, missing map[uint64]int64) ([]stmt, error) {
	left := make(map[uint64]int64, len(missing))
	for h, n := range missing {
		left[h] = n
	}
	sel := make([]string, 0, len(p.cols)+1+len(p.json))
	for i := range p.cols {
		sel = append(sel, selectExprOf(p, i))
	}
	sel = append(sel, p.jsonRowSelect(false)...)
	rows, err := e.src.QueryContext(ctx, "SELECT "+strings.Join(sel, ", ")+" FROM "+p.myTable)
	if err != nil {
		return nil, fmt.Errorf("repair: read %s: %w", p.name, err)
	}
	src := sqlRows{rows}
	defer src.Close()
	var out []stmt
	jsons := make([]string, len(p.json))
	n := len(p.cols)
	for src.Next() {
		v, err := src.Values(len(sel))
		if err != nil {
			return nil, fmt.Errorf("repair: read %s: %w", p.name, err)
		}
		for k := range p.json {
			jsons[k] = p.jsonText(v[n+1+k], p.mysqlJSON("source"))
		}
		h := rowHashOf(v[n], jsons)
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
		ins, err := e.tgt.insertRow(p, vals)
		if err != nil {
			return nil, err
		}
		out = append(out, ins)
	}
	if err := src.Err(); err != nil {
		return nil, fmt.Errorf("repair: read %s: %w", p.name, err)
	}
	return out, nil
}

// jsonMultisetStmts are the repair statements of a keyless table with
// JSON columns: deletes of surplus target rows by their stored spelling,
// inserts of missing rows read fresh from the source. A source row that
// changed since the comparison is simply not found; the check after the
// repair then reports the table as not repaired.
func (e *engine) jsonMultisetStmts(ctx context.Context, p *tablePlan, diffs []MultisetDiff) ([]stmt, error) {
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
	var stmts []stmt
	if len(surplus) > 0 {
		rows, err := e.tgt.jsonRows(ctx, p)
		if err != nil {
			return nil, err
		}
		ids, counts, err := p.surplusIDs(rows, surplus)
		if err != nil {
			return nil, err
		}
		for i, id := range ids {
			stmts = append(stmts, e.tgt.deleteJSONCopies(p, id, counts[i]))
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

// jsonIDArgs are a jsonRowID's digest and texts as statement arguments.
func (id jsonRowID) args() []any {
	args := []any{id.digest}
	for _, r := range id.raws {
		if r == nil {
			args = append(args, nil)
			continue
		}
		args = append(args, *r)
	}
	return args
}
