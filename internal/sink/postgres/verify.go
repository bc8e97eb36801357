package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/typemap"
	"github.com/sluice-db/sluice/internal/verify/verifydb"
)

// pgTarget is a PostgreSQL target: the tables of source database d are in
// schema naming.Schema(d), values were converted by typemap, and every
// expression is the PostgreSQL twin of the source's (normalize.go).
type pgTarget struct {
	pool   *pgxpool.Pool
	naming schema.Naming
}

// OpenVerify opens the target side of `sluice verify` (verifydb.Verifier).
func (e engine) OpenVerify(ctx context.Context, o verifydb.OpenOptions) (verifydb.Target, error) {
	return openPGTarget(ctx, e.cfg, &o)
}

// VerifyTarget is the target side of a comparison over a pool opened with
// OpenVerifyPool, for verify's tests (which hold the pool for fixtures).
func VerifyTarget(pool *pgxpool.Pool, naming schema.Naming) verifydb.Target {
	return &pgTarget{pool: pool, naming: naming}
}

// openPGTarget opens a PostgreSQL target for a comparison: verify compares
// under the stream's names or not at all, and refuses the tables a stream
// filters or masks.
func openPGTarget(ctx context.Context, c config.Postgres, o *verifydb.OpenOptions) (*pgTarget, error) {
	pool, err := OpenVerifyPool(ctx, c, o.Conns)
	if err != nil {
		return nil, err
	}
	if o.Stream != "" {
		if err := checkpoint.CheckNaming(ctx, pool, o.Stream, o.Naming.Options(), false); err != nil {
			pool.Close()
			return nil, err
		}
	}
	policies, err := checkpoint.RowPolicies(ctx, pool)
	if err == nil {
		err = verifydb.RefuseRowPolicies(policies, o.Tables)
	}
	if err != nil {
		pool.Close()
		return nil, err
	}
	return &pgTarget{pool: pool, naming: o.Naming}, nil
}

func (t *pgTarget) Close() { t.pool.Close() }

// Mapper: the plans compile with the snapshot's policies, which say what
// the target holds instead of a value PostgreSQL cannot store.
func (t *pgTarget) Mapper(m *typemap.Mapper) *typemap.Mapper { return m }

func (t *pgTarget) Table(ctx context.Context, st *schema.Table) (string, map[string]bool, error) {
	s := t.naming.Schema(st.Database)
	cols, err := targetColumns(ctx, t.pool, s, t.naming.Table(st.TableID))
	return s, cols, err
}

func (t *pgTarget) Prepare(*verifydb.Plan) {}

func (t *pgTarget) HasMD5(context.Context) (bool, error) { return true, nil }

func (t *pgTarget) SHA256Empty(ctx context.Context) (string, error) {
	var s string
	err := t.pool.QueryRow(ctx, "SELECT encode(sha256(convert_to('', 'UTF8')), 'hex')").Scan(&s)
	return s, err
}

func (t *pgTarget) Checksum(ctx context.Context, p *verifydb.Plan, s verifydb.Scope, byBucket bool) (map[int]verifydb.Agg, error) {
	return p.TargetChecksum(ctx, t.pool, s, byBucket)
}

func (t *pgTarget) Digest(ctx context.Context, p *verifydb.Plan, s verifydb.Scope) (verifydb.ChunkDigest, error) {
	return p.TargetDigest(ctx, t.pool, s)
}

func (t *pgTarget) Diff(ctx context.Context, p *verifydb.Plan, s verifydb.Scope, src []verifydb.FetchedRow) ([]verifydb.RowDiff, error) {
	return p.DiffTarget(ctx, t.pool, s, src)
}

func (t *pgTarget) Groups(ctx context.Context, p *verifydb.Plan) ([]verifydb.HashCount, error) {
	if len(p.JSON) > 0 {
		sel := []string{p.Digest.PG(p.PGRowText)}
		for _, i := range p.JSON {
			sel = append(sel, p.Cols[i].PGRaw)
		}
		r, err := t.pool.Query(ctx, "SELECT "+strings.Join(sel, ", ")+" FROM "+p.PGTable)
		if err != nil {
			return nil, fmt.Errorf("target rows of %s: %w", p.Target, err)
		}
		return p.GoGroups(verifydb.PGRows{Rows: r}, false)
	}
	// ORDER BY x.h, not h: PostgreSQL resolves a bare ORDER BY name to the
	// output column first, here the text h::text, which sorts 99 after 100
	// and breaks the merge with the source's numeric order.
	q := "SELECT x.h::text, count(*)::text FROM (SELECT " + p.PGHash(p.PGRowText) + " AS h FROM " + p.PGTable + ") x GROUP BY x.h ORDER BY x.h"
	rows, err := t.pool.Query(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("target row hashes of %s: %w", p.Target, err)
	}
	return verifydb.ReadGroups(verifydb.PGRows{Rows: rows})
}

