package cutover

import (
	"context"
	"fmt"
	"time"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/replicate"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
)

// catchUp is step 3: the forward stream's checkpoint reaches the source's
// final position. A replicator of the stream that runs now (it holds the
// stream's lock on the target, as status and verify see it) is waited for;
// otherwise the final catch-up runs here (replicate --until-caught-up).
func (r *run) catchUp(ctx context.Context) (string, error) {
	cp, err := r.checkpoint(ctx)
	if err != nil {
		return "", err
	}
	if cp == nil {
		return "", fmt.Errorf("stream %q has no checkpoint in %s: run `sluice migrate` (or snapshot and replicate) first, or pass its --stream",
			r.o.Stream, r.o.Target.Redacted())
	}
	hs, err := checkpoint.StreamHolders(ctx, r.pg, r.o.Stream)
	if err != nil {
		return "", err
	}
	if checkpoint.Live(hs, false) {
		who := checkpoint.Describe(hs)
		r.runningReplicator = who
		deadline := time.Now().Add(r.o.CatchUpTimeout)
		for {
			if cp, err = r.checkpoint(ctx); err != nil {
				return "", err
			}
			if reached(cp.pos, r.final) {
				return fmt.Sprintf("the running replicator (%s) applied up to %s, the source's final position %s", who, cp.pos, r.final), nil
			}
			if time.Now().After(deadline) {
				return "", fmt.Errorf("the running replicator (%s) is at %s after %s, not at the source's final position %s: "+
					"check its log (sluice status), or raise --catch-up-timeout", who, cp.pos, r.o.CatchUpTimeout, r.final)
			}
			select {
			case <-ctx.Done():
				return "", ctx.Err()
			case <-time.After(200 * time.Millisecond):
			}
		}
	}
	o := r.o.Replicate
	o.UntilCaughtUp = true
	o.Stream = r.o.Stream
	if err := replicate.Run(ctx, o); err != nil {
		return "", fmt.Errorf("final catch-up (replicate --until-caught-up): %w", err)
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if cp, err = r.checkpoint(ctx); err != nil {
		return "", err
	}
	if !reached(cp.pos, r.final) {
		return "", fmt.Errorf("the final catch-up ended at %s, before the source's final position %s", cp.pos, r.final)
	}
	return fmt.Sprintf("final catch-up applied up to %s (the source's final position %s)", cp.pos, r.final), nil
}

type streamPos struct{ pos binlogpos.Position }

// checkpoint reads the forward stream's applied position (nil: none).
func (r *run) checkpoint(ctx context.Context) (*streamPos, error) {
	st, err := checkpoint.Load(ctx, r.pg, r.o.Stream, binlogpos.Decode)
	if err != nil || st == nil {
		return nil, err
	}
	p, err := binlogpos.From(st.Position)
	if err != nil {
		return nil, err
	}
	return &streamPos{p}, nil
}
