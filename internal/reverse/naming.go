package reverse

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/checkpoint"
)

// checkForwardNaming refuses a reverse stream whose naming is not the one
// of the forward stream it reverses (found by sluice cutover's boundary
// record): under another mapping its tables and columns would not be found
// on PostgreSQL, and a table not found is only warned about and left
// behind. A reverse stream no cut-over recorded is not checked.
func checkForwardNaming(ctx context.Context, o Options, pg *pgx.Conn) error {
	var forward string
	err := pg.QueryRow(ctx, `SELECT stream FROM sluice.cutover WHERE reverse_stream = $1`, o.Stream).Scan(&forward)
	switch {
	case errors.Is(err, pgx.ErrNoRows), checkpoint.IsUndefined(err):
		return nil
	case err != nil:
		return fmt.Errorf("source: read the cut-over record of stream %s: %w", o.Stream, err)
	}
	if err := checkpoint.CheckNaming(ctx, pg, forward, o.Naming.Options(), false); err != nil {
		return fmt.Errorf("the way back of stream %s names tables and columns as the forward stream did: %w", forward, err)
	}
	return nil
}
