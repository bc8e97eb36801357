package snapshot

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/ddl"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/sink/postgres"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	targets "github.com/sluice-db/sluice/internal/target"
)

// `sluice snapshot --include T --recopy` copies tables of a replicated
// stream again (a damaged copy, a table verify cannot repair) while the
// stream's replicator runs or is stopped. The method, in order:
//
//  1. Hold the stream's re-copy lock and ask the replicator out of the way
//     (checkpoint.RequestRecopy): a running one commits what it read and
//     waits; wait until no apply session of the stream is left.
//  2. Copy the tables at one consistent position P with the snapshot
//     itself, as a stream of its own ("<stream>/recopy") into a shadow
//     schema: the live tables are untouched until the copy is complete, so
//     a re-copy killed here changed nothing (run it again).
//  3. In one target transaction, under the stream's apply fence: check
//     that the replicator applied nothing past P and that each live table
//     has the copy's columns (else a schema change between the checkpoint
//     and P is pending: refused, run again after the replicator caught up),
//     make the live rows the shadow's (the table itself, its indexes,
//     foreign keys and grants stay), and record each table as copied at P.
//  4. The replicator continues from its checkpoint C <= P and skips the
//     tables' changes up to P (internal/replicate/recopy.go).
//
// The rows of T are then the source's at P plus every change after P,
// exactly once; the other tables never stopped being exact.

// recopyWait is how long a re-copy waits for the stream's replicator to
// let go of the target (a graceful stop drains first).
const recopyWait = 2 * time.Minute

// checkRecopy lists the options --recopy cannot be combined with.
func (o Options) checkRecopy() []error {
	var errs []error
	if !o.Target.Capabilities().Recopy {
		errs = append(errs, errors.New("--recopy: re-copying into a MySQL/MariaDB target is not supported yet "+
			"(the MySQL target replays schema changes as statements, which the re-copy hand-over would have to skip); "+
			"use verify --repair, or snapshot --restart of the whole stream"))
	}
	if len(o.Include) == 0 {
		errs = append(errs, errors.New("--recopy needs --include naming the tables to copy again, e.g. --include shop.orders"))
	}
	if o.SchemaOnly || o.DataOnly || o.DryRun || o.Restart || o.DropExisting {
		errs = append(errs, errors.New("--recopy copies rows of existing tables: it does not combine with --schema-only, --data-only, --dry-run, --restart or --drop-existing"))
	}
	return errs
}

// recopyStream names the snapshot stream a re-copy copies with.
func recopyStream(stream string) string { return stream + "/recopy" }

// shadowSchema is the target schema that receives the copy of database db.
func shadowSchema(stream, db string) string {
	return fmt.Sprintf("sluice_recopy_%08x", crc32.ChecksumIEEE([]byte(stream+"\x00"+db)))
}

// recopyTable is one table being copied again.
type recopyTable struct {
	t             *schema.Table
	schema, name  string   // the live table's target schema and name
	live, shadow  string   // quoted target tables
	cols          []string // the copied columns, quoted
	key           []string // its key columns, quoted (none: keyless)
	shadowSchemaQ string
}

// mergeSQL are the statements that make the live table's rows the
// shadow's. With a key, row by row: delete the rows the copy lacks, update
// the ones that differ, insert the missing ones; the table, its indexes,
// foreign keys and grants stay, and foreign keys are checked as for any
// change (no superuser needed). Without a key, every row is replaced.
func (t recopyTable) mergeSQL() []string {
	list := func(alias string, cols []string) string {
		out := make([]string, len(cols))
		for i, c := range cols {
			out[i] = alias + "." + c
		}
		return strings.Join(out, ", ")
	}
	all := strings.Join(t.cols, ", ")
	if len(t.key) == 0 {
		return []string{"DELETE FROM " + t.live,
			"INSERT INTO " + t.live + " (" + all + ") OVERRIDING SYSTEM VALUE SELECT " + all + " FROM " + t.shadow}
	}
	match := "(" + list("l", t.key) + ") = (" + list("s", t.key) + ")"
	isKey := map[string]bool{}
	for _, k := range t.key {
		isKey[k] = true
	}
	var set []string
	for _, c := range t.cols {
		if !isKey[c] {
			set = append(set, c+" = s."+c)
		}
	}
	stmts := []string{"DELETE FROM " + t.live + " l WHERE NOT EXISTS (SELECT 1 FROM " + t.shadow + " s WHERE " + match + ")"}
	if len(set) > 0 {
		// Compared as row text: every type has one (json has no equality).
		stmts = append(stmts, "UPDATE "+t.live+" l SET "+strings.Join(set, ", ")+" FROM "+t.shadow+" s WHERE "+match+
			" AND ROW("+list("l", t.cols)+")::text IS DISTINCT FROM ROW("+list("s", t.cols)+")::text")
	}
	return append(stmts, "INSERT INTO "+t.live+" ("+all+") OVERRIDING SYSTEM VALUE SELECT "+list("s", t.cols)+" FROM "+t.shadow+
		" s WHERE NOT EXISTS (SELECT 1 FROM "+t.live+" l WHERE "+match+")")
}

