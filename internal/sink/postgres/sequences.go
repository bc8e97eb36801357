package postgres

import (
	"context"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sluice-db/sluice/internal/schema"
)

// Replicated inserts carry the AUTO_INCREMENT values MySQL gave them, so
// PostgreSQL's identity sequence (or the sequence of a BIGINT UNSIGNED
// column) is never called and stays where the snapshot left it. After a
// cut-over the application's first INSERT without a key would then get a
// value a replicated row already has. So the sequences of the tables that
// received rows are moved past max(column) with every checkpoint and at the
// end of the run — only forward, never back.

// seqTable is a target table with a sequence-backed column.
type seqTable struct {
	id     schema.TableID
	qtable string // quoted, schema-qualified target name
	column string // the AUTO_INCREMENT column, unquoted
}

// seqTracker collects the tables with inserted or updated rows; sessions
// mark, the checkpointer syncs. A table is marked when its change is
// written, so a periodic sync may run before that change commits: it is best
// effort (dirty, forgotten once synced). The last sync of a run,
// after the workers drained, covers every table of the run (all).
type seqTracker struct {
	mu    sync.Mutex
	dirty map[schema.TableID]seqTable
	all   map[schema.TableID]seqTable
}

// autoIncrementColumn returns the AUTO_INCREMENT column of t, or "".
func autoIncrementColumn(t *schema.Table) string {
	for _, c := range t.Columns {
		if c.AutoIncrement {
			return c.Name
		}
	}
	return ""
}

func (s *seqTracker) mark(st seqTable) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dirty == nil {
		s.dirty = map[schema.TableID]seqTable{}
		if s.all == nil {
			s.all = map[schema.TableID]seqTable{}
		}
	}
	s.dirty[st.id] = st
	s.all[st.id] = st
}

// reset forgets every mark (after a schema change, which may rename or
// drop the tables; later changes mark them under their new names).
func (s *seqTracker) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dirty, s.all = nil, nil
}

// take returns the tables marked since the last take (or, final, every
// table of the run) and forgets the former.
func (s *seqTracker) take(final bool) []seqTable {
	s.mu.Lock()
	defer s.mu.Unlock()
	from := s.dirty
	if final {
		from = s.all
	}
	out := make([]seqTable, 0, len(from))
	for _, st := range from {
		out = append(out, st)
	}
	s.dirty = nil
	return out
}

// syncSequenceSQL moves the column's sequence to max(column) when that is
// past the sequence's last value (setval(seq, m) makes m+1 the next value).
// BIGINT UNSIGNED values beyond bigint are not counted: no sequence reaches
// them, and the largest value below is what the sequence must pass.
func syncSequenceSQL(st seqTable) string {
	c := pgx.Identifier{st.column}.Sanitize()
	return `SELECT setval(x.s::regclass, x.m::bigint) FROM (
	SELECT pg_get_serial_sequence($1, $2) AS s,
		(SELECT max(` + c + `)::numeric FROM ` + st.qtable + ` WHERE ` + c + ` <= 9223372036854775807) AS m) x
	WHERE x.s IS NOT NULL AND x.m IS NOT NULL AND x.m > coalesce(pg_sequence_last_value(x.s::regclass), 0)`
}

// syncSequences moves the sequences of the marked tables past their
// largest value, in one round trip. A failure puts the tables back. The
// pipeline serialises it with schema changes (Sink.Sync, Session.ApplyDDL):
// a table it names is never renamed or dropped under it (ApplyDDL syncs,
// then forgets the marks).
func (a *Sink) syncSequences(ctx context.Context, conn *pgxpool.Conn, final bool) error {
	tables := a.seqs.take(final)
	if len(tables) == 0 {
		return nil
	}
	b := &pgx.Batch{}
	for _, st := range tables {
		b.Queue(syncSequenceSQL(st), st.qtable, st.column)
	}
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		for _, st := range tables {
			a.seqs.mark(st)
		}
		return fmt.Errorf("apply: move identity sequences past replicated rows: %w", err)
	}
	return nil
}

// MoveSequences moves the sequences of the tables' AUTO_INCREMENT columns
// past their largest values now, with the same statement as the apply's
// Sync (sluice cutover, step "sequences"). It returns how many tables have
// such a column and how many sequences had to move.
func MoveSequences(ctx context.Context, conn *pgx.Conn, naming schema.Naming, tables []*schema.Table) (checked, moved int, err error) {
	for _, t := range tables {
		col := autoIncrementColumn(t)
		if col == "" || naming.Excluded(t.TableID, col) {
			continue
		}
		col = naming.Column(t.TableID, col) // the target's name (--identifiers lower, --rename)
		checked++
		st := seqTable{id: t.TableID, qtable: naming.QTable(t.TableID), column: col}
		rows, err := conn.Query(ctx, syncSequenceSQL(st), st.qtable, st.column)
		if err != nil {
			return checked, moved, fmt.Errorf("move the sequence of %s.%s past its largest value: %w", st.qtable, col, err)
		}
		for rows.Next() {
			moved++
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return checked, moved, fmt.Errorf("move the sequence of %s.%s past its largest value: %w", st.qtable, col, err)
		}
	}
	return checked, moved, nil
}
