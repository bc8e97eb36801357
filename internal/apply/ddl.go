package apply

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
)

// applyDDL applies a schema change behind a barrier: every earlier
// transaction is committed first, and no later one starts until it is done.
// The translated statements, the new table versions (schema history) and the
// checkpoint at the DDL's end position commit in one PostgreSQL transaction
// (PostgreSQL DDL is transactional), so a crash leaves either all or none.
func (d *dispatcher) applyDDL(ctx context.Context, t *model.Txn) error {
	a := d.a
	if err := d.barrier(ctx); err != nil {
		return err
	}
	if a.alreadyApplied(t.End) {
		// Cannot happen with this applier (a DDL moves the checkpoint past
		// itself), but a skip is always safe when the record says so.
		d.a.tr.add(d.entry(t, true))
		return nil
	}
	conn, err := a.acquire(ctx)
	if err != nil {
		return err
	}
	defer a.release(conn)
	a.ckMu.Lock()
	defer a.ckMu.Unlock()
	// Everything before is committed: move the sequences past it while the
	// tables still have the names they were marked with.
	if err := a.syncSequencesLocked(ctx, conn, true); err != nil {
		return err
	}
	a.seqs.reset()
	ddl := t.DDL
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		for _, s := range ddl.PG {
			if _, err := tx.Exec(ctx, s); err != nil {
				return &Error{Position: t.End, GTID: t.GTID, DDL: ddl.Statement, SQL: s, Err: err}
			}
		}
		if err := checkpoint.SaveSchema(ctx, tx, a.cfg.Stream, ddl.Version, t.End, ddl.Statement,
			ddl.Tables, ddl.Dropped); err != nil {
			return err
		}
		if err := checkpoint.Save(ctx, tx, a.cfg.Stream, checkpoint.State{
			Position: t.End, SchemaVersion: ddl.Version, SourceTime: t.Timestamp}); err != nil {
			return err
		}
		// Everything before the barrier is committed: all applied rows are covered.
		return checkpoint.DeleteApplied(ctx, tx, a.cfg.Stream)
	})
	if err != nil {
		return fmt.Errorf("apply: schema change at %s: %w", t.End, err)
	}
	a.takeCovered(t.End)
	d.version = ddl.Version
	a.tr.add(d.entry(t, true))
	a.saved = a.tr.watermark()
	a.gen.Add(1)
	d.tables = map[*schema.Table]*tableKeys{}
	if d.cascades, err = loadCascades(ctx, a.pool); err != nil {
		return err
	}
	a.stats.ddl.Add(1)
	a.cfg.Log.Info("apply: schema change applied", "position", t.End.String(), "version", ddl.Version,
		"statement", shorten(ddl.Statement, 200))
	return nil
}
