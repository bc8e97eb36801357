package pipeline

import (
	"context"
	"fmt"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
)

// applyDDL applies a schema change behind a barrier: every earlier
// transaction is committed first, and no later one starts until it is done.
// The sink runs the statements and records the new table versions (schema
// history) and the checkpoint at the DDL's end position, in one target
// transaction where the target's DDL is transactional (PostgreSQL), so a
// crash leaves either all or none.
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
	sess, err := a.sink.Session(ctx)
	if err != nil {
		return err
	}
	defer sess.Close()
	a.ckMu.Lock()
	defer a.ckMu.Unlock()
	ddl := t.DDL
	if err := sess.ApplyDDL(ctx, t, State{Position: t.End, SchemaVersion: ddl.Version, SourceTime: t.Timestamp}); err != nil {
		return fmt.Errorf("apply: schema change at %s: %w", t.End, err)
	}
	a.takeCovered(t.End)
	d.version = ddl.Version
	a.tr.add(d.entry(t, true))
	a.setSaved(a.tr.watermark())
	a.gen.Add(1)
	d.tables = map[*schema.Table]*tableKeys{}
	if d.cascades, err = a.sink.Cascades(ctx); err != nil {
		return err
	}
	a.stats.ddl.Add(1)
	a.cfg.Log.Info("apply: schema change applied", "position", t.End.String(), "version", ddl.Version,
		"statement", Shorten(ddl.Statement, 200))
	return nil
}
