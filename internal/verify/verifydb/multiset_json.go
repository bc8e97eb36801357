package verifydb

import (
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

// JSONRowID is one stored spelling of a row of a keyless JSON table.
type JSONRowID struct {
	Digest string
	Raws   []*string // nil: SQL NULL
}

func (id JSONRowID) key() string {
	var b strings.Builder
	b.WriteString(id.Digest)
	for _, r := range id.Raws {
		if r == nil {
			b.WriteString("|N")
			continue
		}
		fmt.Fprintf(&b, "|%d:%s", len(*r), *r)
	}
	return b.String()
}

// JSONRowSelect is the select list of (row digest, JSON raw texts...) on a
// MySQL side (pg false) or on PostgreSQL.
func (p *Plan) JSONRowSelect(pg bool) []string {
	if pg {
		sel := []string{p.Digest.PG(p.PGRowText)}
		for _, i := range p.JSON {
			sel = append(sel, p.Cols[i].PGRaw)
		}
		return sel
	}
	sel := []string{p.Digest.My(p.MyRowText)}
	for _, i := range p.JSON {
		sel = append(sel, p.Cols[i].MySQLRaw)
	}
	return sel
}

// SurplusIDs reads the target's rows of a keyless JSON table and returns,
// for the row hashes the target has too many of, which stored spellings to
// delete and how many of each.
func (p *Plan) SurplusIDs(rows RowSource, surplus map[uint64]int64) ([]JSONRowID, []int64, error) {
	defer rows.Close()
	left := make(map[uint64]int64, len(surplus))
	for h, n := range surplus {
		left[h] = n
	}
	var ids []JSONRowID
	var counts []int64
	at := map[string]int{}
	jsons := make([]string, len(p.JSON))
	for rows.Next() {
		v, err := rows.Values(1 + len(p.JSON))
		if err != nil {
			return nil, nil, err
		}
		for k := range p.JSON {
			jsons[k] = p.JSONText(v[1+k], false)
		}
		h := RowHashOf(v[0], jsons)
		if left[h] == 0 {
			continue
		}
		left[h]--
		id := JSONRowID{Digest: string(v[0]), Raws: make([]*string, len(p.JSON))}
		for k := range p.JSON {
			if v[1+k] != nil {
				s := string(v[1+k]) // copied: the row's buffers are reused
				id.Raws[k] = &s
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
		return nil, nil, fmt.Errorf("target rows of %s: %w", p.Target, err)
	}
	return ids, counts, nil
}

// jsonIDArgs are a jsonRowID's digest and texts as statement arguments.
func (id JSONRowID) Args() []any {
	args := []any{id.Digest}
	for _, r := range id.Raws {
		if r == nil {
			args = append(args, nil)
			continue
		}
		args = append(args, *r)
	}
	return args
}
