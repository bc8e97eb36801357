package postgres

import (
	"errors"
	"strings"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/schema"
)

// queueUpserts writes a run of a table in the upsert mode
// (pipeline.UpsertTables): inserts and updates set the key to the after
// image (an update that changes the key first deletes the old one), deletes
// remove the key if present; no row count is checked. One row per
// statement: a multi-row INSERT … ON CONFLICT refuses a key twice.
func (w *writer) queueUpserts(plan *ApplyPlan, run []pipeline.Change) error {
	if plan.Keyless {
		return &stmtError{stmt: stmt{ch: &run[0]}, err: errUpsertKeyless}
	}
	for i := range run {
		ch := &run[i]
		if ch.Op == model.Delete || ch.Op == model.Update && !plan.sameKey(ch.Before, ch.After) {
			args, err := plan.DeleteArgs(ch.Before)
			if err != nil {
				return &stmtError{stmt: stmt{ch: ch}, err: err}
			}
			w.queue(stmt{sql: plan.DeleteSQL(), expect: -1, ch: ch, rows: 1}, args...)
		}
		if ch.Op == model.Delete {
			continue
		}
		args, err := plan.AppendInsertArgs(nil, ch.After)
		if err != nil {
			return &stmtError{stmt: stmt{ch: ch}, err: err}
		}
		w.queue(stmt{sql: plan.upsertSQL(), expect: -1, ch: ch, rows: 1}, args...)
	}
	return nil
}

// errUpsertKeyless: the upsert mode needs a key (window.KeyColumnsOf
// refuses keyless tables before they get here).
var errUpsertKeyless = errors.New("a table without a key cannot be applied as upserts")

// sameKey says whether two images hold the same key values.
func (p *ApplyPlan) sameKey(a, b []any) bool {
	for _, c := range p.Key {
		if c >= len(a) || c >= len(b) || !pipeline.ValueEqual(a[c], b[c]) {
			return false
		}
	}
	return true
}

// upsertSQL is the one-row INSERT of the after image that overwrites the
// row of its key: INSERT … ON CONFLICT (key) DO UPDATE SET c = EXCLUDED.c.
func (p *ApplyPlan) upsertSQL() string {
	inKey := map[int]bool{}
	keys := make([]string, len(p.Key))
	for i, c := range p.Key {
		inKey[c] = true
		keys[i] = schema.QuoteIdent(p.Table.Columns[c].Name)
	}
	var sets []string
	for _, c := range p.Cols {
		if !inKey[c] {
			q := schema.QuoteIdent(p.Table.Columns[c].Name)
			sets = append(sets, q+" = EXCLUDED."+q)
		}
	}
	tail := " ON CONFLICT (" + strings.Join(keys, ", ") + ") DO NOTHING"
	if len(sets) > 0 {
		tail = " ON CONFLICT (" + strings.Join(keys, ", ") + ") DO UPDATE SET " + strings.Join(sets, ", ")
	}
	return p.insert[1] + tail
}