func (t *pgTarget) SampleRow(ctx context.Context, p *verifydb.Plan, h uint64) ([]byte, error) {
	var text []byte
	err := t.pool.QueryRow(ctx, "SELECT "+p.PGRowText+" FROM "+p.PGTable+" WHERE "+p.PGHash(p.PGRowText)+" = $1 LIMIT 1", int64(h)).Scan(&text)
	return text, err
}

func (t *pgTarget) UpsertRow(p *verifydb.Plan, vals [][]byte) (verifydb.Stmt, error) {
	row, err := p.TargetRow(vals)
	if err != nil {
		return verifydb.Stmt{}, err
	}
	return verifydb.Stmt{SQL: p.UpsertSQL(), Args: row}, nil
}

func (t *pgTarget) InsertRow(p *verifydb.Plan, vals [][]byte) (verifydb.Stmt, error) {
	row, err := p.TargetRow(vals)
	if err != nil {
		return verifydb.Stmt{}, err
	}
	cols := make([]string, len(p.Cols))
	ph := make([]string, len(p.Cols))
	for i, c := range p.Cols {
		cols[i] = verifydb.QuotePG(c.PGName)
		ph[i] = "$" + strconv.Itoa(i+1)
	}
	ins := "INSERT INTO " + p.PGTable + " (" + strings.Join(cols, ", ") + ") OVERRIDING SYSTEM VALUE VALUES (" + strings.Join(ph, ", ") + ")"
	return verifydb.Stmt{SQL: ins, Args: row}, nil
}

func (t *pgTarget) DeleteTargetKey(p *verifydb.Plan, key []string) (verifydb.Stmt, error) {
	return p.DeleteByText(key), nil
}

func (t *pgTarget) DeleteSourceKey(p *verifydb.Plan, raw [][]byte) (verifydb.Stmt, error) {
	vals := make([]any, len(p.Key))
	for k := range p.Key {
		var err error
		if vals[k], err = p.PGArg(k, raw[k]); err != nil {
			return verifydb.Stmt{}, err
		}
	}
	return p.DeleteByValues(vals), nil
}

func (t *pgTarget) DeleteCopies(p *verifydb.Plan, h uint64, n int64) verifydb.Stmt {
	return verifydb.Stmt{
		SQL: "DELETE FROM " + p.PGTable + " WHERE ctid IN (SELECT ctid FROM " + p.PGTable + " WHERE " +
			p.PGHash(p.PGRowText) + " = $1 LIMIT " + strconv.FormatInt(n, 10) + ")",
		Args: []any{int64(h)}, Delete: true}
}

func (t *pgTarget) JSONRows(ctx context.Context, p *verifydb.Plan) (verifydb.RowSource, error) {
	r, err := t.pool.Query(ctx, "SELECT "+strings.Join(p.JSONRowSelect(true), ", ")+" FROM "+p.PGTable)
	if err != nil {
		return nil, fmt.Errorf("target rows of %s: %w", p.Target, err)
	}
	return verifydb.PGRows{Rows: r}, nil
}

// DeleteJSONCopies compares each JSON column's text (jsonb::text, which
// is what the rows were read as) with IS NOT DISTINCT FROM, so a NULL
// document selects NULL.
func (t *pgTarget) DeleteJSONCopies(p *verifydb.Plan, id verifydb.JSONRowID, n int64) verifydb.Stmt {
	conds := []string{p.Digest.PG(p.PGRowText) + " = $1::text"}
	for k, i := range p.JSON {
		conds = append(conds, p.Cols[i].PGRaw+" IS NOT DISTINCT FROM $"+strconv.Itoa(k+2)+"::text")
	}
	return verifydb.Stmt{
		SQL: "DELETE FROM " + p.PGTable + " WHERE ctid IN (SELECT ctid FROM " + p.PGTable + " WHERE " +
			strings.Join(conds, " AND ") + " LIMIT " + strconv.FormatInt(n, 10) + ")",
		Args: id.Args(), Delete: true}
}

