package verify

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/sluice-db/sluice/internal/verify/verifydb"
)

func (e *engine) compareMultiset(ctx context.Context, r *tableRun) error {
	p := r.plan
	src, tgt, moving, err := e.multisetChecksums(ctx, p)
	if err != nil {
		return err
	}
	rows := src[0].Count
	bytes := p.BytesFor(rows)
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
	tgtGroups, err := e.tgt.Groups(ctx, p)
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
	if len(p.JSON) == 0 {
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
func (e *engine) multisetChecksums(ctx context.Context, p *verifydb.Plan) (src, tgt map[int]verifydb.Agg, moving bool, err error) {
	if !e.online {
		src, tgt, err = e.checksums(ctx, p, verifydb.Scope{}, false)
		return src, tgt, false, err
	}
	var prev map[int]verifydb.Agg
	for round := 0; round <= e.o.Recheck; round++ {
		if src, err = p.SourceChecksum(ctx, e.src, verifydb.Scope{}, false); err != nil {
			return nil, nil, false, err
		}
		moving = prev != nil && prev[0] != src[0]
		prev = src
		if err := e.waitForSource(ctx, p); err != nil {
			return nil, nil, false, err
		}
		if tgt, err = e.tgt.Checksum(ctx, p, verifydb.Scope{}, false); err != nil {
			return nil, nil, false, err
		}
		if src[0] == tgt[0] {
			return src, tgt, false, nil
		}
	}
	return src, tgt, moving, nil
}

// waitForSource waits until the replicator applied the source's current position.
func (e *engine) waitForSource(ctx context.Context, p *verifydb.Plan) error {
	pos, err := sourcePosition(ctx, e.src)
	if err != nil {
		return err
	}
	return e.waitForPosition(ctx, p.Name, pos)
}

// sourceGroups returns the source's row hashes with counts, sorted.
func (e *engine) sourceGroups(ctx context.Context, p *verifydb.Plan) ([]verifydb.HashCount, error) {
	return p.MyGroups(ctx, e.src, p.MyTable, "source")
}

// mergeGroups lists the hashes whose counts differ.
func mergeGroups(src, tgt []verifydb.HashCount) []MultisetDiff {
	var out []MultisetDiff
	i, j := 0, 0
	for i < len(src) || j < len(tgt) {
		var d MultisetDiff
		var h uint64
		switch {
		case j >= len(tgt) || (i < len(src) && src[i].Hash < tgt[j].Hash):
			h, d.SourceCount = src[i].Hash, src[i].Count
			i++
		case i >= len(src) || tgt[j].Hash < src[i].Hash:
			h, d.TargetCount = tgt[j].Hash, tgt[j].Count
			j++
		default:
			h, d.SourceCount, d.TargetCount = src[i].Hash, src[i].Count, tgt[j].Count
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
			err = e.src.QueryRowContext(ctx, "SELECT "+p.MyRowText+" FROM "+p.MyTable+" WHERE "+p.MyHash(p.MyRowText)+" = ? LIMIT 1", h).Scan(&text)
		} else {
			text, err = e.tgt.SampleRow(ctx, p, h)
		}
		if err == nil {
			d.SampleSource = verifydb.Truncate(string(text))
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
	src, tgt, err := e.checksums(ctx, p, verifydb.Scope{}, false)
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
func (e *engine) multisetStmts(ctx context.Context, p *verifydb.Plan, diffs []MultisetDiff) ([]verifydb.Stmt, error) {
	if len(p.JSON) > 0 {
		stmts, err := e.jsonMultisetStmts(ctx, p, diffs)
		if err != nil {
			return nil, fmt.Errorf("repair: %w", err)
		}
		return stmts, nil
	}
	var stmts []verifydb.Stmt
	for _, d := range diffs {
		h, _ := strconv.ParseUint(d.RowHash, 16, 64)
		if d.TargetCount > d.SourceCount {
			stmts = append(stmts, e.tgt.DeleteCopies(p, h, d.TargetCount-d.SourceCount))
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
func (e *engine) freshInserts(ctx context.Context, p *verifydb.Plan, h uint64, n int64) ([]verifydb.Stmt, error) {
	sel := make([]string, len(p.Cols))
	for i := range p.Cols {
		sel[i] = verifydb.SelectExprOf(p, i)
	}
	q := "SELECT " + strings.Join(sel, ", ") + " FROM " + p.MyTable + " WHERE " + p.MyHash(p.MyRowText) + " = ? LIMIT " + strconv.FormatInt(n, 10)
	rows, err := e.src.QueryContext(ctx, q, h)
	if err != nil {
		return nil, fmt.Errorf("repair: read %s: %w", p.Name, err)
	}
	src := verifydb.SQLRows{Rows: rows}
	defer src.Close()
	var out []verifydb.Stmt
	for src.Next() {
		vals, err := src.Values(len(sel))
		if err != nil {
			return nil, err
		}
		ins, err := e.tgt.InsertRow(p, vals)
		if err != nil {
			return nil, err
		}
		out = append(out, ins)
	}
	return out, src.Err()
}
