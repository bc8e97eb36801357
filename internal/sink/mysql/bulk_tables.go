package mysql

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/go-sql-driver/mysql"

	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/target/bulkrun"
)

// Fingerprint of a run into a MySQL target: the PostgreSQL one plus where
// the tables go and their engine.
func (r *myWriter) Fingerprint(fp *bulkrun.Fingerprint) {
	fp.TargetDatabase, fp.TargetEngine = r.dbName, r.engine
}

// EnsureState creates the state tables in the target's database sluice.
func (r *myWriter) EnsureState(ctx context.Context) error {
	if err := mysqlstate.EnsureSnapshot(ctx, r.db, r.engine); err != nil {
		return fmt.Errorf("target: %w", err)
	}
	return nil
}

func (r *myWriter) LoadRun(ctx context.Context) (*bulkrun.RunState, error) {
	row, err := mysqlstate.LoadSnapshotRun(ctx, r.db, r.Opts.Stream)
	if err != nil || row == nil {
		return nil, err
	}
	run := &bulkrun.RunState{Status: row.Status, Pass: row.Pass, Method: row.Method, LockHeldMS: row.LockHeldMS}
	if err := run.Decode(r.Opts.Stream, row.Position, row.Fingerprint, row.Tables); err != nil {
		return nil, err
	}
	return run, nil
}

// showTarget returns a target table's definition (normalizeDef), or ""
// when it does not exist.
func (r *myWriter) showTarget(ctx context.Context, q mysqlstate.Querier, mt *myTable) (string, error) {
	var name, create string
	err := q.QueryRowContext(ctx, "SHOW CREATE TABLE "+mt.qname).Scan(&name, &create)
	var me *mysql.MySQLError
	if errors.As(err, &me) && (me.Number == 1146 || me.Number == 1049) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("target: SHOW CREATE TABLE %s: %w", mt.qname, err)
	}
	colls, tableColl, err := targetCollations(ctx, q, mt.db, mt.name)
	if err != nil {
		return "", err
	}
	return normalizeDef(explicitCollations(create, colls, tableColl)), nil
}

func (r *myWriter) HasRows(ctx context.Context, j *bulkrun.Job) (bool, error) {
	mt := j.Out.(*myTable)
	var one int
	err := r.db.QueryRowContext(ctx, "SELECT 1 FROM "+mt.qname+" LIMIT 1").Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("target: %s: %w", mt.qname, err)
	}
	return true, nil
}

// TargetProblems refuses target tables that another stream writes.
func (r *myWriter) TargetProblems(ctx context.Context) ([]string, error) {
	names := make([]string, len(r.Jobs))
	for i, j := range r.Jobs {
		names[i] = j.Out.(*myTable).name
	}
	if err := mysqlstate.RefuseOtherWriters(ctx, r.db, r.Opts.Stream, r.dbName, names); exitcode.Of(err) == 2 {
		return []string{err.Error()}, nil
	} else if err != nil {
		return nil, err
	}
	return nil, nil
}

// Existing compares a target table's definition with the planned one.
func (r *myWriter) Existing(ctx context.Context, j *bulkrun.Job) (bool, *bulkrun.Mismatch, error) {
	mt := j.Out.(*myTable)
	have, err := r.showTarget(ctx, r.db, mt)
	if err != nil || have == "" {
		return false, nil, err
	}
	if have == mt.def {
		return true, nil, nil
	}
	diff := firstDifference(have, mt.def)
	return true, &bulkrun.Mismatch{
		Plain: fmt.Sprintf("target table %s exists with another definition (%s): drop it, "+
			"or re-run with --drop-existing to replace it", mt.qname, diff),
		DataOnly: fmt.Sprintf("target table %s exists with another definition (%s): --data-only copies into "+
			"tables as the source defines them; create them with --schema-only", mt.qname, diff),
	}, nil
}

// applyActions creates the database and the tables (foreign keys need no
// order: the session has foreign_key_checks off). MySQL's DDL is not
// transactional: the run is recorded after the tables exist, so a run
// killed in between finds them empty and identical, and reuses them.
func (r *myWriter) applyActions(ctx context.Context, acts map[schema.TableID]bulkrun.Action) error {
	var stmts []string
	if !r.Opts.DataOnly {
		// With the source database's defaults (a later CREATE TABLE that
		// replicate replays may rely on them).
		create := "CREATE DATABASE IF NOT EXISTS " + schema.QuoteMySQL(r.dbName)
		if d := r.Cat.Databases; len(d) == 1 && d[0].Charset != "" && d[0].Collation != "" {
			create += " CHARACTER SET " + d[0].Charset
			if !r.fromMySQL {
				create += " COLLATE " + d[0].Collation
			} else if coll, ok := TargetCollation(d[0].Collation, r.hasCollation); ok {
				create += " COLLATE " + coll
			}
		}
		stmts = append(stmts, create)
	}
	for _, j := range r.Jobs {
		mt := j.Out.(*myTable)
		switch acts[j.Source.TableID] {
		case bulkrun.ActCreate:
			stmts = append(stmts, mt.create)
		case bulkrun.ActReplace:
			stmts = append(stmts, "DROP TABLE IF EXISTS "+mt.qname, mt.create)
		case bulkrun.ActTruncate:
			stmts = append(stmts, "TRUNCATE TABLE "+mt.qname)
		}
	}
	return r.execText(ctx, stmts)
}

