package verifydb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Tables without a key are compared as multisets of rows: the count and
// the sum of the row hashes of the whole table on each side; when they
// differ, each side's rows grouped by row hash with their counts, which
// tells how many copies of which row are missing or extra.

// HashCount is a row hash with the number of rows that have it.
type HashCount struct {
	Hash  uint64
	Count int64
}

// MyGroups is sourceGroups of a MySQL table (the source's, or its copy in
// a MySQL target).
func (p *Plan) MyGroups(ctx context.Context, db *sql.DB, table, side string) ([]HashCount, error) {
	if len(p.JSON) > 0 {
		sel := []string{p.Digest.My(p.MyRowText)}
		for _, i := range p.JSON {
			sel = append(sel, p.Cols[i].MySQLRaw)
		}
		r, err := db.QueryContext(ctx, "SELECT "+strings.Join(sel, ", ")+" FROM "+table)
		if err != nil {
			return nil, fmt.Errorf("%s rows of %s: %w", side, p.sideName(side), err)
		}
		return p.GoGroups(SQLRows{Rows: r}, p.MySQLJSON(side))
	}
	q := "SELECT CAST(h AS CHAR), COUNT(*) FROM (SELECT " + p.MyHash(p.MyRowText) + " AS h FROM " + table + ") x GROUP BY h ORDER BY h"
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("%s row hashes of %s: %w", side, p.sideName(side), err)
	}
	return ReadGroups(SQLRows{Rows: rows})
}

func ReadGroups(rows RowSource) ([]HashCount, error) {
	defer rows.Close()
	var out []HashCount
	for rows.Next() {
		v, err := rows.Values(2)
		if err != nil {
			return nil, err
		}
		h, err1 := strconv.ParseUint(string(v[0]), 10, 64)
		n, err2 := strconv.ParseInt(string(v[1]), 10, 64)
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("row hash: %w", err)
		}
		out = append(out, HashCount{h, n})
	}
	return out, rows.Err()
}

// GoGroups hashes rows of (row digest, JSON texts...) in Go (memory: one
// entry per distinct row).
func (p *Plan) GoGroups(rows RowSource, source bool) ([]HashCount, error) {
	defer rows.Close()
	counts := map[uint64]int64{}
	jsons := make([]string, len(p.JSON))
	for rows.Next() {
		v, err := rows.Values(1 + len(p.JSON))
		if err != nil {
			return nil, err
		}
		for k := range p.JSON {
			jsons[k] = p.JSONText(v[1+k], source)
		}
		counts[RowHashOf(v[0], jsons)]++
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]HashCount, 0, len(counts))
	for h, n := range counts {
		out = append(out, HashCount{h, n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Hash < out[j].Hash })
	return out, nil
}
