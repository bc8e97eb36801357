package reverse

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/checkpoint"
)

// cutover is a row of sluice.cutover on PostgreSQL (written by sluice
// cutover, internal/cutover/boundary.go): a forward stream switched over,
// and the reverse stream and slot that carry its writes back.
type cutover struct {
	stream, reverse, slot, lsn string
	at                         time.Time
	armed                      bool // the slot still exists
}

func (c cutover) String() string {
	s := fmt.Sprintf("stream %s was cut over at %s (PostgreSQL LSN %s); the way back is `--stream %s` (slot %s",
		c.stream, c.at.UTC().Format("2006-01-02 15:04:05Z"), c.lsn, c.reverse, c.slot)
	if !c.armed {
		s += ", which no longer exists"
	}
	return s + ")"
}

// cutoversOf reads the cut-overs that concern this reverse stream: those
// whose publication holds a table of the PostgreSQL schema, and any
// recorded under the stream's name (the forward name given by mistake).
func cutoversOf(ctx context.Context, o Options, pg *pgx.Conn) ([]cutover, error) {
	rows, err := pg.Query(ctx, `SELECT c.stream, c.reverse_stream, c.slot, c.lsn::text, c.cut_at,
			EXISTS (SELECT FROM pg_replication_slots s WHERE s.slot_name = c.slot)
		FROM sluice.cutover c
		WHERE c.stream = $2 OR c.reverse_stream = $2
			OR EXISTS (SELECT FROM pg_publication_tables p WHERE p.pubname = c.publication AND p.schemaname = $1)
		ORDER BY c.cut_at DESC`, o.Schema, o.Stream)
	if err != nil {
		if checkpoint.IsUndefined(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("source: read the cut-over records (%s.cutover): %w", checkpoint.Schema, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (cutover, error) {
		var c cutover
		err := r.Scan(&c.stream, &c.reverse, &c.slot, &c.lsn, &c.at, &c.armed)
		return c, err
	})
	if err != nil && !checkpoint.IsUndefined(err) {
		return nil, fmt.Errorf("source: read the cut-over records (%s.cutover): %w", checkpoint.Schema, err)
	}
	return out, nil
}

// wrongStream explains, for a stream that is not the reverse stream of any
// of these cut-overs, which stream is.
func wrongStream(stream string, cs []cutover) error {
	lines := make([]string, len(cs))
	for i, c := range cs {
		lines[i] = c.String()
	}
	name := "stream " + stream
	if stream == checkpoint.DefaultStream {
		name += " (no --stream given)"
	}
	return fmt.Errorf("%s is not the way back of this schema's cut-over: %s; "+
		"starting another stream here would begin at PostgreSQL's current position and leave out every write since the cut-over",
		name, strings.Join(lines, "; "))
}