func runRecopy(ctx context.Context, o Options) (*Report, error) {
	// Capabilities.Recopy (checkRecopy) is a PostgreSQL engine's.
	pg, _ := targets.PostgresOf(o.Target)
	pool, err := postgres.Connect(ctx, pg.ConnString(), 3)
	if err != nil {
		return nil, exitcode.ConfigError(fmt.Errorf("target: cannot connect to %s: %w", pg.Redacted(), err))
	}
	defer pool.Close()
	st, err := checkpoint.Load(ctx, pool, o.Stream, binlogpos.Decode)
	if err != nil {
		return nil, err
	}
	if st == nil || st.Position == nil {
		return nil, exitcode.ConfigError(fmt.Errorf("--recopy: stream %q has no checkpoint in this target: "+
			"re-copy works on a stream whose snapshot finished; run sluice snapshot first", o.Stream))
	}
	tables, err := recopyTables(ctx, o, pool, st.SchemaVersion)
	if err != nil {
		return nil, err
	}
	lock, err := holdRecopyLock(ctx, pool, o.Stream)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	if err := checkpoint.EnsureRecopy(ctx, pool); err != nil {
		return nil, err
	}
	ids := make([]schema.TableID, len(tables))
	for i, t := range tables {
		ids[i] = t.t.TableID
	}
	if err := checkpoint.RequestRecopy(ctx, pool, o.Stream, ids); err != nil {
		return nil, err
	}
	rep, err := recopy(ctx, o, pool, tables, ids)
	if err != nil {
		// Leave the replicator free; the live tables are as they were.
		_ = checkpoint.DropRecopyRequests(context.WithoutCancel(ctx), pool, o.Stream)
		return nil, err
	}
	return rep, nil
}

// recopy is runRecopy once the replicator was asked out of the way.
func recopy(ctx context.Context, o Options, pool *pgxpool.Pool, tables []recopyTable, ids []schema.TableID) (*Report, error) {
	if err := waitForReplicator(ctx, o, pool); err != nil {
		return nil, err
	}
	sub := o
	sub.Recopy, sub.Restart, sub.DropExisting = false, true, true
	sub.Stream = recopyStream(o.Stream)
	sub.SchemaMap = nil
	seen := map[string]bool{}
	for _, t := range tables {
		db := t.t.Database
		if !seen[db] {
			seen[db] = true
			sub.SchemaMap = append(sub.SchemaMap, db+"="+shadowSchema(o.Stream, db))
			if _, err := pool.Exec(ctx, "DROP SCHEMA IF EXISTS "+t.shadowSchemaQ+" CASCADE"); err != nil {
				return nil, fmt.Errorf("--recopy: drop the shadow schema of an earlier run: %w", err)
			}
		}
	}
	o.Log.Info("re-copy: copying into shadow tables", "stream", o.Stream, "tables", len(tables))
	rep, err := Run(ctx, sub)
	if err != nil {
		return nil, fmt.Errorf("--recopy: copy: %w", err)
	}
	if rep.Position.File == "" {
		return nil, fmt.Errorf("--recopy: the copy recorded no binlog file position (%s)", rep.Position)
	}
	defer dropShadows(context.WithoutCancel(ctx), o, pool, seen)
	if err := swapIn(ctx, o, pool, tables, rep.Position); err != nil {
		return nil, err
	}
	rep.Stream, rep.Mode = o.Stream, "recopy"
	o.Log.Info("re-copy: tables replaced; the replicator skips their changes up to the copy's position",
		"stream", o.Stream, "position", rep.Position.String(), "tables", len(ids))
	return rep, nil
}

// dropShadows drops the shadow schemas and what the copy's own snapshot
// stream recorded (already gone after a swap), once the copy is swapped in
// or refused; a killed re-copy leaves them to the next one, which drops
// them first.
func dropShadows(ctx context.Context, o Options, pool *pgxpool.Pool, dbs map[string]bool) {
	for db := range dbs {
		if _, err := pool.Exec(ctx, "DROP SCHEMA IF EXISTS "+schema.QuoteIdent(shadowSchema(o.Stream, db))+" CASCADE"); err != nil {
			o.Log.Warn("re-copy: could not drop the shadow schema (the next re-copy drops it)", "err", err)
		}
	}
	sub := recopyStream(o.Stream)
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := postgres.DeleteSnapshotRun(ctx, tx, sub); err != nil {
			return err
		}
		if err := checkpoint.Delete(ctx, tx, sub); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "DELETE FROM sluice.schema_history WHERE stream = $1", sub)
		return err
	})
	if err != nil {
		o.Log.Warn("re-copy: could not forget the copy's snapshot state (the next re-copy does)", "err", err)
	}
}

