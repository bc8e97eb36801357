package verify

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

// hashCount is a row hash with the number of rows that have it.
type hashCount struct {
	hash  uint64
	count int64
}

func (e *engine) compareMultiset(ctx context.Context, r *tableRun) error {
	p := r.plan
	src, tgt, moving, err := e.multisetChecksums(ctx, p)
	if err != nil {
		return err
	}
	rows := src[0].Count
	bytes := p.bytesFor(rows)
	r.addChunk(rows, bytes)
	e.o.Progress.Advance(bytes)
	if src[0] == tgt[0] {
		return nil
	}
	srcGroups, err := e.sourceGroups(ctx, p)
	if err != nil {
		return err
	}
	if e.online {
		if err := e.waitForSource(ctx, p); err != nil {
			return err
		}
	}
	tgtGroups, err := e.tgt.groups(ctx, p)
	if err != nil {
		return err
	}
	diffs := mergeGroups(srcGroups, tgtGroups)
	if moving {
		// The source table changed between every two readings: the copies
		// that differ may be writes on their way, not differences.
		var n int64
		for _, d := range diffs {
			n += max(d.SourceCount-d.TargetCount, d.TargetCount-d.SourceCount)
		}
		r.addInFlight(n)
		return nil
	}
	r.mu.Lock()
	for i, d := range diffs {
		if d.SourceCount > d.TargetCount {
			r.rep.OnlyInSource += d.SourceCount - d.TargetCount
		} else {
			r.rep.OnlyInTarget += d.TargetCount - d.SourceCount
		}
		if i < e.o.MaxDiffs {
			r.rep.Multiset = append(r.rep.Multiset, d)
		} else {
			r.rep.Truncated = true
		}
	}
	r.mu.Unlock()
	if len(p.json) == 0 {
		e.sampleRows(ctx, r)
	}
	if e.o.Repair || e.o.RepairSQL != nil {
		return e.repairMultiset(ctx, r, diffs)
	}
	return nil
}

// multisetChecksums compares whole-table checksums; online, the target is
// read after the replicator applied what the source read saw, a few times.
// moving says the source's checksum changed between the last two of those
// readings: the table is being written, so a remaining difference may be
// in flight.
func (e *engine) multisetChecksums(ctx context.Context, p *tablePlan) (src, tgt map[int]agg, moving bool, err error) {
	if !e.online {
		src, tgt, err = e.checksums(ctx, p, scope{}, false)
		return src, tgt, false, err
	}
	var prev map[int]agg
	for round := 0; round <= e.o.Recheck; round++ {
		if src, err = p.sourceChecksum(ctx, e.src, scope{}, false); err != nil {
			return nil, nil, false, err
		}
		moving = prev != nil && prev[0] != src[0]
		prev = src
		if err := e.waitForSource(ctx, p); err != nil {
			return nil, nil, false, err
		}
		if tgt, err = e.tgt.checksum(ctx, p, scope{}, false); err != nil {
			return nil, nil, false, err
		}
		if src[0] == tgt[0] {
			return src, tgt, false, nil
		}
	}
	return src, tgt, moving, nil
}

// waitForSource waits until the replicator applied the source's current position.
func (e *engine) waitForSource(ctx context.Context, p *tablePlan) error {
	pos, err := sourcePosition(ctx, e.src)
	if err != nil {
		return err
	}
	return e.waitForPosition(ctx, p.name, pos)
}

// sourceGroups returns the source's row hashes with counts, sorted.
func (e *engine) sourceGroups(ctx context.Context, p *tablePlan) ([]hashCount, error) {
	return p.myGroups(ctx, e.src, p.myTable, "source")
}

// myGroups is sourceGroups of a MySQL table (the source's, or its copy in
// a MySQL target).
func (p *tablePlan) myGroups(ctx context.Context, db *sql.DB, table, side string) ([]hashCount, error) {
	if len(p.json) > 0 {
		sel := []string{p.digest.my(p.myRowText)}
		for _, i := range p.json {
			sel = append(sel, p.cols[i].MySQLRaw)
		}
		r, err := db.QueryContext(ctx, "SELECT "+strings.Join(sel, ", ")+" FROM "+table)
		if err != nil {
			return nil, fmt.Errorf("%s rows of %s: %w", side, p.sideName(side), err)
		}
		return p.goGroups(sqlRows{r}, p.mysqlJSON(side))
	}
	q := "SELECT CAST(h AS CHAR), COUNT(*) FROM (SELECT " + p.myHash(p.myRowText) + " AS h FROM " + table + ") x GROUP BY h ORDER BY h"
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("%s row hashes of %s: %w", side, p.sideName(side), err)
	}
	return readGroups(sqlRows{rows})
}

func readGroups(rows rowSource) ([]hashCount, error) {
	defer rows.Close()
	var out []hashCount
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
		out = append(out, hashCount{h, n})
	}
	return out, rows.Err()
}

