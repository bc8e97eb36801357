// Package logical is the PostgreSQL side of the way back: the publication and
// logical replication slot (pgoutput) that the reverse stream PostgreSQL →
// MySQL reads, named after the stream so that `sluice cutover` (which arms
// them) and `sluice replicate --source postgres://…` (which reads them) agree.
package logical

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// maxName is PostgreSQL's identifier limit (NAMEDATALEN-1).
const maxName = 63

// SlotName is the logical replication slot of a reverse stream. Slot names
// allow only lower-case letters, digits and underscores; anything else in the
// stream name becomes an underscore.
func SlotName(stream string) string { return objectName(stream) }

// PublicationName is the publication the reverse stream's slot decodes.
func PublicationName(stream string) string { return objectName(stream) }

func objectName(stream string) string {
	var b strings.Builder
	b.WriteString("sluice_")
	for _, r := range strings.ToLower(stream) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	s := b.String()
	if len(s) > maxName {
		s = s[:maxName]
	}
	return s
}

// Table is a PostgreSQL table the reverse stream carries back.
type Table struct {
	Schema, Name string
}

func (t Table) quoted() string { return pgx.Identifier{t.Schema, t.Name}.Sanitize() }

// Armed is what Arm created or found.
type Armed struct {
	Slot, Publication string
	// ConsistentLSN is where decoding of the slot starts: every transaction
	// committed after it is in the stream, none before. Empty when the slot
	// already existed (its confirmed_flush_lsn then applies).
	ConsistentLSN string
	Created       bool // false: slot and publication existed and were reused
}

// Arm creates the publication (for exactly these tables) and the pgoutput
// slot of a reverse stream, and sets REPLICA IDENTITY FULL on every table so
// that updates and deletes carry the whole old row: a keyless table's row is
// found by all its values, an unchanged TOASTed value (which pgoutput leaves
// out of the new row) is written back from the old one, and the scheduler
// orders changes by every unique key of the old row, not just the primary
// key's. An
// existing publication is altered to these tables; an existing slot is kept
// (it holds the position of a stream that may already be running). Creating a
// slot waits for transactions running at that moment to end.
func Arm(ctx context.Context, conn *pgx.Conn, stream string, tables []Table) (Armed, error) {
	a := Armed{Slot: SlotName(stream), Publication: PublicationName(stream)}
	if len(tables) == 0 {
		return a, fmt.Errorf("arm reverse stream %s: no tables", stream)
	}
	names := make([]string, len(tables))
	for i, t := range tables {
		names[i] = t.quoted()
		if _, err := conn.Exec(ctx, "ALTER TABLE "+names[i]+" REPLICA IDENTITY FULL"); err != nil {
			return a, fmt.Errorf("arm reverse stream %s: replica identity full on %s: %w", stream, names[i], err)
		}
	}
	list := strings.Join(names, ", ")
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT FROM pg_publication WHERE pubname = $1)", a.Publication).Scan(&exists); err != nil {
		return a, fmt.Errorf("arm reverse stream %s: %w", stream, err)
	}
	pub := pgx.Identifier{a.Publication}.Sanitize()
	q := "CREATE PUBLICATION " + pub + " FOR TABLE " + list
	if exists {
		q = "ALTER PUBLICATION " + pub + " SET TABLE " + list
	}
	if _, err := conn.Exec(ctx, q); err != nil {
		return a, fmt.Errorf("arm reverse stream %s: publication %s: %w", stream, a.Publication, err)
	}
	// The object names fold case and punctuation (S and s share them): the
	// stream's exact name on the publication tells whose they are (Owner).
	// COMMENT takes no parameters: PostgreSQL's format() quotes the name.
	var comment string
	err := conn.QueryRow(ctx, "SELECT format('COMMENT ON PUBLICATION %I IS %L', $1::text, $2::text)", a.Publication, ownerPrefix+stream).Scan(&comment)
	if err == nil {
		_, err = conn.Exec(ctx, comment)
	}
	if err != nil {
		return a, fmt.Errorf("arm reverse stream %s: publication %s: record its stream: %w", stream, a.Publication, err)
	}
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT FROM pg_replication_slots WHERE slot_name = $1)", a.Slot).Scan(&exists); err != nil {
		return a, fmt.Errorf("arm reverse stream %s: %w", stream, err)
	}
	if exists {
		return a, nil
	}
	err = conn.QueryRow(ctx, "SELECT lsn::text FROM pg_create_logical_replication_slot($1, 'pgoutput')", a.Slot).Scan(&a.ConsistentLSN)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42501" {
		return a, fmt.Errorf("arm reverse stream %s: creating slot %s needs the REPLICATION attribute: ALTER ROLE %s REPLICATION (%w)",
			stream, a.Slot, conn.Config().User, err)
	}
	if err != nil {
		return a, fmt.Errorf("arm reverse stream %s: slot %s: %w", stream, a.Slot, err)
	}
	a.Created = true
	return a, nil
}

// ownerPrefix starts the comment Arm puts on a publication.
const ownerPrefix = "sluice reverse stream "

// Owner is the stream whose slot and publication SlotName(stream) and
// PublicationName(stream) are, as Arm recorded it on the publication ("":
// no publication, or one armed before sluice recorded its stream). Stream
// names that differ only in case or punctuation share the object names, so
// a start compares Owner with its own name rather than trusting the names.
func Owner(ctx context.Context, conn *pgx.Conn, stream string) (string, error) {
	var comment *string
	err := conn.QueryRow(ctx, `SELECT obj_description(oid, 'pg_publication') FROM pg_publication WHERE pubname = $1`,
		PublicationName(stream)).Scan(&comment)
	if errors.Is(err, pgx.ErrNoRows) || err == nil && (comment == nil || !strings.HasPrefix(*comment, ownerPrefix)) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read publication %s: %w", PublicationName(stream), err)
	}
	return strings.TrimPrefix(*comment, ownerPrefix), nil
}

// Disarm drops the slot and the publication of a reverse stream (a failed
// cut-over leaves nothing behind). Missing objects are not an error.
func Disarm(ctx context.Context, conn *pgx.Conn, stream string) error {
	slot, pub := SlotName(stream), PublicationName(stream)
	// A reverse stream that just ended leaves its walsender exiting for a
	// moment, the slot still active (object_in_use): wait for it a little.
	for deadline := time.Now().Add(5 * time.Second); ; {
		_, err := conn.Exec(ctx, "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1", slot)
		var pgErr *pgconn.PgError
		if err != nil && errors.As(err, &pgErr) && pgErr.Code == "55006" && time.Now().Before(deadline) {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(100 * time.Millisecond):
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("disarm reverse stream %s: slot %s: %w", stream, slot, err)
		}
		break
	}
	if _, err := conn.Exec(ctx, "DROP PUBLICATION IF EXISTS "+pgx.Identifier{pub}.Sanitize()); err != nil {
		return fmt.Errorf("disarm reverse stream %s: publication %s: %w", stream, pub, err)
	}
	return nil
}
