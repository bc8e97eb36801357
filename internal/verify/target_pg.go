package verify

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
	"github.com/sluice-db/sluice/internal/typemap"
	"github.com/sluice-db/sluice/internal/schema"
	pgsink "github.com/sluice-db/sluice/internal/sink/postgres"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
)

// pgTarget is a PostgreSQL target: the tables of source database d are in
// schema naming.Schema(d), values were converted by typemap, and every
// expression is the PostgreSQL twin of the source's (normalize.go).
type pgTarget struct {
	pool   *pgxpool.Pool
	naming schema.Naming
}

// openPGTarget opens a PostgreSQL target for a comparison: verify compares
// under the stream's names or not at all, and refuses the tables a stream
// filters or masks.
func openPGTarget(ctx context.Context, c config.Postgres, o *openOptions) (*pgTarget, error) {
	pool, err := openTarget(ctx, c, o.conns)
	if err != nil {
		return nil, err
	}
	if o.stream != "" {
		if err := checkpoint.CheckNaming(ctx, pool, o.stream, o.naming.Options(), false); err != nil {
			pool.Close()
			return nil, err
		}
	}
	policies, err := checkpoint.RowPolicies(ctx, pool)
	if err == nil {
		err = refuseRowPolicies(policies, o.tables)
	}
	if err != nil {
		pool.Close()
		return nil, err
	}
	return &pgTarget{pool: pool, naming: o.naming}, nil
}

func (t *pgTarget) Close() { t.pool.Close() }

// mapper: the plans compile with the snapshot's policies, which say what
// the target holds instead of a value PostgreSQL cannot store.
func (t *pgTarget) mapper(m *typemap.Mapper) *typemap.Mapper { return m }

func (t *pgTarget) table(ctx context.Context, st *schema.Table) (string, map[string]bool, error) {
	s := t.naming.Schema(st.Database)
	cols, err := targetColumns(ctx, t.pool, s, t.naming.Table(st.TableID))
	return s, cols, err
}

func (t *pgTarget) prepare(*tablePlan) {}

func (t *pgTarget) hasMD5(context.Context) (bool, error) { return true, nil }

func (t *pgTarget) sha256Empty(ctx context.Context) (string, error) {
	var s string
	err := t.pool.QueryRow(ctx, "SELECT encode(sha256(convert_to('', 'UTF8')), 'hex')").Scan(&s)
	return s, err
}

func (t *pgTarget) checksum(ctx context.Context, p *tablePlan, s scope, byBucket bool) (map[int]agg, error) {
	return p.targetChecksum(ctx, t.pool, s, byBucket)
}

func (t *pgTarget) digest(ctx context.Context, p *tablePlan, s scope) (chunkDigest, error) {
	return p.targetDigest(ctx, t.pool, s)
}

func (t *pgTarget) diff(ctx context.Context, p *tablePlan, s scope, src []fetchedRow) ([]rowDiff, error) {
	return p.diffTarget(ctx, t.pool, s, src)
}

func (t *pgTarget) groups(ctx context.Context, p *tablePlan) ([]hashCount, error) {
	if len(p.json) > 0 {
		sel := []string{p.digest.pg(p.pgRowText)}
		for _, i := range p.json {
			sel = append(sel, p.cols[i].PGRaw)
		}
		r, err := t.pool.Query(ctx, "SELECT "+strings.Join(sel, ", ")+" FROM "+p.pgTable)
		if err != nil {
			return nil, fmt.Errorf("target rows of %s: %w", p.target, err)
		}
		return p.goGroups(pgRows{r}, false)
	}
	// ORDER BY x.h, not h: PostgreSQL resolves a bare ORDER BY name to the
	// output column first, here the text h::text, which sorts 99 after 100
	// and breaks the merge with the source's numeric order.
	q := "SELECT x.h::text, count(*)::text FROM (SELECT " + p.pgHash(p.pgRowText) + " AS h FROM " + p.pgTable + ") x GROUP BY x.h ORDER BY x.h"
	rows, err := t.pool.Query(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("target row hashes of %s: %w", p.target, err)
	}
	return readGroups(pgRows{rows})
}

func (t *pgTarget) sampleRow(ctx context.Context, p *tablePlan, h uint64) ([]byte, error) {
	var text []byte
	err := t.pool.QueryRow(ctx, "SELECT "+p.pgRowText+" FROM "+p.pgTable+" WHERE "+p.pgHash(p.pgRowText)+" = $1 LIMIT 1", int64(h)).Scan(&text)
	return text, err
}

func (t *pgTarget) upsertRow(p *tablePlan, vals [][]byte) (stmt, error) {
	row, err := p.targetRow(vals)
	if err != nil {
		return stmt{}, err
	}
	return stmt{sql: p.upsertSQL(), args: row}, nil
}

func (t *pgTarget) insertRow(p *tablePlan, vals [][]byte) (stmt, error) {
	row, err := p.targetRow(vals)
	if err != nil {
		return stmt{}, err
	}
	cols := make([]string, len(p.cols))
	ph := make([]string, len(p.cols))
	for i, c := range p.cols {
		cols[i] = quotePG(c.PGName)
		ph[i] = "$" + strconv.Itoa(i+1)
	}
	ins := "INSERT INTO " + p.pgTable + " (" + strings.Join(cols, ", ") + ") OVERRIDING SYSTEM VALUE VALUES (" + strings.Join(ph, ", ") + ")"
	return stmt{sql: ins, args: row}, nil
}

