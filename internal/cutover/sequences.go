package cutover

import (
	"context"
	"fmt"

	pgsink "github.com/sluice-db/sluice/internal/sink/postgres"
)

// sequences is step 5: the application's first INSERT without a key must
// not get an id a replicated row has (the sink's own rule, applied now).
// Moving a sequence forward is not undone on failure: it is what the next
// replicate run does anyway, and harmless.
func (r *run) sequences(ctx context.Context) (string, error) {
	checked, moved, err := pgsink.MoveSequences(ctx, r.pg, r.o.Naming, r.tables)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%d identity sequences past the largest ids (%d had to move)", checked, moved), nil
}
