package apply

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sluice-db/sluice/internal/model"
)

// Foreign key actions (ON DELETE / ON UPDATE CASCADE, SET NULL, SET DEFAULT)
// change child rows that the source's binlog does not carry: InnoDB runs
// them inside the storage engine, and only the parent's row event is logged.
// The target has the same foreign keys, so PostgreSQL repeats those changes
// when sluice applies the parent's change. But no conflict key of the parent
// change names the child rows, so a later transaction that depends on them
// (say, a new row taking the unique e-mail address of a login the cascade
// deleted) could be applied before the cascade and fail or diverge.
//
// So a change that may fire such an action (a DELETE, or an UPDATE that
// changes a column of a unique key, of a table some foreign key with an
// action references) holds a cascade key for every table the action can
// reach, transitively; and every change of such a table checks that key: it
// follows the transaction that holds it, in order, on the same worker.
// Checking does not hold the key, so changes of the child tables still run
// in parallel with each other.

// pgTable is a target table by schema and name.
type pgTable struct{ schema, name string }

// cascadeGraph lists, for each parent table of the target, the tables that a
// foreign key action fired by a change of the parent can change (children,
// grandchildren through their own actions, ...), read from pg_constraint.
type cascadeGraph struct {
	reach map[pgTable][]pgTable
	child map[pgTable]bool // tables some action can change
}

// loadCascades reads every foreign key with an action from the target's
// catalog. The catalog is what PostgreSQL will actually do.
func loadCascades(ctx context.Context, pool *pgxpool.Pool) (*cascadeGraph, error) {
	rows, err := pool.Query(ctx, `SELECT pn.nspname::text, p.relname::text, cn.nspname::text, c.relname::text
		FROM pg_constraint k
		JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace cn ON cn.oid = c.relnamespace
		JOIN pg_class p ON p.oid = k.confrelid JOIN pg_namespace pn ON pn.oid = p.relnamespace
		WHERE k.contype = 'f' AND (k.confdeltype IN ('c', 'n', 'd') OR k.confupdtype IN ('c', 'n', 'd'))`)
	if err != nil {
		return nil, fmt.Errorf("apply: read the target's foreign key actions: %w", err)
	}
	edges := map[pgTable][]pgTable{}
	var ps, pt, cs, ct string
	_, err = pgx.ForEachRow(rows, []any{&ps, &pt, &cs, &ct}, func() error {
		p := pgTable{ps, pt}
		edges[p] = append(edges[p], pgTable{cs, ct})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("apply: read the target's foreign key actions: %w", err)
	}
	return newCascadeGraph(edges), nil
}

// newCascadeGraph computes the transitive reach of each parent (cycles and
// self-references included).
func newCascadeGraph(edges map[pgTable][]pgTable) *cascadeGraph {
	g := &cascadeGraph{reach: map[pgTable][]pgTable{}, child: map[pgTable]bool{}}
	for p := range edges {
		seen := map[pgTable]bool{}
		stack := slices.Clone(edges[p])
		for len(stack) > 0 {
			c := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if seen[c] {
				continue
			}
			seen[c] = true
			g.reach[p] = append(g.reach[p], c)
			g.child[c] = true
			stack = append(stack, edges[c]...)
		}
	}
	return g
}

// cascadeTag is what a cascade key of a table hashes; no unique key tag
// starts with 0x01.
func cascadeTag(t pgTable) string { return "\x01cascade\x00" + t.schema + "\x00" + t.name }

// tagKey hashes a bare tag.
func (k *keyHasher) tagKey(tag string) uint64 {
	k.h.Reset()
	k.h.WriteString(tag)
	return k.h.Sum64()
}

// cascadeKeys returns the keys a change holds (the tables its foreign key
// actions may change) and checks (its own table, when an action may change it).
func (d *dispatcher) cascadeKeys(tk *tableKeys, rc *model.RowChange, held, checked []uint64) ([]uint64, []uint64) {
	if d.cascades == nil {
		return held, checked
	}
	self := pgTable{d.a.naming.Schema(tk.table.Database), tk.table.Name}
	if d.cascades.child[self] {
		checked = append(checked, d.hasher.tagKey(cascadeTag(self)))
	}
	reach := d.cascades.reach[self]
	if len(reach) == 0 || rc.Op == model.Insert || (rc.Op == model.Update && !uniqueKeyChanged(tk, rc)) {
		return held, checked
	}
	for _, c := range reach {
		held = append(held, d.hasher.tagKey(cascadeTag(c)))
	}
	return held, checked
}

// uniqueKeyChanged reports whether an update changes a column of any unique
// key (a foreign key references one). Values compare exactly: a change that
// MySQL's collation ignores (case) may still fire ON UPDATE in PostgreSQL.
func uniqueKeyChanged(tk *tableKeys, rc *model.RowChange) bool {
	if tk.wide || len(tk.keys) == 0 {
		return true // no key we can compare: assume the worst
	}
	for _, key := range tk.keys {
		for _, p := range key.parts {
			if p.col >= len(rc.Before) || p.col >= len(rc.After) || !valueEqual(rc.Before[p.col], rc.After[p.col]) {
				return true
			}
		}
	}
	return false
}
