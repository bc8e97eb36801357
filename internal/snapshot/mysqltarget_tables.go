package snapshot

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/schema"
	mysink "github.com/sluice-db/sluice/internal/sink/mysql"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	mysnap "github.com/sluice-db/sluice/internal/source/mysql/consistent"
)

// fingerprint of a run into a MySQL target: the PostgreSQL one plus where
// the tables go and their engine.
func (r *myRunner) fingerprint() fingerprint {
	fp := r.o.fingerprint()
	fp.TargetDatabase, fp.TargetEngine = r.dbName, r.o.TargetEngine
	return fp
}

func (r *myRunner) loadRun(ctx context.Context) (*runState, error) {
	row, err := mysqlstate.LoadSnapshotRun(ctx, r.db, r.o.Stream)
	if err != nil || row == nil {
		return nil, err
	}
	run := &runState{Status: row.Status, Pass: row.Pass, Method: row.Method, LockHeldMS: row.LockHeldMS}
	if run.Position, err = binlogpos.Parse(row.Position); err != nil {
		return nil, fmt.Errorf("snapshot state: run of stream %q: %w", r.o.Stream, err)
	}
	if err := json.Unmarshal(row.Fingerprint, &run.Fingerprint); err != nil {
		return nil, fmt.Errorf("snapshot state: decode run options: %w", err)
	}
	if err := json.Unmarshal(row.Tables, &run.Tables); err != nil {
		return nil, fmt.Errorf("snapshot state: decode run tables: %w", err)
	}
	return run, nil
}

// showTarget returns a target table's definition (normalizeDef), or ""
// when it does not exist.
func (r *myRunner) showTarget(ctx context.Context, q mysqlstate.Querier, mt *myTable) (string, error) {
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

func (r *myRunner) hasRows(ctx context.Context, mt *myTable) (bool, error) {
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

// checkTargets decides, for a new run, what happens to each target table,
// and refuses (exit 2, every problem at once) tables that another stream
// writes, and tables that exist with another definition or with rows,
// unless --drop-existing.
func (r *myRunner) checkTargets(ctx context.Context) (map[schema.TableID]action, error) {
	names := make([]string, len(r.b.jobs))
	for i, j := range r.b.jobs {
		names[i] = j.my.name
	}
	var problems []string
	if err := mysqlstate.RefuseOtherWriters(ctx, r.db, r.o.Stream, r.dbName, names); exitcode.Of(err) == 2 {
		problems = append(problems, err.Error())
	} else if err != nil {
		return nil, err
	}
	acts := map[schema.TableID]action{}
	for _, j := range r.b.jobs {
		mt := j.my
		have, err := r.showTarget(ctx, r.db, mt)
		if err != nil {
			return nil, err
		}
		switch {
		case have == "" && r.o.DataOnly:
			problems = append(problems, fmt.Sprintf("target table %s does not exist: --data-only needs the tables; "+
				"create them with --schema-only first, or run without --data-only", mt.qname))
			continue
		case have == "":
			acts[j.t.TableID] = actCreate
			continue
		case have != mt.def && r.o.DataOnly:
			problems = append(problems, fmt.Sprintf("target table %s exists with another definition (%s): --data-only copies into "+
				"tables as the source defines them; create them with --schema-only", mt.qname, firstDifference(have, mt.def)))
			continue
		case have != mt.def && r.o.DropExisting:
			acts[j.t.TableID] = actReplace
			continue
		case have != mt.def:
			problems = append(problems, fmt.Sprintf("target table %s exists with another definition (%s): drop it, "+
				"or re-run with --drop-existing to replace it", mt.qname, firstDifference(have, mt.def)))
			continue
		}
		rows, err := r.hasRows(ctx, mt)
		if err != nil {
			return nil, err
		}
		switch {
		case !rows:
			acts[j.t.TableID] = actReuse
		case r.o.DropExisting && r.o.DataOnly:
			acts[j.t.TableID] = actTruncate
		case r.o.DropExisting:
			acts[j.t.TableID] = actReplace
		default:
			problems = append(problems, fmt.Sprintf("target table %s already holds rows and stream %q has no interrupted "+
				"snapshot to resume: empty or drop it, or re-run with --drop-existing to replace it", mt.qname, r.o.Stream))
		}
	}
	if len(problems) > 0 {
		return nil, exitcode.ConfigError(errors.New(strings.Join(problems, "\n")))
	}
	return acts, nil
}

// applyActions creates the database and the tables (foreign keys need no
// order: the session has foreign_key_checks off). MySQL's DDL is not
// transactional: the run is recorded after the tables exist, so a run
// killed in between finds them empty and identical, and reuses them.
func (r *myRunner) applyActions(ctx context.Context, acts map[schema.TableID]action) error {
	var stmts []string
	if !r.o.DataOnly {
		// With the source database's defaults (a later CREATE TABLE that
		// replicate replays may rely on them).
		create := "CREATE DATABASE IF NOT EXISTS " + mysnap.QuoteMy(r.dbName)
		if d := r.b.cat.Databases; len(d) == 1 && d[0].Charset != "" && d[0].Collation != "" {
			create += " CHARACTER SET " + d[0].Charset
			if !r.fromMySQL {
				create += " COLLATE " + d[0].Collation
			} else if coll, ok := mysink.TargetCollation(d[0].Collation, r.hasCollation); ok {
				create += " COLLATE " + coll
			}
		}
		stmts = append(stmts, create)
	}
	for _, j := range r.b.jobs {
		switch acts[j.t.TableID] {
		case actCreate:
			stmts = append(stmts, j.my.create)
		case actReplace:
			stmts = append(stmts, "DROP TABLE IF EXISTS "+j.my.qname, j.my.create)
		case actTruncate:
			stmts = append(stmts, "TRUNCATE TABLE "+j.my.qname)
		}
	}
	return r.execText(ctx, stmts)
}

// execText runs DDL read from the source's SHOW CREATE TABLE (utf8mb4 text)
// on one target session in utf8mb4, then puts the session back to binary
// (mySessionSetup). In a binary session a string literal of the DDL is bytes:
// a utf16 column's default d'ef became 搧敦, a latin1 one's 'é' two
// characters (found by TestFuzzDifferential, seed 631).
func (r *myRunner) execText(ctx context.Context, stmts []string) (err error) {
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
			return fmt.Errorf("target: %s: %w", firstLine(s), err)
		}
	}
	return nil
}

