package mysql

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/go-sql-driver/mysql"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/typemap"
	"github.com/sluice-db/sluice/internal/verify/verifydb"
)

// myTarget is a MySQL/MariaDB target: source table db.t is compared with
// t in the target URL's database. Both sides are the same engine, so the
// target runs the source's own expressions (checksums, digests, row
// fetches) on its copy, and the texts compare stored values byte for byte:
// no --zero-date or --nul-char policy rewrote them (Mapper compiles the
// plans without them).
//
// Repairs write the source's stored bytes back unchanged: the values are
// read as the snapshot reads them (typemap.SelectExpr: text in other
// charsets as raw bytes, floats as their exact double) and written over
// sessions with the binary connection charset (no conversion of the
// bytes), a permissive sql_mode (zero dates, the invalid ENUM value) with
// NO_AUTO_VALUE_ON_ZERO (an id 0 stays 0), and time_zone '+00:00'.
type myTarget struct {
	db       *sql.DB // reads: the source's session settings
	w        *sql.DB // repairs: charset binary, permissive sql_mode
	database string

	mu    sync.Mutex
	names map[string]string // target table → source database, to refuse two sources for one table
}

// repairSQLMode is the repair sessions' sql_mode: none of the strict modes
// (the source's zero dates and invalid values are written as they are),
// and NO_AUTO_VALUE_ON_ZERO so that an AUTO_INCREMENT column keeps a 0.
const repairSQLMode = "NO_AUTO_VALUE_ON_ZERO"

// OpenVerify opens the target side of `sluice verify` (verifydb.Verifier).
func (e engine) OpenVerify(ctx context.Context, o verifydb.OpenOptions) (verifydb.Target, error) {
	return openMyTarget(ctx, e.cfg, &o)
}

// openMyTarget opens a MySQL target for a comparison, refusing the tables
// a stream filters or masks.
func openMyTarget(ctx context.Context, m config.MySQL, o *verifydb.OpenOptions) (*myTarget, error) {
	t, err := openMySQLTarget(ctx, m, o.Conns)
	if err != nil {
		return nil, err
	}
	if err := t.refuseRowPolicy(ctx, o); err != nil {
		t.Close()
		return nil, err
	}
	return t, nil
}

// Mapper compiles the plans without the snapshot's --zero-date and
// --nul-char policies: a MySQL target is compared on its stored values as
// they are (the policies only say what a PostgreSQL target holds instead).
func (t *myTarget) Mapper(m *typemap.Mapper) *typemap.Mapper {
	return typemap.New(typemap.Options{
		ZeroDate: typemap.ZeroDateError, // printed as stored (normalize.go)
		Nul:      typemap.NulError,      // no REPLACE of NUL
		Charsets: m.Options().Charsets,
		// MySQL 9's VECTOR compared as its bytes
		RawVector: true,
	}, nil)
}

func openMySQLTarget(ctx context.Context, m config.MySQL, n int) (*myTarget, error) {
	db, err := verifydb.OpenMySQL(ctx, "target", m, n, nil)
	if err != nil {
		return nil, err
	}
	w, err := verifydb.OpenMySQL(ctx, "target", m, 2, func(c *mysql.Config) {
		c.Collation = "binary"
		c.Params["sql_mode"] = "'" + repairSQLMode + "'"
	})
	if err != nil {
		db.Close()
		return nil, err
	}
	return &myTarget{db: db, w: w, database: m.Database, names: map[string]string{}}, nil
}

func (t *myTarget) Close() {
	t.db.Close()
	t.w.Close()
}

func (t *myTarget) Table(ctx context.Context, st *schema.Table) (string, map[string]bool, error) {
	t.mu.Lock()
	other, dup := t.names[st.Name]
	if !dup {
		t.names[st.Name] = st.Database
	}
	t.mu.Unlock()
	if dup && other != st.Database {
		return t.database, nil, fmt.Errorf("source tables %s.%s and %s.%s both have the target table %s.%s: "+
			"verify one source database at a time (--include)", other, st.Name, st.Database, st.Name, t.database, st.Name)
	}
	rows, err := t.db.QueryContext(ctx, `SELECT COLUMN_NAME FROM information_schema.COLUMNS
		WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?`, t.database, st.Name)
	if err != nil {
		return t.database, nil, fmt.Errorf("target table %s.%s: %w", t.database, st.Name, err)
	}
	defer rows.Close()
	var cols map[string]bool
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return t.database, nil, err
		}
		if cols == nil {
			cols = map[string]bool{}
		}
		cols[n] = true
	}
	return t.database, cols, rows.Err()
}

