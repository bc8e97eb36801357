package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/target/bulkrun"
)

// FinishTable (post-data) builds a table's primary key (when this run created the table,
// it did so without the key: see ensurePrimaryKey) and indexes, moves its sequences past the copied
// values and ANALYZEs it, in one transaction marked in the table's state, so
// a resumed run does not build the indexes twice. A table an earlier pass
// finished gets only the sequence and ANALYZE again, and only if this pass
// copied rows into it. --data-only never builds indexes (they came with
// --schema-only).
func (r *pgWriter) FinishTable(ctx context.Context, j *bulkrun.Job) error {
	touched := j.Touched.Load()
	plan := j.Out.(*pgTable).plan
	var stmts []string
	switch {
	case !j.State.Indexed && !r.Opts.DataOnly:
		stmts = append(append(stmts, plan.PostData...), plan.Finish...)
	case !j.State.Indexed || touched:
		stmts = plan.Finish
	default:
		return nil
	}
	start := time.Now()
	conn, err := r.pg.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("snapshot %s: indexes: %w", j.Source.TableID, err)
	}
	defer conn.Release()
	tx, err := conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("snapshot %s: indexes: %w", j.Source.TableID, err)
	}
	defer tx.Rollback(ctx)
	// Index builds sort in memory up to maintenance_work_mem.
	if _, err := tx.Exec(ctx, "SET LOCAL maintenance_work_mem = '256MB'"); err != nil {
		return fmt.Errorf("snapshot %s: indexes: %w", j.Source.TableID, err)
	}
	if !j.State.Indexed && !r.Opts.DataOnly {
		if err := r.ensurePrimaryKey(ctx, tx, j); err != nil {
			return err
		}
	}
	for _, s := range stmts {
		if _, err := tx.Exec(ctx, s); err != nil {
			return fmt.Errorf("snapshot %s: %s: %w", j.Source.TableID, bulkrun.FirstLine(s), uniqueCollision(err))
		}
	}
	if err := setTableFlag(ctx, tx, r.Opts.Stream, j.Source.TableID, "indexed", true); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("snapshot %s: indexes: %w", j.Source.TableID, err)
	}
	j.State.Indexed = true
	r.Log.Debug("indexes built", "table", j.Source.TableID.String(), "statements", len(stmts), "seconds", time.Since(start).Seconds())
	return nil
}

// ensurePrimaryKey adds the primary key to a table this run created (it
// creates them keyless: one index build after the data costs far less than
// maintaining the btree for every copied row) unless the table has one
// already (added before a resumed pass, or by an older sluice). Tables the
// run found on the target keep the keys they have.
func (r *pgWriter) ensurePrimaryKey(ctx context.Context, tx pgx.Tx, j *bulkrun.Job) error {
	pt := j.Out.(*pgTable)
	if pt.plan.AddPrimaryKey == "" || !j.State.Created {
		return nil
	}
	var has bool
	err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'p')`,
		pt.ident.Sanitize()).Scan(&has)
	if err != nil {
		return fmt.Errorf("snapshot %s: look for the primary key: %w", j.Source.TableID, err)
	}
	if has {
		return nil
	}
	if _, err := tx.Exec(ctx, pt.plan.AddPrimaryKey); err != nil {
		return fmt.Errorf("snapshot %s: %s: %w", j.Source.TableID, pt.plan.AddPrimaryKey, uniqueCollision(err))
	}
	return nil
}

// BeforeRecopy builds the primary key of a partly copied table before a
// resumed pass deletes a changed chunk's key range, so that DELETE finds
// the range through the index instead of scanning the table once per
// chunk. The chunks already copied committed whole, so the key holds.
func (r *pgWriter) BeforeRecopy(ctx context.Context, j *bulkrun.Job) error {
	if j.State.Indexed || r.Opts.DataOnly {
		return nil
	}
	tx, err := r.pg.Begin(ctx)
	if err != nil {
		return fmt.Errorf("snapshot %s: primary key: %w", j.Source.TableID, err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SET LOCAL maintenance_work_mem = '256MB'"); err != nil {
		return fmt.Errorf("snapshot %s: primary key: %w", j.Source.TableID, err)
	}
	if err := r.ensurePrimaryKey(ctx, tx, j); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("snapshot %s: primary key: %w", j.Source.TableID, err)
	}
	r.Log.Debug("primary key ensured before copying changed chunks again", "table", j.Source.TableID.String())
	return nil
}

// addForeignKeys adds every planned foreign key, each in a savepoint: one
// that exists already is fine, one the data violates (the source allowed it
// with foreign_key_checks=0) is left out with a warning naming the cause.
func (r *pgWriter) addForeignKeys(ctx context.Context, tx pgx.Tx) error {
	for _, j := range r.Jobs {
		plan := j.Out.(*pgTable).plan
		for _, s := range plan.ForeignKeys {
			if _, err := tx.Exec(ctx, "SAVEPOINT sluice_fk"); err != nil {
				return fmt.Errorf("target: %w", err)
			}
			_, err := tx.Exec(ctx, s)
			if err == nil {
				if _, err := tx.Exec(ctx, "RELEASE SAVEPOINT sluice_fk"); err != nil {
					return fmt.Errorf("target: %w", err)
				}
				continue
			}
			if _, rerr := tx.Exec(ctx, "ROLLBACK TO SAVEPOINT sluice_fk"); rerr != nil {
				return fmt.Errorf("target: %w", rerr)
			}
			if IsSQLState(err, "42710") { // duplicate_object: already there
				continue
			}
			plan.Warnings = append(plan.Warnings, fmt.Sprintf("%s: foreign key not created: %s: %v",
				j.Source.TableID, bulkrun.FirstLine(s), err))
		}
	}
	return nil
}

// Finish adds the foreign keys and records the position: the checkpoint
// and the schema history that replicate starts from, and the run's
// completion, all in one transaction with the foreign keys.
func (r *pgWriter) Finish(ctx context.Context) error {
	tx, err := r.pg.Begin(ctx)
	if err != nil {
		return fmt.Errorf("target: %w", err)
	}
	defer tx.Rollback(ctx)
	if err := r.addForeignKeys(ctx, tx); err != nil {
		return err
	}
	if !r.Pos.IsZero() {
		if err := checkpoint.Save(ctx, tx, r.Opts.Stream, checkpoint.State{Position: r.Pos, SchemaVersion: 1}); err != nil {
			return err
		}
		if err := checkpoint.SaveSchema(ctx, tx, r.Opts.Stream, 1, r.Pos, "", r.Cat.Tables, nil); err != nil {
			return err
		}
	}
	if err := completeRun(ctx, tx, r.Opts.Stream); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("target: record the snapshot position: %w", err)
	}
	return nil
}

// uniqueCollision explains a unique index PostgreSQL cannot build over rows
// MySQL holds as distinct: the duplicated key (PostgreSQL's detail) and the
// usual causes, a value policy (NUL characters stripped by --nul-char strip,
// zero dates made NULL or -infinity) or a comparison MySQL makes differently.
// Any other error is returned as is.
func uniqueCollision(err error) error {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "23505" {
		return err
	}
	return fmt.Errorf("%w: %s; these rows are distinct on the source but equal on PostgreSQL: a value policy "+
		"made them so (NUL characters removed by --nul-char strip: try --nul-char replace; zero dates: --zero-date) "+
		"or the key compares differently; change the rows on the source or leave the table out (--exclude)", err, pgErr.Detail)
}
