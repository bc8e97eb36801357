package postgres

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/schema"
)

// Foreign key actions under the replica role.
//
// MariaDB and MySQL before 9 run ON DELETE / ON UPDATE actions inside InnoDB
// and log only the parent's row change; the child rows they change are in
// no binlog event. The target has the same foreign keys, and without the
// replica role PostgreSQL repeated the actions when the parent's change was
// applied. The replica role (replica.go) keeps PostgreSQL's foreign key
// triggers from firing, actions included, so the sink performs them itself,
// in the same transaction and in order: right after the parent's statement,
// before any later change of the transaction, as the triggers did. Each
// action is one statement per parent row, by the referenced values; the
// rows it changes are followed through their own tables' actions.
// Performing them by hand also means the target's ordinary triggers do not
// fire on the cascaded rows either, as MySQL fires none on them.
//
// A source that logs its actions (MySQL 9, foreign keys in the SQL layer)
// has the child changes in the binlog before the parent's: nothing is done
// (Config.SourceLogsFKActions).

// fkAction is one foreign key of the target with an action.
type fkAction struct {
	name       string         // constraint name, for errors
	child      pgx.Identifier // target schema and table
	childName  string         // TargetName form: schema NUL table
	childCols  []string
	parentCols []string
	onDelete   byte // pg_constraint.confdeltype: 'c' cascade, 'n' set null, 'd' set default, else none
	onUpdate   byte // pg_constraint.confupdtype
}

func isAction(b byte) bool { return b == 'c' || b == 'n' || b == 'd' }

// fkActions are the target's foreign keys with an action, by parent table
// (TargetName form).
type fkActions map[string][]fkAction

