package mysql

import (
	"context"
	"errors"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/schema"
)

// upserts writes a run of a table in the upsert mode
// (pipeline.UpsertTables): inserts and updates set the key to the after
// image with INSERT … ON DUPLICATE KEY UPDATE (an update that changes the
// key first deletes the old one; REPLACE would fire delete cascades),
// deletes remove the key if present; no row count is checked (want -1).
func (s *session) upserts(ctx context.Context, b *batch, p *plan, run []pipeline.Change) error {
	if p.key == nil {
		return &stmtError{ch: &run[0], err: errUpsertKeyless}
	}
	tail := p.upsertUpdate(s.a.rowAlias)
	buf := b.stmt[:0]
	defer func() { b.stmt = buf }()
	for i := range run {
		ch := &run[i]
		var err error
		if ch.Op == model.Delete || ch.Op == model.Update && !p.sameKey(ch.Before, ch.After) {
			buf = append(buf[:0], "DELETE FROM "...)
			buf = append(buf, p.qtable...)
			buf = append(buf, " WHERE "...)
			if buf, err = p.appendWhere(buf, ch.Before); err != nil {
				return &stmtError{ch: ch, err: err}
			}
			if err := b.add(ctx, buf, -1, ch, 1); err != nil {
				return err
			}
		}
		if ch.Op == model.Delete {
			continue
		}
		buf = append(buf[:0], p.insertHead...)
		if buf, err = p.appendRow(buf, ch.After); err != nil {
			return &stmtError{ch: ch, err: err}
		}
		buf = append(buf, tail...)
		if err := b.add(ctx, buf, -1, ch, 1); err != nil {
			return err
		}
	}
	return nil
}

// errUpsertKeyless: the upsert mode finds rows by the primary key
// (window.KeyColumnsOf refuses keyless tables before they get here).
var errUpsertKeyless = errors.New("a table without a primary key on the target cannot be applied as upserts")

// upsertUpdate is the ON DUPLICATE KEY UPDATE clause that sets every
// written column outside the key to the inserted row's (rowAlias: MySQL's
// "AS new", since 8.0.20 deprecates VALUES() here; MariaDB has only
// VALUES()); a table of key columns only sets the key
// to itself.
func (p *plan) upsertUpdate(rowAlias bool) string {
	cols := p.setCols
	if len(cols) == 0 {
		cols = p.key
	}
	tail := " ON DUPLICATE KEY UPDATE "
	if rowAlias {
		tail = " AS new ON DUPLICATE KEY UPDATE "
	}
	for n, i := range cols {
		if n > 0 {
			tail += ","
		}
		q := schema.QuoteMySQL(p.table.Columns[i].Name)
		if rowAlias {
			tail += q + "=new." + q
		} else {
			tail += q + "=VALUES(" + q + ")"
		}
	}
	return tail
}

// sameKey says whether two images hold the same primary key values.
func (p *plan) sameKey(a, b []any) bool {
	for _, i := range p.key {
		if i >= len(a) || i >= len(b) || !pipeline.ValueEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}