func (t *myTarget) Prepare(p *verifydb.Plan) {
	p.TgtMy = schema.QuoteMySQL(t.database) + "." + schema.QuoteMySQL(p.Table.Name)
}

func (t *myTarget) HasMD5(ctx context.Context) (bool, error) { return verifydb.MySQLHasMD5(ctx, t.db) }

func (t *myTarget) SHA256Empty(ctx context.Context) (string, error) {
	var s string
	err := t.db.QueryRowContext(ctx, "SELECT SHA2('', 256)").Scan(&s)
	return s, err
}

func (t *myTarget) Checksum(ctx context.Context, p *verifydb.Plan, s verifydb.Scope, byBucket bool) (map[int]verifydb.Agg, error) {
	return p.MyChecksum(ctx, t.db, p.TgtMy, "target", s, byBucket)
}

func (t *myTarget) Digest(ctx context.Context, p *verifydb.Plan, s verifydb.Scope) (verifydb.ChunkDigest, error) {
	return p.MyDigest(ctx, t.db, p.TgtMy, "target", s)
}

// Diff fetches the target rows whole: a scope is at most a few thousand
// rows (FetchRows, or a batch of buckets of about one chunk), as on the
// source side.
func (t *myTarget) Diff(ctx context.Context, p *verifydb.Plan, s verifydb.Scope, src []verifydb.FetchedRow) ([]verifydb.RowDiff, error) {
	tgt, err := p.MyFetch(ctx, t.db, p.TgtMy, "target", s)
	if err != nil {
		return nil, err
	}
	return verifydb.MergeRows(src, tgt), nil
}

func (t *myTarget) Groups(ctx context.Context, p *verifydb.Plan) ([]verifydb.HashCount, error) {
	return p.MyGroups(ctx, t.db, p.TgtMy, "target")
}

func (t *myTarget) SampleRow(ctx context.Context, p *verifydb.Plan, h uint64) ([]byte, error) {
	var text []byte
	err := t.db.QueryRowContext(ctx, "SELECT "+p.MyRowText+" FROM "+p.TgtMy+" WHERE "+p.MyHash(p.MyRowText)+" = ? LIMIT 1", h).Scan(&text)
	return text, err
}

// rowArgs copies a row read for a repair into statement arguments (nil is NULL).
func rowArgs(vals [][]byte) []any {
	args := make([]any, len(vals))
	for i, v := range vals {
		if v != nil {
			args[i] = bytes.Clone(v)
		}
	}
	return args
}

// UpsertRow updates every column on a duplicate key, the key's too: a key
// equal in the key's collation but not byte for byte ('a' vs 'A') takes
// the source's bytes. Columns are set explicitly, so ON UPDATE
// CURRENT_TIMESTAMP leaves them as the source has them.
func (t *myTarget) UpsertRow(p *verifydb.Plan, vals [][]byte) (verifydb.Stmt, error) {
	set := make([]string, len(p.Cols))
	for i, c := range p.Cols {
		set[i] = schema.QuoteMySQL(c.Name) + " = VALUES(" + schema.QuoteMySQL(c.Name) + ")"
	}
	return verifydb.Stmt{SQL: p.MyInsert() + " ON DUPLICATE KEY UPDATE " + strings.Join(set, ", "), Args: rowArgs(vals)}, nil
}

func (t *myTarget) InsertRow(p *verifydb.Plan, vals [][]byte) (verifydb.Stmt, error) {
	return verifydb.Stmt{SQL: p.MyInsert(), Args: rowArgs(vals)}, nil
}

func (t *myTarget) DeleteTargetKey(p *verifydb.Plan, key []string) (verifydb.Stmt, error) {
	raw := make([][]byte, len(key))
	for k := range key {
		raw[k] = []byte(key[k])
	}
	return t.DeleteSourceKey(p, raw)
}

func (t *myTarget) DeleteSourceKey(p *verifydb.Plan, raw [][]byte) (verifydb.Stmt, error) {
	conds := make([]string, len(p.Key))
	args := make([]any, len(p.Key))
	for k := range p.Key {
		var err error
		if conds[k], args[k], err = p.MyKeyCond(k, raw[k]); err != nil {
			return verifydb.Stmt{}, err
		}
	}
	return verifydb.Stmt{SQL: "DELETE FROM " + p.TgtMy + " WHERE " + strings.Join(conds, " AND "), Args: args, Delete: true}, nil
}