// createTargets creates the tables, then records the run and its tables in
// one transaction.
func (r *myRunner) createTargets(ctx context.Context, acts map[schema.TableID]action) error {
	if err := r.applyActions(ctx, acts); err != nil {
		return err
	}
	fp, err := json.Marshal(r.fingerprint())
	if err != nil {
		return err
	}
	tables, err := json.Marshal(r.b.cat.Tables)
	if err != nil {
		return err
	}
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("target: %w", err)
	}
	defer tx.Rollback()
	if err := mysqlstate.InsertSnapshotRun(ctx, tx, r.o.Stream, fp, tables); err != nil {
		return err
	}
	for _, j := range r.b.jobs {
		a := acts[j.t.TableID]
		j.state = &tableState{ID: j.t.TableID, TargetSchema: r.dbName, Created: a == actCreate || a == actReplace}
		// As the target prints it now (a target of another version may
		// print the source's definition differently).
		def, err := r.showTarget(ctx, tx, j.my)
		if err != nil {
			return err
		}
		err = mysqlstate.InsertSnapshotTable(ctx, tx, r.o.Stream, mysqlstate.SnapshotTable{Database: j.t.Database, Name: j.t.Name,
			TargetDatabase: r.dbName, Created: j.state.Created, Definition: def})
		if err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("target: record the run: %w", err)
	}
	return nil
}