// goGroups hashes rows of (row digest, JSON texts...) in Go (memory: one
// entry per distinct row).
func (p *tablePlan) goGroups(rows rowSource, source bool) ([]hashCount, error) {
	defer rows.Close()
	counts := map[uint64]int64{}
	jsons := make([]string, len(p.json))
	for rows.Next() {
		v, err := rows.Values(1 + len(p.json))
		if err != nil {
			return nil, err
		}
		for k := range p.json {
			jsons[k] = p.jsonText(v[1+k], source)
		}
		counts[rowHashOf(v[0], jsons)]++
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]hashCount, 0, len(counts))
	for h, n := range counts {
		out = append(out, hashCount{h, n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].hash < out[j].hash })
	return out, nil
}

// mergeGroups lists the hashes whose counts differ.
func mergeGroups(src, tgt []hashCount) []MultisetDiff {
	var out []MultisetDiff
	i, j := 0, 0
	for i < len(src) || j < len(tgt) {
		var d MultisetDiff
		var h uint64
		switch {
		case j >= len(tgt) || (i < len(src) && src[i].hash < tgt[j].hash):
			h, d.SourceCount = src[i].hash, src[i].count
			i++
		case i >= len(src) || tgt[j].hash < src[i].hash:
			h, d.TargetCount = tgt[j].hash, tgt[j].count
			j++
		default:
			h, d.SourceCount, d.TargetCount = src[i].hash, src[i].count, tgt[j].count
			i++
			j++
		}
		if d.SourceCount != d.TargetCount {
			d.RowHash = fmt.Sprintf("%015x", h)
			out = append(out, d)
		}
	}
	return out
}

// sampleRows shows the row text of the first few differing rows.
func (e *engine) sampleRows(ctx context.Context, r *tableRun) {
	p := r.plan
	const samples = 5
	for i := 0; i < len(r.rep.Multiset) && i < samples; i++ {
		d := &r.rep.Multiset[i]
		h, err := strconv.ParseUint(d.RowHash, 16, 64)
		if err != nil {
			continue
		}
		var text []byte
		if d.SourceCount > d.TargetCount {
			err = e.src.QueryRowContext(ctx, "SELECT "+p.myRowText+" FROM "+p.myTable+" WHERE "+p.myHash(p.myRowText)+" = ? LIMIT 1", h).Scan(&text)
		} else {
			text, err = e.tgt.sampleRow(ctx, p, h)
		}
		if err == nil {
			d.SampleSource = truncate(string(text))
		}
	}
}

// repairMultiset deletes surplus copies from the target and inserts
// missing ones read fresh from the source.
func (e *engine) repairMultiset(ctx context.Context, r *tableRun, diffs []MultisetDiff) error {
	p := r.plan
	stmts, err := e.multisetStmts(ctx, p, diffs)
	if err != nil {
		return err
	}
	if err := e.runRepair(ctx, p, stmts); err != nil {
		return fmt.Errorf("repair: %w", err)
	}
	if e.o.RepairSQL != nil {
		return nil // written, not applied: nothing to check again
	}
	src, tgt, err := e.checksums(ctx, p, scope{}, false)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if src[0] == tgt[0] {
		r.rep.Repaired = r.rep.Differences()
	} else {
		r.repairedAll = false
	}
	return nil
}

// multisetStmts are the repair statements of a keyless table: surplus
// copies deleted by row hash, missing ones inserted as read fresh from
// the source (by their stored JSON text when the table has JSON columns:
// multiset_json.go).
func (e *engine) multisetStmts(ctx context.Context, p *tablePlan, diffs []MultisetDiff) ([]stmt, error) {
	if len(p.json) > 0 {
		stmts, err := e.jsonMultisetStmts(ctx, p, diffs)
		if err != nil {
			return nil, fmt.Errorf("repair: %w", err)
		}
		return stmts, nil
	}
	var stmts []stmt
	for _, d := range diffs {
		h, _ := strconv.ParseUint(d.RowHash, 16, 64)
		if d.TargetCount > d.SourceCount {
			stmts = append(stmts, e.tgt.deleteCopies(p, h, d.TargetCount-d.SourceCount))
			continue
		}
		ins, err := e.freshInserts(ctx, p, h, d.SourceCount-d.TargetCount)
		if err != nil {
			return nil, err
		}
		stmts = append(stmts, ins...)
	}
	return stmts, nil
}

// freshInserts reads n source rows with row hash h and returns their inserts.
func (e *engine) freshInserts(ctx context.Context, p *tablePlan, h uint64, n int64) ([]stmt, error) {
	sel := make([]string, len(p.cols))
	for i := range p.cols {
		sel[i] = selectExprOf(p, i)
	}
	q := "SELECT " + strings.Join(sel, ", ") + " FROM " + p.myTable + " WHERE " + p.myHash(p.myRowText) + " = ? LIMIT " + strconv.FormatInt(n, 10)
	rows, err := e.src.QueryContext(ctx, q, h)
	if err != nil {
		return nil, fmt.Errorf("repair: read %s: %w", p.name, err)
	}
	src := sqlRows{rows}
	defer src.Close()
	var out []stmt
	for src.Next() {
		vals, err := src.Values(len(sel))
		if err != nil {
			return nil, err
		}
		ins, err := e.tgt.insertRow(p, vals)
		if err != nil {
			return nil, err
		}
		out = append(out, ins)
	}
	return out, src.Err()
}
