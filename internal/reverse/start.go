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
// the position of the slot sluice cutover armed for it, or, only when asked
// (--start-at-current-lsn), a new slot and publication created here for
// the tables of the schema.
func prepareStart(ctx context.Context, o Options, db *sql.DB, pg *pgx.Conn, tables map[string]*schema.Table) error {
	st, err := mysqlstate.Load(ctx, db, o.Stream, lsnpos.Decode)
	if err != nil {
		return err
	}
	if st != nil {
		return checkOwner(ctx, o, pg)
	}
	var list []*schema.Table
	for _, t := range tables {
		list = append(list, t)
	}
	if err := mysink.EnsureState(ctx, db, ""); err != nil {
		return err
	}
	own, err := checkCutovers(ctx, o, pg)
	if err != nil {
		return err
	}
	if err := mysqlstate.RefuseOtherWriters(ctx, db, o.Stream, o.Target.Database, schema.TableNames(list)); err != nil {
		return err
	}
	start, err := startLSN(ctx, o, pg, tables, own)
	if err != nil {
		return err
	}
	pos, err := lsnpos.Decode(start)
	if err != nil || pos == nil {
		return fmt.Errorf("source: slot %s has no usable position (%q): %v", logical.SlotName(o.Stream), start, err)
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
	if err := mysqlstate.SaveTarget(ctx, tx, o.Stream, o.Target.Database); err != nil {
		return err
	}
	return tx.Commit()
}

// checkCutovers refuses (exit 2) a stream without a checkpoint when a
// cut-over of these tables names another reverse stream (the forward name
// or none given by mistake: starting anyway would begin at PostgreSQL's
// current position and leave out every write since the switch), and one
// whose slot and publication belong to another stream. It returns the
// cut-over this stream is the way back of (nil: none).
func checkCutovers(ctx context.Context, o Options, pg *pgx.Conn) (*cutover, error) {
	cs, err := cutoversOf(ctx, o, pg)
	if err != nil {
		return nil, err
	}
	var own *cutover
	var others []cutover
	othersArmed := false
	for i, c := range cs {
		if c.reverse == o.Stream {
			own = &cs[i]
		} else {
			others = append(others, c)
			othersArmed = othersArmed || c.armed
		}
	}
	if own == nil && len(others) > 0 {
		if !o.StartAtCurrentLSN || othersArmed {
			return nil, exitcode.ConfigError(wrongStream(o.Stream, others))
		}
		o.Log.Warn("reverse: --start-at-current-lsn although these tables were cut over under another stream name, whose slot is gone",
			"stream", o.Stream, "cutovers", wrongStream(o.Stream, others).Error())
	}
	return own, checkOwner(ctx, o, pg)
}

// startLSN is where a stream without a checkpoint starts: its slot's
// position; without a slot it is refused (exit 2), unless
// --start-at-current-lsn asks to create one at PostgreSQL's current
// position. own is the cut-over the stream continues (nil: none).
func startLSN(ctx context.Context, o Options, pg *pgx.Conn, tables map[string]*schema.Table, own *cutover) (string, error) {
	slot := logical.SlotName(o.Stream)
	var flushed *string
	err := pg.QueryRow(ctx, "SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = $1", slot).Scan(&flushed)
	switch {
	case errors.Is(err, pgx.ErrNoRows) && !o.StartAtCurrentLSN:
		return "", exitcode.ConfigError(noSlot(o, own))
	case errors.Is(err, pgx.ErrNoRows):
		armed, err := arm(ctx, o, pg, tables)
		if err != nil {
			return "", err
		}
		o.Log.Warn("reverse: --start-at-current-lsn: created the replication slot and publication; what PostgreSQL committed before this position is not carried back",
			"slot", armed.Slot, "publication", armed.Publication, "start", armed.ConsistentLSN)
		return armed.ConsistentLSN, nil
	case err != nil:
		return "", fmt.Errorf("source: read slot %s: %w", slot, err)
	}
	if o.StartAtCurrentLSN {
		o.Log.Warn("reverse: the stream's slot exists: starting at its position (--start-at-current-lsn applies only to a stream without one)", "slot", slot)
	}
	if flushed == nil {
		return "", nil
	}
	o.Log.Info("reverse: starting at the existing slot's position", "slot", slot, "start", *flushed)
	return *flushed, nil
}

// noSlot is the refusal of a stream with neither a checkpoint nor a slot.
func noSlot(o Options, own *cutover) error {
	slot := logical.SlotName(o.Stream)
	if own != nil {
		return fmt.Errorf("the slot %s that the cut-over of stream %s armed at %s no longer exists, and stream %s has no checkpoint "+
			"in the MySQL target %s: what PostgreSQL committed since the cut-over is no longer kept, so the way back cannot start without "+
			"losing it; compare the databases (sluice verify, repair), then start at PostgreSQL's current position with --start-at-current-lsn",
			slot, own.stream, own.at.UTC().Format("2006-01-02 15:04:05Z"), o.Stream, o.Target.Redacted())
	}
	return fmt.Errorf("stream %s has no checkpoint in the MySQL target %s and PostgreSQL has no replication slot %s: "+
		"the way back after sluice cutover is the reverse stream it armed and printed (`--stream <forward stream>_reverse`); "+
		"to start at PostgreSQL's current position instead, leaving out every write committed before it, pass --start-at-current-lsn",
		o.Stream, o.Target.Redacted(), slot)
}

// checkOwner refuses a stream whose slot and publication belong to another
// stream: their names fold case and punctuation (S and s share them), and
// two streams reading one slot each lose what the other confirmed.
func checkOwner(ctx context.Context, o Options, pg *pgx.Conn) error {
	owner, err := logical.Owner(ctx, pg, o.Stream)
	if err != nil {
		return fmt.Errorf("source: %w", err)
	}
	if owner == "" || owner == o.Stream {
		return nil
	}
	return exitcode.ConfigError(fmt.Errorf("the replication slot %s and publication %s belong to stream %s, not %s "+
		"(their names are lower case, with punctuation as _): pass --stream %s, or name this stream so that it differs by more than case",
		logical.SlotName(o.Stream), logical.PublicationName(o.Stream), owner, o.Stream, owner))
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