// recopyTables resolves --include/--exclude on the source and checks that
// each table is replicated by the stream and exists on the target.
func recopyTables(ctx context.Context, o Options, pool *pgxpool.Pool, version int64) ([]recopyTable, error) {
	filter, err := schema.NewFilter(o.Include, o.Exclude, o.Source.Database)
	if err != nil {
		return nil, exitcode.ConfigError(err)
	}
	naming, err := schema.NewNaming(o.SchemaMap)
	if err != nil {
		return nil, exitcode.ConfigError(err)
	}
	db, err := o.Source.OpenDB()
	if err != nil {
		return nil, exitcode.ConfigError(err)
	}
	defer db.Close()
	cat, err := schema.Load(ctx, db, filter)
	if err != nil {
		return nil, fmt.Errorf("source: %w", err)
	}
	if len(cat.Tables) == 0 {
		return nil, exitcode.ConfigError(fmt.Errorf("--recopy: no tables in scope (%s) on the source", filter))
	}
	streamTables, err := checkpoint.LoadSchema(ctx, pool, o.Stream, version)
	if err != nil {
		return nil, err
	}
	var out []recopyTable
	for _, t := range cat.Tables {
		if streamTables[t.TableID] == nil {
			return nil, exitcode.ConfigError(fmt.Errorf("--recopy: table %s is not replicated by stream %q (not in its schema history)", t.TableID, o.Stream))
		}
		cols, err := postgres.TableColumns(ctx, pool, naming.Schema(t.Database), t.Name)
		if err != nil {
			return nil, err
		}
		if cols == nil {
			return nil, exitcode.ConfigError(fmt.Errorf("--recopy: target table %s does not exist", naming.QTable(t.TableID)))
		}
		rt := recopyTable{t: t, live: naming.QTable(t.TableID), schema: naming.Schema(t.Database), name: t.Name}
		for _, i := range ddl.WritableColumns(t) {
			rt.cols = append(rt.cols, schema.QuoteIdent(t.Columns[i].Name))
		}
		for _, k := range t.KeyColumns() {
			rt.key = append(rt.key, schema.QuoteIdent(k))
		}
		sh := shadowSchema(o.Stream, t.Database)
		rt.shadow, rt.shadowSchemaQ = schema.QuoteIdent(sh)+"."+schema.QuoteIdent(t.Name), schema.QuoteIdent(sh)
		out = append(out, rt)
	}
	return out, nil
}

// holdRecopyLock takes the stream's re-copy lock on a connection of its
// own, held until the re-copy ends (or dies: PostgreSQL then frees it,
// which tells a waiting replicator to go on).
func holdRecopyLock(ctx context.Context, pool *pgxpool.Pool, stream string) (*pgxpool.Conn, error) {
	c, err := pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("target: %w", err)
	}
	var ok bool
	if err := c.QueryRow(ctx, "SELECT pg_try_advisory_lock($1, hashtext($2))", checkpoint.RecopyLockClass, stream).Scan(&ok); err != nil {
		c.Release()
		return nil, fmt.Errorf("target: re-copy lock of stream %q: %w", stream, err)
	}
	if !ok {
		c.Release()
		return nil, exitcode.ConfigError(fmt.Errorf("--recopy: another re-copy of stream %q is running against this target; wait for it to finish", stream))
	}
	return c, nil
}

