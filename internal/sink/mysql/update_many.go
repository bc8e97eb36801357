package mysql

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/schema"
)

// maxUpdateRows bounds the rows of one multi-row UPDATE.
const maxUpdateRows = 256

// updatesMany says whether the table's target engine takes multi-row
// UPDATEs. Measured on MyRocks: multi-row UPDATEs of parallel workers ran
// into lock wait timeouts (live oltp_write_only stalled), which one-row
// updates do not.
func (a *Sink) updatesMany(t *schema.Table) bool {
	engine := a.cfg.Engine
	if engine == "" {
		engine = t.Engine
	}
	return strings.EqualFold(engine, "InnoDB")
}

// FoldsReinsert is pipeline.ReinsertFolder: a DELETE and a re-INSERT of one
// row become one UPDATE only where updates go several rows to a statement;
// elsewhere (MyRocks) the multi-row DELETE and INSERT they were cost less
// than one-row UPDATEs (measured: live oltp_write_only into MyRocks lagged
// up to 9.3 s with the fold, 2.7 s without).
//
// With UpdateChangedColumns only where the key is one integer column: only
// the CASE UPDATE goes several rows to a statement there. The fold's UPDATE
// then sets the columns in which the re-inserted row differs from the
// deleted one, as an UPDATE of the source would: a column the source wrote
// again with the value it held keeps the target's (docs/reverse.md,
// "Updates write only what changed"). oltp_write_only's delete and
// re-insert of one id were a DELETE and an INSERT more per transaction
// without it.
func (a *Sink) FoldsReinsert(t *schema.Table) bool {
	if !a.updatesMany(t) {
		return false
	}
	if !a.cfg.UpdateChangedColumns {
		return true
	}
	if len(t.PrimaryKey) != 1 {
		return false
	}
	c := t.Column(t.PrimaryKey[0])
	if c == nil {
		return false
	}
	_, ok := intBits[strings.ToLower(c.DataType)]
	return ok
}

// updateManyOK says whether updates of the table may go several rows to a
// statement: it has an integer primary key, a column to set besides it, and unique
// keys made of whole columns (uniqueCols), which an update must leave as
// they were to join one (pipeline.UniqueUnchanged).
func updateManyOK(t *schema.Table, p *plan) ([]int, bool) {
	if p.key == nil || len(p.setCols) == 0 {
		return nil, false
	}
	// An integer key only: the server joins a derived table's binary
	// string to a text key column by a scan of the table, not by the key.
	for _, i := range p.key {
		if _, ok := intBits[strings.ToLower(t.Columns[i].DataType)]; !ok {
			return nil, false
		}
	}
	return t.UniqueKeyColumns()
}

// updates queues a run of updates. Consecutive updates that leave every
// unique-key column unchanged and change distinct rows go several to a
// statement: a CASE UPDATE where the primary key is one integer column
// (update_case.go), else an upsert where nothing else is unique
// (upsertMany), else joined by primary key to the derived table of their
// new values:
//
//	UPDATE db.t AS t JOIN (SELECT k AS k0, v AS c0 UNION ALL SELECT …) AS v
//	ON t.pk = v.k0 SET t.c = v.c0, …
//
// Its found rows (see Open) must be their number: the rows are distinct, so
// a row missing on the target is a divergence, named by a one-row retry.
// The others go one row per statement, in source order.
func (s *session) updates(ctx context.Context, b *batch, p *plan, run []pipeline.Change, single bool) error {
	many := p.updateMany && !single && len(run) >= 2
	// An upsert counts a row it leaves as it was 1, not 2: such an update
	// goes alone (a CASE UPDATE counts it 1 like every other).
	upsert := p.upsertMany && !b.locate && !p.updateCase
	var seen map[uint64]bool
	if many {
		seen = make(map[uint64]bool, min(len(run), maxUpdateRows))
	}
	buf := b.stmt[:0]
	defer func() { b.stmt = buf }()
	for i := 0; i < len(run); {
		j := i
		if many {
			clear(seen)
			for j < len(run) && j-i < maxUpdateRows && run[j].HasIdent && !seen[run[j].Ident] && pipeline.UniqueUnchanged(p.uniqueCols, &run[j].RowChange) &&
				(!upsert || !pipeline.UniqueUnchanged(p.setCols, &run[j].RowChange)) &&
				(!p.changedOnly || p.caseCompatible(&run[i], &run[j])) {
				seen[run[j].Ident] = true
				j++
			}
		}
		if j-i < 2 {
			var err error
			if buf, err = p.appendUpdate(buf[:0], run[i].Before, run[i].After); err != nil {
				return &stmtError{ch: &run[i], err: err}
			}
			if err := b.add(ctx, buf, 1, &run[i], 1); err != nil {
				return err
			}
			i++
			continue
		}
		if p.updateCase {
			var n int
			var err error
			if buf, n, err = updateCase(ctx, b, p, run[i:j], buf); err != nil {
				return err
			}
			i += n
			continue
		}
		if upsert {
			var n int
			var err error
			if buf, n, err = upsertMany(ctx, b, p, run[i:j], buf); err != nil {
				return err
			}
			i += n
			continue
		}
		// Up to the statement size bound (at least two rows).
		buf = append(buf[:0], p.updateManyHead...)
		n := 0
		for i+n < j && (n < 2 || len(buf) < s.a.stmtBytes) {
			var err error
			if buf, err = p.appendUpdateManyRow(buf, n, &run[i+n]); err != nil {
				return &stmtError{ch: &run[i+n], err: err}
			}
			n++
		}
		buf = append(buf, p.updateManyTail...)
		if err := b.addUpdateMany(ctx, buf, p, run[i:i+n]); err != nil {
			return err
		}
		i += n
	}
	return nil
}

