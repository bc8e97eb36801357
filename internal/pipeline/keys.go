package pipeline

import (
	"hash/maphash"
	"slices"
	"strings"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
)

// A conflict key is a 64-bit hash of "table + unique-key columns + values".
// Two row changes that share a key must be applied in source order; changes
// with disjoint keys commute. A hash collision only merges two keys, which
// adds ordering and never removes any, so hashing is safe.
//
// Keys hash the source's own values (model.RowChange), so the scheduler
// serves every sink; they are deliberately coarse where exactness would be
// fragile:
//   - values of text columns are lower-cased and right-trimmed of spaces
//     (whether go-mysql gives a string or bytes), so keys that MySQL's
//     case-insensitive PAD SPACE collations treat as equal collide, as they
//     do in a MySQL target;
//   - integer widths are erased (int8…int64 and uint8…uint64 hash alike, a
//     negative value of an UNSIGNED column as its unsigned value), and
//     decimals are normalised (1.50 = 1.5), so a foreign key column and the
//     parent key it references hash alike even when their declared types
//     differ slightly;
//   - prefix index parts hash only the prefix.

// keyPart is one column of a unique key.
type keyPart struct {
	col    int // index into Table.Columns
	prefix int // characters/bytes of a prefix index part; 0 = whole value
	norm   valueNorm
}

// uniqueKey is a column set that identifies at most one row of a table.
type uniqueKey struct {
	// tag identifies table + column names; values are hashed after it.
	tag   string
	parts []keyPart
}

// tableKeys is everything the causality detector needs about one table version.
type tableKeys struct {
	table *schema.Table
	// wide is set when the table has no usable row identity (no primary key
	// and no NOT NULL unique key) or a unique key made of expressions only:
	// all its changes then share one table-wide key and so serialise.
	wide    bool
	wideTag string
	keys    []uniqueKey
	// parents are the keys of referenced parent rows (foreign keys), so a
	// child change orders after the parent change it depends on.
	parents []uniqueKey
	// identity is the index in keys of Table.KeyColumns() (the key UPDATE and
	// DELETE match on), or -1 when the table has none.
	identity int
	// target names the table as the sink does (Sink.TargetName), for the
	// cascade keys; set by the dispatcher.
	target string
}

// keyTag names a table and a set of its columns independently of column
// order, so a foreign key and the parent's unique key produce the same tag.
func keyTag(db, table string, cols []string) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = strings.ToLower(c)
	}
	slices.Sort(names)
	return strings.ToLower(db) + "\x00" + strings.ToLower(table) + "\x00" + strings.Join(names, "\x00")
}

// newTableKeys compiles the key layout of one table version.
func newTableKeys(t *schema.Table) *tableKeys {
	tk := &tableKeys{table: t, identity: -1,
		wideTag: strings.ToLower(t.Database) + "\x00" + strings.ToLower(t.Name) + "\x00*"}
	ident := t.KeyColumns()
	if len(ident) == 0 {
		tk.wide = true
	}
	if len(t.PrimaryKey) > 0 {
		tk.addKey(t.PrimaryKey, nil, ident)
	}
	for _, ix := range t.Indexes {
		if !ix.Unique || ix.Kind == "FULLTEXT" || ix.Kind == "SPATIAL" {
			continue
		}
		var names []string
		var prefixes []int
		for _, ic := range ix.Columns {
			if ic.Name == "" {
				continue // functional part: leaving it out makes the key coarser, still safe
			}
			names = append(names, ic.Name)
			prefixes = append(prefixes, ic.SubPart)
		}
		if len(names) == 0 {
			tk.wide = true // a unique expression we cannot evaluate: serialise the table
			continue
		}
		tk.addKey(names, prefixes, ident)
	}
	for _, fk := range t.ForeignKeys {
		db := fk.RefDatabase
		if db == "" {
			db = t.Database
		}
		parts, ok := columnParts(t, fk.Columns, nil)
		if !ok || len(fk.RefColumns) != len(fk.Columns) {
			continue
		}
		// Hash the child's values in the order of the sorted parent column
		// names, as the parent's own key does.
		order := make([]int, len(parts))
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int {
			return strings.Compare(strings.ToLower(fk.RefColumns[a]), strings.ToLower(fk.RefColumns[b]))
		})
		sorted := make([]keyPart, len(parts))
		for i, o := range order {
			sorted[i] = parts[o]
		}
		tk.parents = append(tk.parents, uniqueKey{tag: keyTag(db, fk.RefTable, fk.RefColumns), parts: sorted})
	}
	return tk
}

