package apply

import (
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/postgres"
	"github.com/sluice-db/sluice/internal/schema"
)

// planCache holds the compiled apply plan of each table version a worker
// has seen. Row changes carry the *schema.Table they were decoded with, so
// the pointer identifies the version; the cache is dropped after every DDL.
type planCache struct {
	naming   schema.Naming
	writable func(*schema.Table) []int
	m        map[*schema.Table]*postgres.ApplyPlan
}

func newPlanCache(naming schema.Naming, writable func(*schema.Table) []int) *planCache {
	return &planCache{naming: naming, writable: writable, m: map[*schema.Table]*postgres.ApplyPlan{}}
}

func (c *planCache) get(t *schema.Table) (*postgres.ApplyPlan, error) {
	if p, ok := c.m[t]; ok {
		return p, nil
	}
	if t == nil {
		return nil, fmt.Errorf("row change without a table")
	}
	ident := pgx.Identifier{c.naming.Schema(t.Database), t.Name}
	p, err := postgres.NewApplyPlan(t, ident, c.writable(t))
	if err != nil {
		return nil, err
	}
	c.m[t] = p
	return p, nil
}

func (c *planCache) reset() { clear(c.m) }