// readActions reads every foreign key with an action from the target's
// catalog (what PostgreSQL's triggers would do), and the parent → child
// edges the pipeline orders by (pipeline.Cascades).
func readActions(ctx context.Context, q Querier) (fkActions, map[string][]string, error) {
	rows, err := q.Query(ctx, `SELECT k.conname::text, pn.nspname::text, p.relname::text, cn.nspname::text, c.relname::text,
			k.confdeltype::text, k.confupdtype::text,
			ARRAY(SELECT a.attname::text FROM unnest(k.conkey) WITH ORDINALITY u(n, i)
				JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.n ORDER BY u.i),
			ARRAY(SELECT a.attname::text FROM unnest(k.confkey) WITH ORDINALITY u(n, i)
				JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = u.n ORDER BY u.i)
		FROM pg_constraint k
		JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace cn ON cn.oid = c.relnamespace
		JOIN pg_class p ON p.oid = k.confrelid JOIN pg_namespace pn ON pn.oid = p.relnamespace
		WHERE k.contype = 'f' AND (k.confdeltype IN ('c', 'n', 'd') OR k.confupdtype IN ('c', 'n', 'd'))
		ORDER BY pn.nspname, p.relname, k.conname`)
	if err != nil {
		return nil, nil, fmt.Errorf("apply: read the target's foreign key actions: %w", err)
	}
	acts := fkActions{}
	edges := map[string][]string{}
	var ps, pt, cs, ct, del, upd string
	var a fkAction
	_, err = pgx.ForEachRow(rows, []any{&a.name, &ps, &pt, &cs, &ct, &del, &upd, &a.childCols, &a.parentCols}, func() error {
		p := ps + "\x00" + pt
		a.child, a.childName = pgx.Identifier{cs, ct}, cs+"\x00"+ct
		a.onDelete, a.onUpdate = del[0], upd[0]
		acts[p] = append(acts[p], a)
		edges[p] = append(edges[p], a.childName)
		a = fkAction{}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("apply: read the target's foreign key actions: %w", err)
	}
	return acts, edges, nil
}

// refColumns are the parent columns some action of acts references, in a
// stable order.
func refColumns(acts []fkAction) []string {
	var cols []string
	for _, a := range acts {
		for _, c := range a.parentCols {
			if !slices.Contains(cols, c) {
				cols = append(cols, c)
			}
		}
	}
	return cols
}

// refRow is the values of some columns of one row, by target column name.
type refRow map[string]any

// pick returns the values of cols, and false when one is NULL (MATCH
// SIMPLE: a child with a NULL in its foreign key references nothing).
func (r refRow) pick(cols []string) ([]any, bool) {
	vals := make([]any, len(cols))
	for i, c := range cols {
		if vals[i] = r[c]; vals[i] == nil {
			return nil, false
		}
	}
	return vals, true
}

// maxCascadeDepth bounds the nesting of actions (InnoDB stops at 15).
const maxCascadeDepth = 64

// cascader performs foreign key actions on one session's connection.
type cascader struct {
	conn    *pgx.Conn
	actions fkActions
}

// cascadeError is an action that failed, with its statement.
type cascadeError struct {
	sql string
	err error
}

func (e *cascadeError) Error() string { return "foreign key action: " + e.sql + ": " + e.err.Error() }
func (e *cascadeError) Unwrap() error { return e.err }

// deleted performs the ON DELETE actions for deleted rows of parent: one
// statement per foreign key for up to 256 of them ("fk" IN ($1, ...)), then
// the same for the rows those statements changed, table by table.
func (c *cascader) deleted(ctx context.Context, parent string, olds []refRow, depth int) error {
	for _, a := range c.actions[parent] {
		if !isAction(a.onDelete) {
			continue
		}
		var keys [][]any
		for _, old := range olds {
			if vals, ok := old.pick(a.parentCols); ok {
				keys = append(keys, vals)
			}
		}
		if len(keys) == 0 {
			continue
		}
		ret := refColumns(c.actions[a.childName])
		if a.onDelete != 'c' && overlaps(ret, a.childCols) {
			// The children's own ON UPDATE actions need each row's old
			// values: one parent row at a time.
			for _, vals := range keys {
				if err := c.setChildren(ctx, a, vals, a.onDelete, nil, depth); err != nil {
					return err
				}
			}
			continue
		}
		var changed []refRow
		for len(keys) > 0 {
			n := inChunk(len(keys), len(a.childCols))
			var sql string
			if a.onDelete == 'c' {
				sql = "DELETE FROM " + a.child.Sanitize() + " WHERE " + inList(a.childCols, n) + returning(ret)
			} else {
				sql = "UPDATE " + a.child.Sanitize() + " SET " + setTo(a.childCols, a.onDelete) + " WHERE " + inList(a.childCols, n)
				ret = nil // the columns set are referenced by no action: nothing to follow
			}
			var args []any
			for _, k := range keys[:n] {
				args = append(args, k...)
			}
			rows, err := c.run(ctx, sql, ret, args, depth)
			if err != nil {
				return err
			}
			changed = append(changed, rows...)
			keys = keys[n:]
		}
		if len(changed) > 0 {
			if err := c.deleted(ctx, a.childName, changed, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// overlaps says whether a and b share a column.
func overlaps(a, b []string) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

// setTo is "a" = NULL, ... (SET NULL) or "a" = DEFAULT, ... (SET DEFAULT).
func setTo(cols []string, action byte) string {
	to := " = DEFAULT"
	if action == 'n' {
		to = " = NULL"
	}
	set := make([]string, len(cols))
	for i, col := range cols {
		set[i] = schema.QuoteIdent(col) + to
	}
	return strings.Join(set, ", ")
}

// inBuckets are the row counts of the IN lists (few distinct prepared
// statements per foreign key, as the apply plans' buckets).
var inBuckets = []int{256, 64, 16, 4, 1}

// inChunk is the largest bucket not above rows whose parameters fit.
func inChunk(rows, cols int) int {
	for _, b := range inBuckets {
		if b <= rows && b*cols <= maxParams {
			return b
		}
	}
	return 1
}

// inList is "a" IN ($1, ..., $rows) for one column, ("a", "b") IN (($1, $2),
// ...) for several: each parameter takes its column's type.
func inList(cols []string, rows int) string {
	q := make([]string, len(cols))
	for i, c := range cols {
		q[i] = schema.QuoteIdent(c)
	}
	tuples := make([]string, rows)
	for r := range rows {
		ps := make([]string, len(cols))
		for i := range cols {
			ps[i] = "$" + strconv.Itoa(r*len(cols)+i+1)
		}
		tuples[r] = strings.Join(ps, ", ")
		if len(cols) > 1 {
			tuples[r] = "(" + tuples[r] + ")"
		}
	}
	lhs := q[0]
	if len(cols) > 1 {
		lhs = "(" + strings.Join(q, ", ") + ")"
	}
	return lhs + " IN (" + strings.Join(tuples, ", ") + ")"
}

// updated performs the ON UPDATE actions for a row of parent whose
// referenced columns changed.
func (c *cascader) updated(ctx context.Context, parent string, old, new refRow, depth int) error {
	for _, a := range c.actions[parent] {
		if !isAction(a.onUpdate) {
			continue
		}
		ov, ok := old.pick(a.parentCols)
		if !ok {
			continue
		}
		nv := make([]any, len(a.parentCols))
		for i, col := range a.parentCols {
			nv[i] = new[col]
		}
		if reflect.DeepEqual(ov, nv) {
			continue // the key did not change: PostgreSQL's trigger does nothing either
		}
		if err := c.setChildren(ctx, a, ov, a.onUpdate, nv, depth); err != nil {
			return err
		}
	}
	return nil
}

// setChildren updates the foreign key columns of the children that
// reference vals: to to (CASCADE), NULL or DEFAULT; then follows the
// children's own ON UPDATE actions.
func (c *cascader) setChildren(ctx context.Context, a fkAction, vals []any, action byte, to []any, depth int) error {
	args := append([]any(nil), vals...)
	set := setTo(a.childCols, action)
	if action == 'c' {
		parts := make([]string, len(a.childCols))
		for i, col := range a.childCols {
			args = append(args, to[i])
			parts[i] = schema.QuoteIdent(col) + " = $" + strconv.Itoa(len(args))
		}
		set = strings.Join(parts, ", ")
	}
	ret := refColumns(c.actions[a.childName])
	sql := "UPDATE " + a.child.Sanitize() + " SET " + set + " WHERE " + inList(a.childCols, 1) + returning(ret)
	rows, err := c.run(ctx, sql, ret, args, depth)
	if err != nil {
		return err
	}
	for _, r := range rows {
		// The returned row is the new one; its foreign key columns held vals before.
		old := refRow{}
		for k, v := range r {
			old[k] = v
		}
		for i, col := range a.childCols {
			if _, ok := old[col]; ok {
				old[col] = vals[i]
			}
		}
		if err := c.updated(ctx, a.childName, old, r, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// run executes one action statement and returns the rows it returned.
func (c *cascader) run(ctx context.Context, sql string, ret []string, args []any, depth int) ([]refRow, error) {
	if depth >= maxCascadeDepth {
		return nil, &cascadeError{sql: sql, err: fmt.Errorf("foreign key actions nested deeper than %d levels", maxCascadeDepth)}
	}
	if len(ret) == 0 {
		if _, err := c.conn.Exec(ctx, sql, args...); err != nil {
			return nil, &cascadeError{sql: sql, err: err}
		}
		return nil, nil
	}
	rows, err := c.conn.Query(ctx, sql, args...)
	if err != nil {
		return nil, &cascadeError{sql: sql, err: err}
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (refRow, error) {
		vals, err := r.Values()
		if err != nil {
			return nil, err
		}
		row := make(refRow, len(ret))
		for i, col := range ret {
			row[col] = vals[i]
		}
		return row, nil
	})
	if err != nil {
		return nil, &cascadeError{sql: sql, err: err}
	}
	return out, nil
}

func returning(cols []string) string {
	if len(cols) == 0 {
		return ""
	}
	q := make([]string, len(cols))
	for i, c := range cols {
		q[i] = schema.QuoteIdent(c)
	}
	return " RETURNING " + strings.Join(q, ", ")
}

// cascadeRun performs the actions of a run of deletes or updates the
// writer has queued: it sends them first, so the actions follow their
// parent's statement and precede every later change.
func (w *writer) cascadeRun(ctx context.Context, plan *ApplyPlan, run []pipeline.Change) error {
	if w.cascade == nil {
		return nil
	}
	parent := plan.Ident[0] + "\x00" + plan.Ident[1]
	acts := w.cascade.actions[parent]
	if len(acts) == 0 {
		return nil
	}
	cols := refColumns(acts)
	type firing struct {
		ch       *pipeline.Change
		old, new refRow
	}
	var fire []firing
	for i := range run {
		ch := &run[i]
		old, err := plan.refRow(cols, ch.Before)
		if err != nil {
			return &stmtError{stmt: stmt{ch: ch}, err: err}
		}
		f := firing{ch: ch, old: old}
		if ch.Op == model.Update {
			if f.new, err = plan.refRow(cols, ch.After); err != nil {
				return &stmtError{stmt: stmt{ch: ch}, err: err}
			}
			if reflect.DeepEqual(f.old, f.new) {
				continue
			}
		}
		fire = append(fire, f)
	}
	if len(fire) == 0 {
		return nil
	}
	if err := w.flush(ctx); err != nil {
		return err
	}
	fail := func(ch *pipeline.Change, err error) error {
		return &stmtError{stmt: stmt{sql: "foreign key action of " + plan.QTable, ch: ch, rows: len(fire)}, err: err}
	}
	if run[0].Op == model.Delete {
		olds := make([]refRow, len(fire))
		for i, f := range fire {
			olds[i] = f.old
		}
		if err := w.cascade.deleted(ctx, parent, olds, 0); err != nil {
			return fail(fire[0].ch, err)
		}
		return nil
	}
	for _, f := range fire {
		if err := w.cascade.updated(ctx, parent, f.old, f.new, 0); err != nil {
			return fail(f.ch, err)
		}
	}
	return nil
}

// refRow converts the values of the named target columns of an image.
func (p *ApplyPlan) refRow(cols []string, img []any) (refRow, error) {
	r := make(refRow, len(cols))
	for _, name := range cols {
		i := p.Table.ColumnIndex(name)
		if i < 0 || i >= len(img) {
			return nil, fmt.Errorf("a foreign key action of the target references column %s of %s, "+
				"which the source's row does not carry", name, p.QTable)
		}
		v, err := p.conv.Columns[i].FromBinlog(img[i])
		if err != nil {
			return nil, err
		}
		r[name] = v
	}
	return r, nil
}
