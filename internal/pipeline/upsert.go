package pipeline

import (
	"sync"

	"github.com/sluice-db/sluice/internal/schema"
)

// UpsertTables is the set of tables a sink applies as upserts of full row
// images instead of with exact row counts (issue 23: a table being copied
// into a running stream). In that mode an insert over a present row
// overwrites it, an update of an absent row inserts its after image, and a
// delete of an absent row does nothing: events replayed onto a state that
// already holds them end in the same state, which the online copy's merge
// rests on (docs/replication.md). The replicator adds a table when it joins
// and removes it once its copy is done; sessions read it on every run of
// changes, so it is safe for concurrent use. The nil set holds no table.
type UpsertTables struct {
	mu  sync.RWMutex
	ids map[schema.TableID]bool
}

// Has says whether id is applied as upserts.
func (u *UpsertTables) Has(id schema.TableID) bool {
	if u == nil {
		return false
	}
	u.mu.RLock()
	defer u.mu.RUnlock()
	return u.ids[id]
}

// Add puts ids in the upsert mode.
func (u *UpsertTables) Add(ids ...schema.TableID) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.ids == nil {
		u.ids = map[schema.TableID]bool{}
	}
	for _, id := range ids {
		u.ids[id] = true
	}
}

// Remove returns ids to the exact apply.
func (u *UpsertTables) Remove(ids ...schema.TableID) {
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, id := range ids {
		delete(u.ids, id)
	}
}