// addKey adds a unique key given by column names (and prefix lengths).
func (tk *tableKeys) addKey(names []string, prefixes []int, ident []string) {
	parts, ok := columnParts(tk.table, names, prefixes)
	if !ok {
		tk.wide = true // the model names a column it does not have: be safe
		return
	}
	// Sort parts by column name so the tag and value order agree with foreign keys.
	idx := make([]int, len(names))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		return strings.Compare(strings.ToLower(names[a]), strings.ToLower(names[b]))
	})
	sorted := make([]keyPart, len(parts))
	for i, o := range idx {
		sorted[i] = parts[o]
	}
	isIdent := len(ident) > 0 && sameColumns(names, ident) && !hasPrefix(prefixes)
	if isIdent && tk.identity < 0 {
		tk.identity = len(tk.keys)
	}
	tk.keys = append(tk.keys, uniqueKey{tag: keyTag(tk.table.Database, tk.table.Name, names), parts: sorted})
}

func hasPrefix(prefixes []int) bool {
	for _, p := range prefixes {
		if p > 0 {
			return true
		}
	}
	return false
}

func sameColumns(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !strings.EqualFold(a[i], b[i]) {
			return false
		}
	}
	return true
}

func columnParts(t *schema.Table, names []string, prefixes []int) ([]keyPart, bool) {
	parts := make([]keyPart, len(names))
	for i, n := range names {
		ci := t.ColumnIndex(n)
		if ci < 0 {
			return nil, false
		}
		parts[i] = keyPart{col: ci, norm: normOf(t.Columns[ci])}
		if prefixes != nil {
			parts[i].prefix = prefixes[i]
		}
	}
	return parts, true
}

// keyHasher hashes key values. It is not safe for concurrent use; each
// goroutine that computes keys owns one.
type keyHasher struct {
	seed maphash.Seed
	h    maphash.Hash
	buf  [8]byte
}

func newKeyHasher(seed maphash.Seed) *keyHasher {
	k := &keyHasher{seed: seed}
	k.h.SetSeed(seed)
	return k
}

// hashKey hashes one unique key of a row image; ok is false when a key part
// is NULL (NULLs never conflict) or the image is too short.
func (k *keyHasher) hashKey(key uniqueKey, row []any) (uint64, bool) {
	k.h.Reset()
	k.h.WriteString(key.tag)
	for _, p := range key.parts {
		if p.col >= len(row) || row[p.col] == nil {
			return 0, false
		}
		k.h.WriteByte(0xff)
		k.writeValue(row[p.col], p)
	}
	return k.h.Sum64(), true
}

// wideKey is the table-wide key of a table without row identity.
func (k *keyHasher) wideKey(tk *tableKeys) uint64 {
	k.h.Reset()
	k.h.WriteString(tk.wideTag)
	return k.h.Sum64()
}

// changeKeys appends the conflict keys of one row change to dst.
func (k *keyHasher) changeKeys(dst []uint64, tk *tableKeys, rc *model.RowChange) []uint64 {
	if tk.wide {
		dst = append(dst, k.wideKey(tk))
	}
	for _, img := range [2][]any{rc.Before, rc.After} {
		if img == nil {
			continue
		}
		for _, key := range tk.keys {
			if h, ok := k.hashKey(key, img); ok {
				dst = append(dst, h)
			}
		}
		for _, key := range tk.parents {
			if h, ok := k.hashKey(key, img); ok {
				dst = append(dst, h)
			}
		}
	}
	return dst
}

// identityKey returns the hash of the row-identity key of an image, the key
// compaction uses to find earlier changes of the same row.
func (k *keyHasher) identityKey(tk *tableKeys, img []any) (uint64, bool) {
	if tk.identity < 0 || img == nil {
		return 0, false
	}
	return k.hashKey(tk.keys[tk.identity], img)
}

// dedupe sorts keys and removes repeats in place.
func dedupe(keys []uint64) []uint64 {
	slices.Sort(keys)
	return slices.Compact(keys)
}
