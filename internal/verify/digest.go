package verify

import (
	"context"
	"sync"

	"github.com/sluice-db/sluice/internal/verify/verifydb"
)

// digests computes a key range's digest on both sides at the same time.
func (e *engine) digests(ctx context.Context, p *verifydb.Plan, s verifydb.Scope) (src, tgt verifydb.ChunkDigest, err error) {
	var wg sync.WaitGroup
	var tgtErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		tgt, tgtErr = e.tgt.Digest(ctx, p, s)
	}()
	src, err = p.SourceDigest(ctx, e.src, s)
	wg.Wait()
	if err == nil {
		err = tgtErr
	}
	return src, tgt, err
}
