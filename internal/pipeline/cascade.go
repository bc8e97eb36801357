package pipeline

import (
	"slices"

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

// Cascades lists, for each parent table of the target, the tables that a
// foreign key action fired by a change of the parent can change (children,
// grandchildren through their own actions, ...). Tables are named as
// Sink.TargetName names them; the sink reads the actions from the target's
// catalog, which is what the target will actually do.
type Cascades struct {
	reach map[string][]string
	child map[string]bool // tables some action can change
}

// NewCascades computes the transitive reach of each parent from the direct
// edges parent → children (cycles and self-references included).
func NewCascades(edges map[string][]string) *Cascades {
	g := &Cascades{reach: map[string][]string{}, child: map[string]bool{}}
	for p := range edges {
		seen := map[string]bool{}
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
func cascadeTag(t string) string { return "\x01cascade\x00" + t }

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
	self := tk.target
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
			if p.col >= len(rc.Before) || p.col >= len(rc.After) || !ValueEqual(rc.Before[p.col], rc.After[p.col]) {
				return true
			}
		}
	}
	return false
}
