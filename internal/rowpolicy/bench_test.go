package rowpolicy

import (
	"testing"

	"github.com/sluice-db/sluice/internal/model"
)

// BenchmarkChanges is the per-row cost replicate pays for a filter and two
// masks (an UPDATE: both images filtered and masked).
func BenchmarkChanges(b *testing.B) {
	p, err := New([]string{"shop.users=tenant = 1 AND email LIKE '%@%'"}, []string{"shop.users.code=email", "shop.*.phone=keep-last:2"}, nil)
	if err != nil {
		b.Fatal(err)
	}
	tb := testTable()
	cs := make([]model.RowChange, 1)
	for b.Loop() {
		cs[0] = model.RowChange{Op: model.Update, Table: tb,
			Before: []any{int64(1), int32(1), "a@b.c", "5550123", "ab@x.io"}, After: []any{int64(1), int32(1), "a@b.c", "5550124", "ab@x.io"}}
		if _, err := p.Changes(cs); err != nil {
			b.Fatal(err)
		}
	}
}
