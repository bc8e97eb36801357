package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/ddl"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/target"
	"github.com/sluice-db/sluice/internal/typemap"
)

var _ target.ChunkApplier = (*replica)(nil)

// ChunkSelect reads a column as the snapshot's COPY does (FromText).
func (t *replica) ChunkSelect(c schema.Column) string {
	return typemap.SelectExpr(c, schema.QuoteMySQL(c.Name))
}

// ApplyChunk writes a merged chunk of a table being added with the apply
// plan's one-row upsert (INSERT … ON CONFLICT (key) DO UPDATE, the same
// statement the upsert mode applies the table's events with), its values
// converted from the text protocol, and the add record in the same
// transaction, as the replica role like every replicated write.
func (t *replica) ApplyChunk(ctx context.Context, c target.Chunk) error {
	conv, err := c.Mapper.Compile(c.Table)
	if err != nil {
		return fmt.Errorf("compile converters for %s: %w", c.Table.TableID, err)
	}
	p, err := NewApplyPlan(c.Naming.TargetView(c.Table), c.Naming.Ident2(c.Table.TableID), ddl.WritableColumnsIn(c.Table, c.Naming), conv)
	if err != nil {
		return err
	}
	if p.Keyless {
		return fmt.Errorf("chunk of %s: %w", c.Table.TableID, errUpsertKeyless)
	}
	b := &pgx.Batch{}
	q := p.upsertSQL()
	for _, row := range c.Rows {
		args := make([]any, 0, len(p.Cols))
		for _, i := range p.Cols {
			raw, _ := row[i].([]byte)
			v, err := conv.Columns[i].FromText(raw)
			if err != nil {
				return fmt.Errorf("chunk of %s: column %s: %w", c.Table.TableID, c.Table.Columns[i].Name, err)
			}
			args = append(args, v)
		}
		b.Queue(q, args...)
	}
	if err := checkpoint.EnsureAdd(ctx, t.pool); err != nil {
		return err
	}
	err = pgx.BeginFunc(ctx, t.pool, func(tx pgx.Tx) error {
		if err := SetReplicaRole(ctx, tx, true); err != nil {
			return err
		}
		if b.Len() > 0 {
			if err := tx.SendBatch(ctx, b).Close(); err != nil {
				return fmt.Errorf("upsert a chunk of %d rows into %s: %w", b.Len(), p.QTable, err)
			}
		}
		return checkpoint.SaveAdd(ctx, tx, c.Stream, c.Record)
	})
	if err != nil {
		return fmt.Errorf("target: %w", err)
	}
	return nil
}