// waitForReplicator waits until no apply session of the stream is left
// (a running replicator saw the request and stopped).
func waitForReplicator(ctx context.Context, o Options, pool *pgxpool.Pool) error {
	deadline := time.Now().Add(recopyWait)
	logged := false
	for {
		hs, err := checkpoint.StreamHolders(ctx, pool, o.Stream)
		if err != nil {
			return err
		}
		if len(hs) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("--recopy: the replicator of stream %q (%s) did not stop for the re-copy within %s; "+
				"is it an older sluice? stop it, and run the re-copy again", o.Stream, checkpoint.Describe(hs), recopyWait)
		}
		if !logged {
			o.Log.Info("re-copy: waiting for the stream's replicator to commit what it read and stop", "stream", o.Stream,
				"replicator", checkpoint.Describe(hs))
			logged = true
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// swapIn replaces the live tables' rows by the shadow copies at pos and
// records them as copied at pos, in one transaction under the stream's
// apply fence (the lock every apply session holds shared).
func swapIn(ctx context.Context, o Options, pool *pgxpool.Pool, tables []recopyTable, pos binlogpos.Position) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("target: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if err := fenceStream(ctx, tx, o.Stream); err != nil {
		return err
	}
	if err := checkNothingPast(ctx, tx, o.Stream, pos); err != nil {
		return err
	}
	// sluice.apply keeps the ON UPDATE CURRENT_TIMESTAMP triggers quiet,
	// and the replica role every other trigger: the copied values are the
	// source's.
	if _, err := tx.Exec(ctx, "SET LOCAL sluice.apply = 'on'"); err != nil {
		return fmt.Errorf("--recopy: %w", err)
	}
	if err := postgres.SetReplicaRole(ctx, tx, true); err != nil {
		return fmt.Errorf("--recopy: %w", err)
	}
	for _, t := range tables {
		if err := sameColumns(ctx, tx, t, shadowSchema(o.Stream, t.t.Database)); err != nil {
			return err
		}
		for _, s := range t.mergeSQL() {
			if _, err := tx.Exec(ctx, s); err != nil {
				return fmt.Errorf("--recopy: replace the rows of %s: %w", t.live, err)
			}
		}
		if err := checkpoint.MarkRecopied(ctx, tx, o.Stream, t.t.TableID, pos); err != nil {
			return err
		}
	}
	sub := recopyStream(o.Stream)
	if err := postgres.DeleteSnapshotRun(ctx, tx, sub); err != nil {
		return err
	}
	if err := checkpoint.Delete(ctx, tx, sub); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "DELETE FROM sluice.schema_history WHERE stream = $1", sub); err != nil {
		return fmt.Errorf("--recopy: forget the copy's schema history: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("--recopy: replace the rows: %w", err)
	}
	return nil
}

// sameColumns refuses a table whose live columns differ from the copy's:
// a schema change of the table the replicator has not applied yet (between
// its checkpoint and the copy). The replicator runs such changes on the
// live table, so it must have them before the rows are replaced.
func sameColumns(ctx context.Context, tx pgx.Tx, t recopyTable, shadow string) error {
	live, err := postgres.TableColumns(ctx, tx, t.schema, t.name)
	if err != nil {
		return err
	}
	cp, err := postgres.TableColumns(ctx, tx, shadow, t.name)
	if err != nil {
		return err
	}
	text := func(cols []postgres.TableColumn) string {
		parts := make([]string, len(cols))
		for i, c := range cols {
			parts[i] = c.Name + " " + c.Type
		}
		sort.Strings(parts)
		return strings.Join(parts, ", ")
	}
	if a, b := text(live), text(cp); a != b {
		return fmt.Errorf("--recopy: the columns of %s differ from the source's now (target: %s; source: %s): "+
			"a schema change the replicator has not applied yet; nothing was replaced: let the replicator catch up "+
			"(start it, or wait), then run the re-copy again", t.live, a, b)
	}
	return nil
}

// fenceStream takes the stream's apply lock exclusively for the
// transaction: no apply session of the stream is open or can start.
func fenceStream(ctx context.Context, tx pgx.Tx, stream string) error {
	deadline := time.Now().Add(recopyWait)
	for {
		var ok bool
		if err := tx.QueryRow(ctx, "SELECT pg_try_advisory_xact_lock($1, hashtext($2))", checkpoint.StreamLockClass, stream).Scan(&ok); err != nil {
			return fmt.Errorf("--recopy: fence stream %q: %w", stream, err)
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("--recopy: a replicator of stream %q still holds the target after %s; stop it and run the re-copy again", stream, recopyWait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// checkNothingPast refuses the swap when the stream applied a transaction
// past pos (a replicator that ran between the request and the copy): the
// copy would lose that transaction's changes of the tables.
func checkNothingPast(ctx context.Context, tx pgx.Tx, stream string, pos binlogpos.Position) error {
	st, err := checkpoint.Load(ctx, tx, stream, binlogpos.Decode)
	if err != nil {
		return err
	}
	past := st != nil && st.Position != nil && st.Position.Compare(pos) > 0
	rows, err := checkpoint.LoadApplied(ctx, tx, stream, binlogpos.Decode)
	if err != nil {
		return err
	}
	for _, r := range rows {
		past = past || r.Last.Compare(pos) > 0
	}
	if past {
		return fmt.Errorf("--recopy: the replicator of stream %q applied changes past the copy's position %s while it was copied; "+
			"nothing was replaced: run the re-copy again", stream, pos)
	}
	return nil
}