// checkResume makes sure an interrupted run can be continued: the same
// options, the same source tables, and the target tables still as planned.
func (r *myRunner) checkResume(ctx context.Context, run *runState) error {
	if fp := r.fingerprint(); !reflect.DeepEqual(fp, run.Fingerprint) {
		return exitcode.ConfigError(fmt.Errorf("stream %q has an interrupted snapshot started with other options "+
			"(then %s, now %s): re-run with the same options to resume it, or add --restart to start over",
			r.o.Stream, fpText(run.Fingerprint), fpText(fp)))
	}
	if changed := changedTables(run.Tables, r.b.cat.Tables); len(changed) > 0 {
		return exitcode.ConfigError(fmt.Errorf("the source schema changed since the interrupted snapshot of stream %q "+
			"(tables %s): the copied part no longer matches; re-run with --restart", r.o.Stream, strings.Join(changed, ", ")))
	}
	rows, err := mysqlstate.LoadSnapshotTables(ctx, r.db, r.o.Stream)
	if err != nil {
		return err
	}
	states := map[schema.TableID]*tableState{}
	defs := map[schema.TableID]string{}
	for _, t := range rows {
		id := schema.TableID{Database: t.Database, Name: t.Name}
		states[id] = &tableState{ID: id, TargetSchema: t.TargetDatabase, Created: t.Created, Planned: t.Planned}
		defs[id] = t.Definition
	}
	var problems []string
	for _, j := range r.b.jobs {
		if j.state = states[j.t.TableID]; j.state == nil {
			return exitcode.ConfigError(fmt.Errorf("the interrupted snapshot of stream %q has no record of table %s: re-run with --restart",
				r.o.Stream, j.t.TableID))
		}
		have, err := r.showTarget(ctx, r.db, j.my)
		if err != nil {
			return err
		}
		want := defs[j.t.TableID]
		if want == "" {
			want = j.my.def
		}
		if have != want {
			what := "is missing"
			if have != "" {
				what = "has another definition (" + firstDifference(have, want) + ")"
			}
			problems = append(problems, fmt.Sprintf("target table %s %s since the interrupted snapshot of stream %q: re-run with --restart",
				j.my.qname, what, r.o.Stream))
		}
	}
	if len(problems) > 0 {
		return exitcode.ConfigError(errors.New(strings.Join(problems, "\n")))
	}
	r.resumed = true
	r.pass = run.Pass
	return nil
}

// restart forgets the stream's snapshot: drops the tables the run created,
// empties the ones it reused, deletes the run state, the checkpoint and the
// schema history of the stream.
func (r *myRunner) restart(ctx context.Context) error {
	// Starting over under a running replicator would pull its state from
	// under it: refuse at once, naming it (it holds the stream's leader lock).
	who, err := mysink.Replicator(ctx, r.db, r.o.Stream)
	if err != nil {
		return err
	}
	if who != "" {
		return exitcode.ConfigError(fmt.Errorf("snapshot --restart: stream %q is being replicated into this target by %s: "+
			"stop that replicator first (or use another --stream)", r.o.Stream, who))
	}
	states, err := mysqlstate.LoadSnapshotTables(ctx, r.db, r.o.Stream)
	if err != nil {
		return err
	}
	for _, st := range states {
		mt := &myTable{qname: mysnap.QuoteMy(st.TargetDatabase) + "." + mysnap.QuoteMy(st.Name)}
		stmt := "DROP TABLE IF EXISTS " + mt.qname
		if !st.Created {
			have, err := r.showTarget(ctx, r.db, mt)
			if err != nil {
				return err
			}
			if have == "" {
				continue
			}
			stmt = "TRUNCATE TABLE " + mt.qname
		}
		if _, err := r.db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("restart: %s: %w", stmt, err)
		}
	}
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("target: %w", err)
	}
	defer tx.Rollback()
	if err := mysqlstate.DeleteSnapshotRun(ctx, tx, r.o.Stream); err != nil {
		return err
	}
	if err := mysqlstate.Delete(ctx, tx, r.o.Stream); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("restart: %w", err)
	}
	r.log.Info("restart: previous snapshot state removed", "stream", r.o.Stream, "tables", len(states))
	return nil
}

// schemaOnly creates the tables and copies nothing; no run state or
// position is recorded.
func (r *myRunner) schemaOnly(ctx context.Context, run *runState) (*Report, error) {
	if run != nil && run.Status != "complete" {
		return nil, exitcode.ConfigError(fmt.Errorf("stream %q has an interrupted snapshot: resume it (run without --schema-only) "+
			"or add --restart to start over", r.o.Stream))
	}
	acts, err := r.checkTargets(ctx)
	if err != nil {
		return nil, err
	}
	if err := r.applyActions(ctx, acts); err != nil {
		return nil, err
	}
	if err := r.copyObjects(ctx); err != nil {
		return nil, err
	}
	rep := r.b.report
	rep.Tables = len(r.b.jobs)
	r.collectWarnings()
	rep.Seconds = since(r.b.start)
	return rep, nil
}

func (r *myRunner) collectWarnings() {
	for _, j := range r.b.jobs {
		r.b.report.Warnings = append(r.b.report.Warnings, j.my.warnings...)
	}
}