func (t *pgTarget) deleteTargetKey(p *tablePlan, key []string) (stmt, error) {
	return p.deleteByText(key), nil
}

func (t *pgTarget) deleteSourceKey(p *tablePlan, raw [][]byte) (stmt, error) {
	vals := make([]any, len(p.key))
	for k := range p.key {
		var err error
		if vals[k], err = p.pgArg(k, raw[k]); err != nil {
			return stmt{}, err
		}
	}
	return p.deleteByValues(vals), nil
}

func (t *pgTarget) deleteCopies(p *tablePlan, h uint64, n int64) stmt {
	return stmt{
		sql: "DELETE FROM " + p.pgTable + " WHERE ctid IN (SELECT ctid FROM " + p.pgTable + " WHERE " +
			p.pgHash(p.pgRowText) + " = $1 LIMIT " + strconv.FormatInt(n, 10) + ")",
		args: []any{int64(h)}, delete: true}
}

func (t *pgTarget) jsonRows(ctx context.Context, p *tablePlan) (rowSource, error) {
	r, err := t.pool.Query(ctx, "SELECT "+strings.Join(p.jsonRowSelect(true), ", ")+" FROM "+p.pgTable)
	if err != nil {
		return nil, fmt.Errorf("target rows of %s: %w", p.target, err)
	}
	return pgRows{r}, nil
}

// deleteJSONCopies compares each JSON column's text (jsonb::text, which
// is what the rows were read as) with IS NOT DISTINCT FROM, so a NULL
// document selects NULL.
func (t *pgTarget) deleteJSONCopies(p *tablePlan, id jsonRowID, n int64) stmt {
	conds := []string{p.digest.pg(p.pgRowText) + " = $1::text"}
	for k, i := range p.json {
		conds = append(conds, p.cols[i].PGRaw+" IS NOT DISTINCT FROM $"+strconv.Itoa(k+2)+"::text")
	}
	return stmt{
		sql: "DELETE FROM " + p.pgTable + " WHERE ctid IN (SELECT ctid FROM " + p.pgTable + " WHERE " +
			strings.Join(conds, " AND ") + " LIMIT " + strconv.FormatInt(n, 10) + ")",
		args: id.args(), delete: true}
}

// apply runs the statements in one transaction with sluice.apply on, so
// the ON UPDATE CURRENT_TIMESTAMP triggers keep the repaired values; again
// when PostgreSQL aborted it as a deadlock victim (a replicator writing the
// same rows): nothing of the aborted attempt stays.
func (t *pgTarget) apply(ctx context.Context, p *tablePlan, stmts []stmt) error {
	return retryRolledBack(ctx, func(err error) bool {
		var pgErr *pgconn.PgError
		return errors.As(err, &pgErr) && (pgErr.Code == "40P01" || pgErr.Code == "40001")
	}, func() error { return t.applyOnce(ctx, p, stmts) })
}

func (t *pgTarget) applyOnce(ctx context.Context, p *tablePlan, stmts []stmt) error {
	return pgx.BeginFunc(ctx, t.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SET LOCAL sluice.apply = 'on'"); err != nil {
			return err
		}
		// The repaired rows are the source's: no trigger of the target fires.
		if err := pgsink.SetReplicaRole(ctx, tx, true); err != nil {
			return err
		}
		for _, s := range stmts {
			if _, err := tx.Exec(ctx, s.sql, s.args...); err != nil {
				return fmt.Errorf("%s: %w", p.target, err)
			}
		}
		return nil
	})
}

func (t *pgTarget) writeSQL(ctx context.Context, p *tablePlan, w io.Writer, stmts []stmt) error {
	return p.writeSQL(ctx, t.pool, w, stmts)
}

func (t *pgTarget) isForeignKeyViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23503"
}

func (t *pgTarget) parents(ctx context.Context, plans map[string]*tablePlan) (map[string][]string, error) {
	oids := make([]uint32, 0, len(plans))
	byOID := map[uint32]string{}
	for name, p := range plans {
		var oid uint32
		if err := t.pool.QueryRow(ctx, "SELECT $1::regclass::oid", p.target).Scan(&oid); err != nil {
			return nil, fmt.Errorf("repair order: %s: %w", p.target, err)
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

func (t *pgTarget) streamRunning(ctx context.Context, stream string) (bool, error) {
	return checkpoint.StreamRunning(ctx, t.pool, stream)
}

func (t *pgTarget) policyChanges(ctx context.Context, stream string) ([]PolicyChange, error) {
	snap, err := checkpoint.LoadSnapshotPolicyChanges(ctx, t.pool, stream)
	if err != nil {
		return nil, err
	}
	repl, err := checkpoint.LoadPolicyChanges(ctx, t.pool, stream)
	if err != nil {
		return nil, err
	}
	return append(policyList(snap, "snapshot"), policyList(repl, "replication")...), nil
}

func (t *pgTarget) checkpoint(ctx context.Context, stream string) (*pipeline.State, error) {
	return checkpoint.Load(ctx, t.pool, stream, binlogpos.Decode)
}