// Apply runs the statements in one transaction with sluice.apply on, so
// the ON UPDATE CURRENT_TIMESTAMP triggers keep the repaired values; again
// when PostgreSQL aborted it as a deadlock victim (a replicator writing the
// same rows): nothing of the aborted attempt stays.
func (t *pgTarget) Apply(ctx context.Context, p *verifydb.Plan, stmts []verifydb.Stmt) error {
	return verifydb.RetryRolledBack(ctx, func(err error) bool {
		var pgErr *pgconn.PgError
		return errors.As(err, &pgErr) && (pgErr.Code == "40P01" || pgErr.Code == "40001")
	}, func() error { return t.applyOnce(ctx, p, stmts) })
}

func (t *pgTarget) applyOnce(ctx context.Context, p *verifydb.Plan, stmts []verifydb.Stmt) error {
	return pgx.BeginFunc(ctx, t.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SET LOCAL sluice.apply = 'on'"); err != nil {
			return err
		}
		// The repaired rows are the source's: no trigger of the target fires.
		if err := SetReplicaRole(ctx, tx, true); err != nil {
			return err
		}
		for _, s := range stmts {
			if _, err := tx.Exec(ctx, s.SQL, s.Args...); err != nil {
				return fmt.Errorf("%s: %w", p.Target, err)
			}
		}
		return nil
	})
}

func (t *pgTarget) WriteSQL(ctx context.Context, p *verifydb.Plan, w io.Writer, stmts []verifydb.Stmt) error {
	return p.WriteSQL(ctx, t.pool, w, stmts)
}

func (t *pgTarget) IsForeignKeyViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23503"
}

func (t *pgTarget) Parents(ctx context.Context, plans map[string]*verifydb.Plan) (map[string][]string, error) {
	oids := make([]uint32, 0, len(plans))
	byOID := map[uint32]string{}
	for name, p := range plans {
		var oid uint32
		if err := t.pool.QueryRow(ctx, "SELECT $1::regclass::oid", p.Target).Scan(&oid); err != nil {
			return nil, fmt.Errorf("repair order: %s: %w", p.Target, err)
		}
		oids = append(oids, oid)
		byOID[oid] = name
	}
	rows, err := t.pool.Query(ctx, `SELECT conrelid::oid, confrelid::oid FROM pg_constraint
		WHERE contype = 'f' AND conrelid = ANY($1) AND confrelid = ANY($1) AND conrelid <> confrelid`, oids)
	if err != nil {
		return nil, fmt.Errorf("repair order: foreign keys: %w", err)
	}
	parents := map[string][]string{}
	var child, parent uint32
	if _, err := pgx.ForEachRow(rows, []any{&child, &parent}, func() error {
		parents[byOID[child]] = append(parents[byOID[child]], byOID[parent])
		return nil
	}); err != nil {
		return nil, fmt.Errorf("repair order: foreign keys: %w", err)
	}
	return parents, nil
}

func (t *pgTarget) StreamRunning(ctx context.Context, stream string) (bool, error) {
	return checkpoint.StreamRunning(ctx, t.pool, stream)
}

func (t *pgTarget) PolicyChanges(ctx context.Context, stream string) ([]verifydb.PolicyChange, error) {
	snap, err := checkpoint.LoadSnapshotPolicyChanges(ctx, t.pool, stream)
	if err != nil {
		return nil, err
	}
	repl, err := checkpoint.LoadPolicyChanges(ctx, t.pool, stream)
	if err != nil {
		return nil, err
	}
	return append(verifydb.PolicyList(snap, "snapshot"), verifydb.PolicyList(repl, "replication")...), nil
}

func (t *pgTarget) Checkpoint(ctx context.Context, stream string) (*pipeline.State, error) {
	return checkpoint.Load(ctx, t.pool, stream, binlogpos.Decode)
}

// ColumnOrder lists the target table's columns in their order.
func (t *pgTarget) ColumnOrder(ctx context.Context, p *verifydb.Plan) ([]string, error) {
	rows, err := t.pool.Query(ctx, `SELECT a.attname FROM pg_attribute a
		WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`, p.PGTable)
	if err != nil {
		return nil, fmt.Errorf("columns of %s: %w", p.Target, err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}