func (t *myTarget) DeleteCopies(p *verifydb.Plan, h uint64, n int64) verifydb.Stmt {
	return verifydb.Stmt{SQL: "DELETE FROM " + p.TgtMy + " WHERE " + p.MyHash(p.MyRowText) + " = ? LIMIT " + strconv.FormatInt(n, 10),
		Args: []any{h}, Delete: true}
}

func (t *myTarget) JSONRows(ctx context.Context, p *verifydb.Plan) (verifydb.RowSource, error) {
	r, err := t.db.QueryContext(ctx, "SELECT "+strings.Join(p.JSONRowSelect(false), ", ")+" FROM "+p.TgtMy)
	if err != nil {
		return nil, fmt.Errorf("target rows of %s: %w", p.Target, err)
	}
	return verifydb.SQLRows{Rows: r}, nil
}

// DeleteJSONCopies compares each JSON column's bytes as the target printed
// them (a MySQL JSON column compared with a string would take the string
// as a JSON string scalar).
func (t *myTarget) DeleteJSONCopies(p *verifydb.Plan, id verifydb.JSONRowID, n int64) verifydb.Stmt {
	conds := []string{p.Digest.My(p.MyRowText) + " = ?"}
	args := []any{id.Digest}
	for k, i := range p.JSON {
		conds = append(conds, "CAST("+p.Cols[i].MySQLRaw+" AS BINARY) <=> ?")
		if id.Raws[k] == nil {
			args = append(args, nil)
			continue
		}
		args = append(args, []byte(*id.Raws[k]))
	}
	return verifydb.Stmt{SQL: "DELETE FROM " + p.TgtMy + " WHERE " + strings.Join(conds, " AND ") + " LIMIT " + strconv.FormatInt(n, 10),
		Args: args, Delete: true}
}

// Apply runs a table's repair statements in one target transaction, again
// when the server rolled it back for a lock conflict (a replicator or the
// application writing the same rows): nothing of a rolled-back attempt
// stays, and a repair is run against a live target.
func (t *myTarget) Apply(ctx context.Context, p *verifydb.Plan, stmts []verifydb.Stmt) error {
	return verifydb.RetryRolledBack(ctx, IsRetryable, func() error { return t.applyOnce(ctx, p, stmts) })
}

