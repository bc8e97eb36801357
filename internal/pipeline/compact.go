package pipeline

import (
	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
)

// compact folds consecutive changes of one row inside a group, as TiDB DM's
// compactor does, but only where the result is exactly equivalent:
//
//	insert + update → insert of the new image
//	insert + delete → nothing
//	update + update → one update from the first before to the last after image
//	update + delete → delete of the first before image
//	delete + insert → update from the deleted to the inserted image
//
// A later change j folds into an earlier change i only when j's before image
// is exactly i's after image (the same row state) and no change between them
// touched any conflict key of either: then nothing in between can observe
// the intermediate row or collide with its unique values, and applying the
// merged change at i's place leaves the same rows.
//
// A delete and a re-insert of the same row identity (sysbench's
// oltp_write_only does one per transaction, ORMs' "replace" saves do too)
// become one update only when neither holds a cascade key: a foreign key
// action in the target (ON DELETE CASCADE, SET NULL, ...) would change the
// children on the delete and not on the update. Without one, the target ends
// with the same rows either way (sluice's apply sessions do not fire the
// target's ON UPDATE emulation, and a MySQL target counts found rows, so an
// update to the same values still proves the row was there), and the target
// does one row change instead of two.
//
// It rewrites cs in place and returns the live changes in order. foldReinsert
// (nil: every table) says for which tables a delete and re-insert may fold.
func compact(cs []Change, foldReinsert func(*schema.Table) bool) []Change {
	if len(cs) < 2 {
		return cs
	}
	lastTouch := make(map[uint64]int, len(cs)*2)
	for j := range cs {
		cj := &cs[j]
		if i, ok := foldTarget(cs, lastTouch, j, foldReinsert); ok {
			merge(&cs[i], cj)
			for _, k := range cj.keys {
				lastTouch[k] = i
			}
			continue
		}
		for _, k := range cj.keys {
			lastTouch[k] = j
		}
	}
	out := cs[:0]
	for _, c := range cs {
		if !c.dead {
			out = append(out, c)
		}
	}
	return out
}

// foldTarget returns the earlier change that change j can fold into.
func foldTarget(cs []Change, lastTouch map[uint64]int, j int, foldReinsert func(*schema.Table) bool) (int, bool) {
	cj := &cs[j]
	if !cj.HasIdent {
		return 0, false
	}
	i, ok := lastTouch[cj.Ident]
	if !ok {
		return 0, false
	}
	ci := &cs[i]
	if ci.dead || ci.Table != cj.Table {
		return 0, false
	}
	reinsert := ci.Op == model.Delete && cj.Op == model.Insert
	switch {
	case reinsert:
		if !ci.HasIdent || ci.Ident != cj.Ident || len(ci.cascade) > 0 || len(cj.cascade) > 0 ||
			(foldReinsert != nil && !foldReinsert(ci.Table)) {
			return 0, false
		}
	case cj.Op == model.Update || cj.Op == model.Delete:
		if ci.Op != model.Insert && ci.Op != model.Update {
			return 0, false
		}
	default:
		return 0, false
	}
	for _, k := range ci.keys {
		if lastTouch[k] != i {
			return 0, false
		}
	}
	for _, k := range cj.keys {
		if t, ok := lastTouch[k]; ok && t > i {
			return 0, false
		}
	}
	if !reinsert && !rowsEqual(ci.After, cj.Before) {
		return 0, false
	}
	return i, true
}

// merge folds cj into ci and marks cj dead.
func merge(ci, cj *Change) {
	cj.dead = true
	switch {
	case ci.Op == model.Insert && cj.Op == model.Update:
		ci.After = cj.After
	case ci.Op == model.Insert && cj.Op == model.Delete:
		ci.dead = true
	case ci.Op == model.Update && cj.Op == model.Update:
		ci.After = cj.After
	case ci.Op == model.Update && cj.Op == model.Delete:
		ci.Op = model.Delete
		ci.After = nil
	case ci.Op == model.Delete && cj.Op == model.Insert:
		ci.Op = model.Update
		ci.After = cj.After
	}
	keys := make([]uint64, 0, len(ci.keys)+len(cj.keys))
	keys = append(append(keys, ci.keys...), cj.keys...)
	ci.keys = dedupe(keys)
	if len(cj.cascade) > 0 {
		ci.cascade = dedupe(append(append([]uint64(nil), ci.cascade...), cj.cascade...))
	}
}

// rowsEqual compares two row images exactly.
func rowsEqual(a, b []any) bool {
	if len(a) != len(b) || a == nil || b == nil {
		return false
	}
	for i := range a {
		if !ValueEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}
