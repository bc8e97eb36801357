// Package source names what sluice's change sources have in common: a
// Stream that, opened at the stream's checkpoint, reads committed
// transactions into the engine-neutral pipeline (internal/pipeline) and
// says how far it has read; and the registry that picks the source by the
// --source URL's scheme. The sources themselves live below: the MySQL and
// MariaDB row binlog (mysql/binlog) and PostgreSQL's logical decoding
// (postgres/pgoutput), the way back. docs/ARCHITECTURE.md.
package source

import (
	"context"

	"github.com/sluice-db/sluice/internal/model"
)

// Stream is one open change stream, positioned where the stream's
// checkpoint says (exactly once: what the target committed is not read
// again). internal/supervise.Run drives it beside the pipeline's apply.
type Stream interface {
	// Run reads transactions into out until ctx ends (nil) or it fails;
	// it closes out when it returns, which lets apply commit what it got.
	Run(ctx context.Context, out chan<- *model.Txn) error
	// ReadPosition is the position read up to, as status and the status
	// page show it (a binlog file:pos, a PostgreSQL LSN).
	ReadPosition() string
}
