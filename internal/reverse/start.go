package reverse

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/schema"
	mysink "github.com/sluice-db/sluice/internal/sink/mysql"
	"github.com/sluice-db/sluice/internal/source/postgres/logical"
	"github.com/sluice-db/sluice/internal/source/postgres/lsnpos"
)

// preflight checks what logical decoding needs on the PostgreSQL side,
// every problem at once with its fix.
func preflight(ctx context.Context, o Options, pg *pgx.Conn) error {
	var level string
	var repl bool
	var version int
	if err := pg.QueryRow(ctx, `SELECT current_setting('wal_level'), current_setting('server_version_num')::int,
		(SELECT rolreplication OR rolsuper FROM pg_roles WHERE rolname = current_user)`).Scan(&level, &version, &repl); err != nil {
		return fmt.Errorf("source: %w", err)
	}
	var errs []error
	if version < 140000 {
		errs = append(errs, fmt.Errorf("source %s: PostgreSQL %d.%d; the reverse stream needs PostgreSQL 14 or later "+
			"(pgoutput protocol version 2: streamed in-progress transactions)", o.Source.Redacted(), version/10000, version%10000))
	}
	if level != "logical" {
		errs = append(errs, fmt.Errorf("source %s: wal_level is %s; the reverse stream reads logical decoding, which needs "+
			"wal_level = logical (ALTER SYSTEM SET wal_level = logical, then restart PostgreSQL)", o.Source.Redacted(), level))
	}
	if !repl {
		errs = append(errs, fmt.Errorf("source %s: the role %s has no REPLICATION attribute, which a replication connection needs: "+
			"ALTER ROLE %s REPLICATION", o.Source.Redacted(), pg.Config().User, pg.Config().User))
	}
	if err := errors.Join(errs...); err != nil {
		return exitcode.ConfigError(err)
	}
	return nil
}

// prepareStart records the stream's start when it has no checkpoint yet:
// the slot's position when it exists (armed by sluice cutover), else a new
// slot and publication created here for the tables of the schema.
func prepareStart(ctx context.Context, o Options, db *sql.DB, pg *pgx.Conn, tables map[string]*schema.Table) error {
	st, err := mysqlstate.Load(ctx, db, o.Stream, lsnpos.Decode)
	if err != nil {
		return err
	}
	if st != nil {
		return nil
	}
	slot := logical.SlotName(o.Stream)
	var flushed *string
	err = pg.QueryRow(ctx, "SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = $1", slot).Scan(&flushed)
	var start string
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		armed, err := arm(ctx, o, pg, tables)
		if err != nil {
			return err
		}
		start = armed.ConsistentLSN
		o.Log.Info("reverse: created the replication slot and publication (no slot existed for the stream)",
			"slot", armed.Slot, "publication", armed.Publication, "start", start)
	case err != nil:
		return fmt.Errorf("source: read slot %s: %w", slot, err)
	default:
		if flushed != nil {
			start = *flushed
		}
		o.Log.Info("reverse: starting at the existing slot's position", "slot", slot, "start", start)
	}
	pos, err := lsnpos.Decode(start)
	if err != nil || pos == nil {
		return fmt.Errorf("source: slot %s has no usable position (%q): %v", slot, start, err)
	}
	var list []*schema.Table
	for _, t := range tables {
		list = append(list, t)
	}
	if err := mysink.EnsureState(ctx, db, ""); err != nil {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("target: begin: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	if err := mysqlstate.SaveSchema(ctx, tx, o.Stream, 1, pos, "", list, nil); err != nil {
		return err
	}
	if err := mysqlstate.Save(ctx, tx, o.Stream, checkpoint.State{Position: pos, SchemaVersion: 1}); err != nil {
		return err
	}
	return tx.Commit()
}

// arm creates the slot and publication for the tables of the schema that
// the MySQL database has. Every table gets REPLICA IDENTITY FULL (Arm): the
// whole old row lets an unchanged TOASTed value be written back
// exactly and orders changes of unique keys besides the primary key.
func arm(ctx context.Context, o Options, pg *pgx.Conn, tables map[string]*schema.Table) (logical.Armed, error) {
	rows, err := pg.Query(ctx, `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY 1`, o.Schema)
	if err != nil {
		return logical.Armed{}, fmt.Errorf("source: list the tables of schema %s: %w", o.Schema, err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return logical.Armed{}, fmt.Errorf("source: list the tables of schema %s: %w", o.Schema, err)
	}
	var ts []logical.Table
	for _, n := range names {
		if tables[n] != nil {
			ts = append(ts, logical.Table{Schema: o.Schema, Name: n})
		} else {
			o.Log.Warn("reverse: PostgreSQL table not in the MySQL database; not carried back", "table", o.Schema+"."+n)
		}
	}
	if len(ts) == 0 {
		return logical.Armed{}, exitcode.ConfigError(fmt.Errorf("schema %s on PostgreSQL has no table that the MySQL database %s has", o.Schema, o.Target.Database))
	}
	return logical.Arm(ctx, pg, o.Stream, ts)
}
