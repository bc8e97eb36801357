package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// HasPostGIS reports whether the target has the postgis extension (the
// snapshot then wrote geometry columns as PostGIS geometry).
func (e engine) HasPostGIS(ctx context.Context) (bool, error) {
	conn, err := pgx.Connect(ctx, e.cfg.ConnString())
	if err != nil {
		return false, fmt.Errorf("target %s: %w", e.cfg.Redacted(), err)
	}
	defer conn.Close(ctx)
	var ok bool
	err = conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'postgis')").Scan(&ok)
	return ok, err
}