// upsertMany writes the first rows of run (at least two, up to the
// statement bound) as one INSERT … ON DUPLICATE KEY UPDATE of their new
// images, and returns how many. It is the cheaper multi-row update on
// InnoDB (no derived table to build and join: measured on the
// oltp_write_only backlog, see docs/benchmarks.md), used where nothing but
// the primary key is unique (plan.upsertMany): there the existing row of
// every key is the one updated. Each updated row counts 2 (and 1 if it was
// inserted or left as it was, found rows): anything but 2 per row fails the
// statement as a divergence, and the group, rolled back, is applied again
// one row at a time (ApplyGroup), which names a missing row. A large
// transaction (b.locate), which has no such retry, keeps the joined UPDATE.
func upsertMany(ctx context.Context, b *batch, p *plan, run []pipeline.Change, buf []byte) ([]byte, int, error) {
	buf = append(buf[:0], p.insertHead...)
	n := 0
	for n < len(run) && (n < 2 || len(buf) < b.s.a.stmtBytes) {
		if n > 0 {
			buf = append(buf, ',')
		}
		var err error
		if buf, err = p.appendRow(buf, run[n].After); err != nil {
			return buf, 0, &stmtError{ch: &run[n], err: err}
		}
		n++
	}
	buf = append(buf, p.upsertTail...)
	return buf, n, b.add(ctx, buf, 2*int64(n), &run[0], n)
}

// buildUpdateMany prepares the fixed parts of a multi-row UPDATE and, where
// only the primary key is unique, of the upsert that replaces it (rowAlias:
// MySQL's "AS new" instead of MariaDB's VALUES()).
func (p *plan) buildUpdateMany(rowAlias bool) {
	if len(p.key) == 1 {
		p.buildUpdateCase()
	}
	p.upsertMany = onlyPrimaryUnique(p.table)
	if p.upsertMany {
		p.upsertTail = p.upsertUpdate(rowAlias) // upsert.go
	}
	p.updateManyHead = "UPDATE " + p.qtable + " AS t JOIN ("
	tail := ") AS v ON "
	for n, i := range p.key {
		if n > 0 {
			tail += " AND "
		}
		tail += "t." + schema.QuoteMySQL(p.table.Columns[i].Name) + " = v.k" + strconv.Itoa(n)
	}
	tail += " SET "
	for n, i := range p.setCols {
		if n > 0 {
			tail += ", "
		}
		tail += "t." + schema.QuoteMySQL(p.table.Columns[i].Name) + " = v.c" + strconv.Itoa(n)
	}
	p.updateManyTail = tail
}

// appendUpdateManyRow appends the derived-table row of one update: its key
// (from the before image) and the new values of the columns it sets; the
// first row names the columns.
func (p *plan) appendUpdateManyRow(buf []byte, n int, ch *pipeline.Change) ([]byte, error) {
	if len(ch.Before) < len(p.table.Columns) || len(ch.After) < len(p.table.Columns) {
		return buf, errShortImage(p, ch)
	}
	if n > 0 {
		buf = append(buf, " UNION ALL "...)
	}
	buf = append(buf, "SELECT "...)
	var err error
	for k, i := range p.key {
		if k > 0 {
			buf = append(buf, ',')
		}
		if buf, err = p.enc[i](buf, ch.Before[i]); err != nil {
			return buf, errColumn(p, i, err)
		}
		if n == 0 {
			buf = append(buf, " AS k"...)
			buf = strconv.AppendInt(buf, int64(k), 10)
		}
	}
	for k, i := range p.setCols {
		buf = append(buf, ',')
		if buf, err = p.enc[i](buf, ch.After[i]); err != nil {
			return buf, errColumn(p, i, err)
		}
		if n == 0 {
			buf = append(buf, " AS c"...)
			buf = strconv.AppendInt(buf, int64(k), 10)
		}
	}
	return buf, nil
}

// onlyPrimaryUnique says whether no unique key but the primary key
// constrains the table's rows (an upsert of a key the target is missing
// could otherwise update the row holding another unique key's value).
func onlyPrimaryUnique(t *schema.Table) bool {
	for _, ix := range t.Indexes {
		if !ix.Unique || ix.Kind == "FULLTEXT" || ix.Kind == "SPATIAL" {
			continue
		}
		if len(ix.Columns) != len(t.PrimaryKey) {
			return false
		}
		for n, c := range ix.Columns {
			if !strings.EqualFold(c.Name, t.PrimaryKey[n]) {
				return false
			}
		}
	}
	return true
}

func errShortImage(p *plan, ch *pipeline.Change) error {
	return fmt.Errorf("row image has %d/%d values, table %s has %d columns", len(ch.Before), len(ch.After), p.table.TableID, len(p.table.Columns))
}

func errColumn(p *plan, i int, err error) error {
	return fmt.Errorf("column %s: %w", p.table.Columns[i].Name, err)
}
