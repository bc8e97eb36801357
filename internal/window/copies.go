package window

import (
	"fmt"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
)

// Copies are the tables being copied into a running stream, each with its
// key and its open window, fed the stream's transactions in the order they
// are handed to apply (the replicator's side of the merge). It is used by
// one goroutine.
type Copies struct {
	tables map[schema.TableID]*tableCopy
}

type tableCopy struct {
	key []KeyColumn
	win *Window // nil between windows
}

// NewCopies is an empty set.
func NewCopies() *Copies { return &Copies{tables: map[schema.TableID]*tableCopy{}} }

// Add starts tracking a table being copied (KeyColumnsOf refuses the
// tables that cannot be).
func (c *Copies) Add(t *schema.Table) error {
	key, err := KeyColumnsOf(t)
	if err != nil {
		return err
	}
	c.tables[t.TableID] = &tableCopy{key: key}
	return nil
}

// Remove stops tracking a table (its copy is done, or cancelled).
func (c *Copies) Remove(id schema.TableID) { delete(c.tables, id) }

// Open opens the table's next window at low.
func (c *Copies) Open(id schema.TableID, low model.Position) (*Window, error) {
	tc, ok := c.tables[id]
	if !ok {
		return nil, fmt.Errorf("window: table %s is not being copied", id)
	}
	if tc.win != nil {
		return nil, fmt.Errorf("window: table %s has a window open already", id)
	}
	w, err := Open(low)
	if err != nil {
		return nil, err
	}
	tc.win = w
	return w, nil
}

// Observe takes one transaction, or a fragment of one, just before it is
// handed to apply. A schema change of a table being copied ends its open
// window (the chunk was read with the old definition): those tables are
// returned, to read the chunk again after the change is applied.
func (c *Copies) Observe(t *model.Txn) (ended []schema.TableID, err error) {
	if t.DDL != nil {
		for id, tc := range c.tables {
			if tc.win != nil && touchesTable(t.DDL, id) {
				tc.win = nil
				ended = append(ended, id)
			}
		}
	}
	for i := range t.Changes {
		rc := t.Changes[i]
		if rc.Table == nil {
			continue
		}
		tc, ok := c.tables[rc.Table.TableID]
		if !ok || tc.win == nil {
			continue
		}
		keys, err := ChangeKeys(rc, tc.key)
		if err != nil {
			return ended, fmt.Errorf("table %s: %w", rc.Table.TableID, err)
		}
		end := t.End
		if t.Partial {
			end = nil // a fragment's end comes later: record it
		}
		tc.win.Observe(end, keys...)
	}
	return ended, nil
}

// touchesTable reports whether a schema change names the table: as a new
// definition, or dropped (renamed away).
func touchesTable(d *model.DDL, id schema.TableID) bool {
	for _, t := range d.Tables {
		if t.TableID == id {
			return true
		}
	}
	for _, dr := range d.Dropped {
		if dr == id {
			return true
		}
	}
	return false
}

// Ready are the tables whose window merges at at, the end of the last
// transaction handed to apply.
func (c *Copies) Ready(at model.Position) []schema.TableID {
	var ids []schema.TableID
	for id, tc := range c.tables {
		if tc.win != nil && tc.win.Ready(at) {
			ids = append(ids, id)
		}
	}
	return ids
}

// Merge closes the table's window and returns the chunk's rows to apply
// at the current place in the stream (Window.Merge).
func (c *Copies) Merge(id schema.TableID) ([][]any, error) {
	tc, ok := c.tables[id]
	if !ok || tc.win == nil {
		return nil, fmt.Errorf("window: table %s has no window to merge", id)
	}
	w := tc.win
	tc.win = nil
	return w.Merge(func(r []any) (string, error) { return Key(r, tc.key) })
}