// execText runs DDL read from the source's SHOW CREATE TABLE (utf8mb4 text)
// on one target session in utf8mb4, then puts the session back to binary
// (mySessionSetup). In a binary session a string literal of the DDL is bytes:
// a utf16 column's default d'ef became 搧敦, a latin1 one's 'é' two
// characters (found by TestFuzzDifferential, seed 631).
func (r *myWriter) execText(ctx context.Context, stmts []string) (err error) {
	c, err := r.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("target: %w", err)
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, "SET NAMES utf8mb4"); err != nil {
		return fmt.Errorf("target: %w", err)
	}
	defer func() {
		if _, rerr := c.ExecContext(context.WithoutCancel(ctx), mySessionSetup[0]); rerr != nil && err == nil {
			err = fmt.Errorf("target: %s: %w", mySessionSetup[0], rerr)
		}
	}()
	for _, s := range stmts {
		if _, err := c.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("target: %s: %w", bulkrun.FirstLine(s), err)
		}
	}
	return nil
}

// CreateTables creates the tables, then records the run and its tables in
// one transaction.
func (r *myWriter) CreateTables(ctx context.Context, acts map[schema.TableID]bulkrun.Action) error {
	if err := r.applyActions(ctx, acts); err != nil {
		return err
	}
	fp, err := json.Marshal(r.RunFingerprint())
	if err != nil {
		return err
	}
	tables, err := json.Marshal(r.Cat.Tables)
	if err != nil {
		return err
	}
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("target: %w", err)
	}
	defer tx.Rollback()
	if err := mysqlstate.InsertSnapshotRun(ctx, tx, r.Opts.Stream, fp, tables); err != nil {
		return err
	}
	for _, j := range r.Jobs {
		j.State = bulkrun.NewTableState(j, acts, r.dbName)
		// As the target prints it now (a target of another version may
		// print the source's definition differently).
		def, err := r.showTarget(ctx, tx, j.Out.(*myTable))
		if err != nil {
			return err
		}
		err = mysqlstate.InsertSnapshotTable(ctx, tx, r.Opts.Stream, mysqlstate.SnapshotTable{Database: j.Source.Database, Name: j.Source.Name,
			TargetDatabase: r.dbName, Created: j.State.Created, Definition: def})
		if err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("target: record the run: %w", err)
	}
	return nil
}

// TableStates are the run's table records, with the target tables'
// definitions as the run found or created them (checkResume).
func (r *myWriter) TableStates(ctx context.Context) (map[schema.TableID]*bulkrun.TableState, error) {
	rows, err := mysqlstate.LoadSnapshotTables(ctx, r.db, r.Opts.Stream)
	if err != nil {
		return nil, err
	}
	states := map[schema.TableID]*bulkrun.TableState{}
	r.defs = map[schema.TableID]string{}
	for _, t := range rows {
		id := schema.TableID{Database: t.Database, Name: t.Name}
		states[id] = &bulkrun.TableState{ID: id, TargetSchema: t.TargetDatabase, Created: t.Created, Planned: t.Planned}
		r.defs[id] = t.Definition
	}
	return states, nil
}

// CheckResume makes sure the target tables are still as the interrupted
// run left them.
func (r *myWriter) CheckResume(ctx context.Context) error {
	var problems []string
	for _, j := range r.Jobs {
		mt := j.Out.(*myTable)
		have, err := r.showTarget(ctx, r.db, mt)
		if err != nil {
			return err
		}
		want := r.defs[j.Source.TableID]
		if want == "" {
			want = mt.def
		}
		if have != want {
			what := "is missing"
			if have != "" {
				what = "has another definition (" + firstDifference(have, want) + ")"
			}
			problems = append(problems, fmt.Sprintf("target table %s %s since the interrupted snapshot of stream %q: re-run with --restart",
				mt.qname, what, r.Opts.Stream))
		}
	}
	return bulkrun.Refusal(problems)
}

// Replicator names the replicator of the stream into this target (it
// holds the stream's leader lock).
func (r *myWriter) Replicator(ctx context.Context) (string, error) {
	return Replicator(ctx, r.db, r.Opts.Stream)
}

// Forget drops the tables the run created, empties the ones it reused,
// deletes the run state, the checkpoint and the schema history of the
// stream.
func (r *myWriter) Forget(ctx context.Context) (int, error) {
	states, err := mysqlstate.LoadSnapshotTables(ctx, r.db, r.Opts.Stream)
	if err != nil {
		return 0, err
	}
	for _, st := range states {
		mt := &myTable{qname: schema.QuoteMySQL(st.TargetDatabase) + "." + schema.QuoteMySQL(st.Name)}
		stmt := "DROP TABLE IF EXISTS " + mt.qname
		if !st.Created {
			have, err := r.showTarget(ctx, r.db, mt)
			if err != nil {
				return 0, err
			}
			if have == "" {
				continue
			}
			stmt = "TRUNCATE TABLE " + mt.qname
		}
		if _, err := r.db.ExecContext(ctx, stmt); err != nil {
			return 0, fmt.Errorf("restart: %s: %w", stmt, err)
		}
	}
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("target: %w", err)
	}
	defer tx.Rollback()
	if err := mysqlstate.DeleteSnapshotRun(ctx, tx, r.Opts.Stream); err != nil {
		return 0, err
	}
	if err := mysqlstate.Delete(ctx, tx, r.Opts.Stream); err != nil {
		return 0, err
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("restart: %w", err)
	}
	return len(states), nil
}

// SchemaOnly creates the tables, views and routines.
func (r *myWriter) SchemaOnly(ctx context.Context, acts map[schema.TableID]bulkrun.Action) error {
	if err := r.applyActions(ctx, acts); err != nil {
		return err
	}
	return r.copyObjects(ctx)
}
