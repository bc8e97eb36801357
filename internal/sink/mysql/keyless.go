package mysql

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/pipeline"
)

// A table without a primary key finds the row of a delete by all its
// written columns, which no index covers: each statement is a scan of the
// table. One DELETE … LIMIT 1 per row made k deletes k scans in one target
// transaction, and on MyRocks k times the table's rows against
// rocksdb_max_row_locks (which counts every row a locking scan reads, also
// with rocksdb_lock_scanned_rows off): the group was refused and applied
// one source transaction at a time, far behind the source (issue 22).
//
// So the inserts and deletes of a keyless table that follow each other in
// a group are written as their net effect on the table's multiset of rows
// (keylessSegment): a delete of a row inserted earlier in the segment
// cancels that insert (either copy is the row); the deletes left, each of a
// row the target held before the segment, go first, then the inserts left,
// in order. That is the sequence's result, and it fails exactly when the
// sequence would: a delete left over finds fewer copies than it deletes.
// Deleting first never breaks a unique key the final rows keep.
//
// The deletes go in chunks of up to maxStmtRows distinct rows, each two
// scans: a plain read counting the target's copies of every distinct row,
// then one DELETE of the rows whose copies the chunk deletes all (… WHERE
// (a,b) IN ((…),(…)), appendFind). A row the target holds more copies of than the chunk
// deletes goes alone with LIMIT (any copy is the row); one it holds fewer
// of is a divergence, as a LIMIT 1 DELETE finding nothing was. The counts
// hold until the DELETE: a change of a row matching a counted one shares
// its conflict key (every change of a table without row identity shares
// one, internal/pipeline), so no other worker writes such a row in between.

// keylessRow reports whether ch is an insert or delete of a table without
// a primary key (the sink finds its rows by all their columns).
func (s *session) keylessRow(ch pipeline.Change) bool {
	if ch.Op != model.Insert && ch.Op != model.Delete {
		return false
	}
	p, err := s.plan(ch.Table)
	return err == nil && p.key == nil
}

// keylessSegment queues the net effect of seg, inserts and deletes of one
// keyless table version: the deletes it leaves, then the inserts.
func (s *session) keylessSegment(ctx context.Context, b *batch, seg []pipeline.Change) error {
	p, err := s.plan(seg[0].Table)
	if err != nil {
		return &stmtError{ch: &seg[0], err: err}
	}
	keep := make([]bool, len(seg))
	inserted := map[string][]int{} // row condition → its uncancelled inserts
	buf := make([]byte, 0, 256)
	for i := range seg {
		img := seg[i].After
		if seg[i].Op == model.Delete {
			img = seg[i].Before
		}
		if buf, err = p.appendWhere(buf[:0], img); err != nil {
			return &stmtError{ch: &seg[i], err: err}
		}
		ins := inserted[string(buf)]
		switch {
		case seg[i].Op == model.Insert:
			inserted[string(buf)] = append(ins, i)
			keep[i] = true
		case len(ins) > 0:
			keep[ins[len(ins)-1]] = false
			inserted[string(buf)] = ins[:len(ins)-1]
		default:
			keep[i] = true
		}
	}
	var dels, inss []pipeline.Change
	for i := range seg {
		switch {
		case !keep[i]:
		case seg[i].Op == model.Delete:
			dels = append(dels, seg[i])
		default:
			inss = append(inss, seg[i])
		}
	}
	if len(dels) > 0 {
		if err := s.keylessDeletes(ctx, b, p, dels); err != nil {
			return err
		}
	}
	if len(inss) > 0 {
		return s.inserts(ctx, b, p, inss, false)
	}
	return nil
}

// keylessImage is one distinct row of a run of keyless deletes.
type keylessImage struct {
	match string // the row's condition (plan.appendWhere)
	// row is its values as plan.tuple compares them, "" when the plan has
	// no tuple or the row has a NULL (which IN never finds)
	row    string
	first  int // index in the run of its first delete
	copies int // the deletes of it in the run
}

// keylessDeletes queues a run of deletes of a keyless table, exactly one
// row per change, in as few table scans as the statement bounds allow.
func (s *session) keylessDeletes(ctx context.Context, b *batch, p *plan, run []pipeline.Change) error {
	for len(run) > 0 {
		imgs, n, err := s.keylessImages(p, run)
		if err != nil {
			return err
		}
		if err := s.keylessChunk(ctx, b, p, run[:n], imgs); err != nil {
			return err
		}
		run = run[n:]
	}
	return nil
}

