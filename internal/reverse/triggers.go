package reverse

import (
	"context"
	"database/sql"

	mysink "github.com/sluice-db/sluice/internal/sink/mysql"
)

// TriggersUntil is when the operator creates the MySQL triggers again.
const TriggersUntil = "before the application writes to MySQL after a fallback (docs/reverse.md, \"Foreign keys and triggers\")"

// refuseTriggers stops the start when a MySQL table of the stream has a
// trigger (mysink.RefuseTriggers): PostgreSQL's WAL already carries what
// its own triggers did.
func refuseTriggers(ctx context.Context, db *sql.DB, database string) error {
	return mysink.RefuseTriggers(ctx, db, database, "the reverse stream",
		"the rows PostgreSQL's WAL already carries (what its own triggers did)", TriggersUntil)
}