func (t *myTarget) applyOnce(ctx context.Context, p *verifydb.Plan, stmts []verifydb.Stmt) error {
	tx, err := t.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", p.Target, err)
	}
	defer tx.Rollback()
	for _, s := range stmts {
		if _, err := tx.ExecContext(ctx, s.SQL, s.Args...); err != nil {
			return fmt.Errorf("%s: %w", p.Target, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("%s: %w", p.Target, err)
	}
	return nil
}

// WriteSQL writes the statements as one transaction of plain SQL for the
// mysql client, with the repair sessions' settings; values are literals.
func (t *myTarget) WriteSQL(_ context.Context, p *verifydb.Plan, w io.Writer, stmts []verifydb.Stmt) error {
	if len(stmts) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("SET NAMES binary;\nSET SESSION sql_mode = '" + repairSQLMode + "';\nSET time_zone = '+00:00';\nSTART TRANSACTION;\n")
	for _, s := range stmts {
		lits := make([]string, len(s.Args))
		for i, a := range s.Args {
			lits[i] = myLiteral(a)
		}
		b.WriteString(substituteMy(s.SQL, lits) + ";\n")
	}
	b.WriteString("COMMIT;\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// myLiteral renders a statement argument: numbers as they are, printable
// ASCII (numbers, dates and times as text, plain strings) quoted, other
// bytes as a hexadecimal literal (a binary string where a string is taken;
// each such value is a column's bytes or inside CONVERT).
func myLiteral(a any) string {
	switch v := a.(type) {
	case nil:
		return "NULL"
	case int64:
		return strconv.FormatInt(v, 10)
	case uint64:
		return strconv.FormatUint(v, 10)
	case string:
		return myLiteral([]byte(v))
	case []byte:
		printable := true
		for _, c := range v {
			if c < 0x20 || c > 0x7e || c == '\'' || c == '\\' {
				printable = false
				break
			}
		}
		if printable {
			return "'" + string(v) + "'"
		}
		return "X'" + hex.EncodeToString(v) + "'"
	}
	return fmt.Sprintf("'%v'", a)
}

// substituteMy replaces the ? parameters of a statement built here by the
// literals, in order; a ? inside a `quoted` identifier is not a parameter.
func substituteMy(q string, lits []string) string {
	var b strings.Builder
	n, quoted := 0, false
	for i := 0; i < len(q); i++ {
		switch {
		case q[i] == '`':
			quoted = !quoted
		case q[i] == '?' && !quoted && n < len(lits):
			b.WriteString(lits[n])
			n++
			continue
		}
		b.WriteByte(q[i])
	}
	return b.String()
}

func (t *myTarget) IsForeignKeyViolation(err error) bool {
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		return false
	}
	switch me.Number {
	case 1216, 1217, 1451, 1452: // ER_NO_REFERENCED_ROW(_2), ER_ROW_IS_REFERENCED(_2)
		return true
	}
	return false
}

func (t *myTarget) Parents(ctx context.Context, plans map[string]*verifydb.Plan) (map[string][]string, error) {
	byName := map[string]string{}
	for name, p := range plans {
		byName[p.Table.Name] = name
	}
	rows, err := t.db.QueryContext(ctx, `SELECT TABLE_NAME, REFERENCED_TABLE_NAME FROM information_schema.REFERENTIAL_CONSTRAINTS
		WHERE CONSTRAINT_SCHEMA = ? AND UNIQUE_CONSTRAINT_SCHEMA = ?`, t.database, t.database)
	if err != nil {
		return nil, fmt.Errorf("repair order: foreign keys: %w", err)
	}
	defer rows.Close()
	parents := map[string][]string{}
	for rows.Next() {
		var child, parent string
		if err := rows.Scan(&child, &parent); err != nil {
			return nil, fmt.Errorf("repair order: foreign keys: %w", err)
		}
		c, okc := byName[child]
		pa, okp := byName[parent]
		if okc && okp && c != pa {
			parents[c] = append(parents[c], pa)
		}
	}
	return parents, rows.Err()
}

// StreamRunning: a replicator into a MySQL target holds the stream's leader
// lock on it for its whole run (internal/sink/mysql, fence.go).
func (t *myTarget) StreamRunning(ctx context.Context, stream string) (bool, error) {
	who, err := Replicator(ctx, t.db, stream)
	return who != "", err
}

// PolicyChanges: a MySQL target receives the source's values unchanged.
func (t *myTarget) PolicyChanges(context.Context, string) ([]verifydb.PolicyChange, error) {
	return nil, nil
}

func (t *myTarget) Checkpoint(ctx context.Context, stream string) (*pipeline.State, error) {
	return mysqlstate.Load(ctx, t.db, stream, binlogpos.Decode)
}

// refuseRowPolicy refuses what a stream's row filters or column masks
// cover (verify compares and repairs whole tables in clear): the --stream
// itself when it recorded any, by its replicator's owner settings or its
// snapshot's fingerprint, and every table another stream filters or
// masks. A user that may not read sluice's state (a read-only account
// granted only the replica's database) compares without the check, told
// so; --repair, which would write clear values, is refused instead.
func (t *myTarget) refuseRowPolicy(ctx context.Context, o *verifydb.OpenOptions) error {
	policies, err := mysqlstate.RowPolicies(ctx, t.db)
	switch {
	case mysqlstate.Denied(err) && o.Repair:
		return exitcode.ConfigError(fmt.Errorf("verify --repair first checks that no stream filters or masks the tables it "+
			"would write, and this user may not read sluice's state on the target (%v); grant it SELECT ON sluice.*, "+
			"or verify without --repair", err))
	case mysqlstate.Denied(err):
		o.Log.Warn("verify: this user may not read sluice's state on the target, so the tables a stream filters or "+
			"masks (--where, --mask) are not known; a masked table would show every row as different", "err", err)
		return nil
	case err != nil:
		return err
	}
	if p := policies[o.Stream]; len(p) > 0 {
		return exitcode.ConfigError(checkpoint.RowPolicyRefusal(o.Stream, strings.Join(p, "; ")))
	}
	return verifydb.RefuseRowPolicies(policies, o.Tables)
}

// ColumnOrder lists the target table's columns in their order.
func (t *myTarget) ColumnOrder(ctx context.Context, p *verifydb.Plan) ([]string, error) {
	rows, err := t.db.QueryContext(ctx, `SELECT COLUMN_NAME FROM information_schema.COLUMNS
		WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`, t.database, p.Table.Name)
	if err != nil {
		return nil, fmt.Errorf("columns of %s: %w", p.Target, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}