// keylessImages reads the distinct rows of the first n deletes of run, as
// many as one statement takes (maxStmtRows rows; the counting SELECT, which
// names each row twice, within the statement bytes).
func (s *session) keylessImages(p *plan, run []pipeline.Change) ([]keylessImage, int, error) {
	var imgs []keylessImage
	at := map[string]int{}
	size, n := 0, 0
	buf := make([]byte, 0, 256)
	for ; n < len(run); n++ {
		var err error
		if buf, err = p.appendWhere(buf[:0], run[n].Before); err != nil {
			return nil, 0, &stmtError{ch: &run[n], err: err}
		}
		if i, ok := at[string(buf)]; ok {
			imgs[i].copies++
			continue
		}
		if len(imgs) > 0 && (len(imgs) >= maxStmtRows || size+2*len(buf) > s.a.stmtBytes) {
			break
		}
		im := keylessImage{match: string(buf), first: n, copies: 1}
		if p.tuple != "" && !hasNull(p, run[n].Before) {
			row, err := p.appendRow(nil, run[n].Before)
			if err != nil {
				return nil, 0, &stmtError{ch: &run[n], err: err}
			}
			im.row = string(row)
		}
		at[im.match] = len(imgs)
		imgs = append(imgs, im)
		size += 2*len(buf) + len(im.row) + 16
	}
	return imgs, n, nil
}

// hasNull reports whether a row image has a NULL in a written column.
func hasNull(p *plan, img []any) bool {
	for _, i := range p.cols {
		if img[i] == nil {
			return true
		}
	}
	return false
}

// appendFind appends the condition finding the rows of imgs: those without
// NULL by "tuple IN (…)" (a sorted search per row read, where conditions
// ORed compare each row read with every image: a fifth of the time for a
// chunk of 200 rows), the others each by its own condition.
func appendFind(q []byte, p *plan, imgs []keylessImage) []byte {
	in, or := false, false
	for _, im := range imgs {
		if im.row == "" {
			continue
		}
		if !in {
			q = append(append(q, p.tuple...), " IN ("...)
			in, or = true, true
		} else {
			q = append(q, ',')
		}
		q = append(q, im.row...)
	}
	if in {
		q = append(q, ')')
	}
	for _, im := range imgs {
		if im.row != "" {
			continue
		}
		if or {
			q = append(q, " OR "...)
		}
		q = append(append(append(q, '('), im.match...), ')')
		or = true
	}
	return q
}

// keylessChunk queues the deletes of run, whose distinct rows are imgs.
func (s *session) keylessChunk(ctx context.Context, b *batch, p *plan, run []pipeline.Change, imgs []keylessImage) error {
	head := "DELETE FROM " + p.qtable + " WHERE "
	limited := func(im keylessImage) error {
		q := fmt.Sprintf("%s%s LIMIT %d", head, im.match, im.copies)
		return b.add(ctx, []byte(q), int64(im.copies), &run[im.first], im.copies)
	}
	if len(imgs) == 1 {
		return limited(imgs[0])
	}
	if err := b.flush(ctx); err != nil { // what the count must see
		return err
	}
	have, err := s.keylessCopies(ctx, p, imgs)
	if err != nil {
		return &stmtError{ch: &run[0], rows: len(run), err: err}
	}
	var all []keylessImage // those whose copies the chunk deletes all
	var want int64
	for i, im := range imgs {
		switch {
		case have[i] < int64(im.copies):
			return &stmtError{sql: head + im.match, ch: &run[im.first], rows: 1,
				err: fmt.Errorf("%w: the target holds %d copies of the row, the source deleted %d", errTargetDiverged, have[i], im.copies)}
		case have[i] > int64(im.copies):
			if err := limited(im); err != nil {
				return err
			}
			continue
		}
		all = append(all, im)
		want += int64(im.copies)
	}
	if len(all) == 0 {
		return nil
	}
	return b.add(ctx, appendFind([]byte(head), p, all), want, &run[all[0].first], int(want))
}

// keylessCopies counts the target's copies of each of imgs in one read of
// the table.
func (s *session) keylessCopies(ctx context.Context, p *plan, imgs []keylessImage) ([]int64, error) {
	q := []byte("SELECT ")
	for i, im := range imgs {
		if i > 0 {
			q = append(q, ',')
		}
		q = append(append(append(q, "SUM("...), im.match...), ')')
	}
	q = append(append(q, " FROM "...), p.qtable...)
	q = appendFind(append(q, " WHERE "...), p, imgs)
	counts := make([]sql.NullInt64, len(imgs))
	dest := make([]any, len(imgs))
	for i := range counts {
		dest[i] = &counts[i]
	}
	if err := s.conn.QueryRowContext(ctx, string(q)).Scan(dest...); err != nil {
		return nil, fmt.Errorf("count the rows to delete: %w", err)
	}
	have := make([]int64, len(imgs))
	for i, c := range counts {
		have[i] = c.Int64 // NULL: no row matched any
	}
	return have, nil
}
