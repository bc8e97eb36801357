package verify

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
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
	mysink "github.com/sluice-db/sluice/internal/sink/mysql"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/typemap"
)

// myTarget is a MySQL/MariaDB target: source table db.t is compared with
// t in the target URL's database. Both sides are the same engine, so the
// target runs the source's own expressions (checksums, digests, row
// fetches) on its copy, and the texts compare stored values byte for byte:
// no --zero-date or --nul-char policy rewrote them (Run compiles the
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

// openMyTarget opens a MySQL target for a comparison, refusing the tables
// a stream filters or masks.
func openMyTarget(ctx context.Context, m config.MySQL, o *openOptions) (*myTarget, error) {
	t, err := openMySQLTarget(ctx, m, o.conns)
	if err != nil {
		return nil, err
	}
	if err := t.refuseRowPolicy(ctx, o); err != nil {
		t.Close()
		return nil, err
	}
	return t, nil
}

// mapper compiles the plans without the snapshot's --zero-date and
// --nul-char policies: a MySQL target is compared on its stored values as
// they are (the policies only say what a PostgreSQL target holds instead).
func (t *myTarget) mapper(m *typemap.Mapper) *typemap.Mapper {
	return typemap.New(typemap.Options{
		ZeroDate: typemap.ZeroDateError, // printed as stored (normalize.go)
		Nul:      typemap.NulError,      // no REPLACE of NUL
		Charsets: m.Options().Charsets,
		// MySQL 9's VECTOR compared as its bytes
		RawVector: true,
	}, nil)
}

func openMySQLTarget(ctx context.Context, m config.MySQL, n int) (*myTarget, error) {
	db, err := openMySQL(ctx, "target", m, n, nil)
	if err != nil {
		return nil, err
	}
	w, err := openMySQL(ctx, "target", m, 2, func(c *mysql.Config) {
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

func (t *myTarget) table(ctx context.Context, st *schema.Table) (string, map[string]bool, error) {
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

func (t *myTarget) prepare(p *tablePlan) {
	p.tgtMy = schema.QuoteMySQL(t.database) + "." + schema.QuoteMySQL(p.table.Name)
}

func (t *myTarget) hasMD5(ctx context.Context) (bool, error) { return mysqlHasMD5(ctx, t.db) }

func (t *myTarget) sha256Empty(ctx context.Context) (string, error) {
	var s string
	err := t.db.QueryRowContext(ctx, "SELECT SHA2('', 256)").Scan(&s)
	return s, err
}

func (t *myTarget) checksum(ctx context.Context, p *tablePlan, s scope, byBucket bool) (map[int]agg, error) {
	return p.myChecksum(ctx, t.db, p.tgtMy, "target", s, byBucket)
}

func (t *myTarget) digest(ctx context.Context, p *tablePlan, s scope) (chunkDigest, error) {
	return p.myDigest(ctx, t.db, p.tgtMy, "target", s)
}

// diff fetches the target rows whole: a scope is at most a few thousand
// rows (FetchRows, or a batch of buckets of about one chunk), as on the
// source side.
func (t *myTarget) diff(ctx context.Context, p *tablePlan, s scope, src []fetchedRow) ([]rowDiff, error) {
	tgt, err := p.myFetch(ctx, t.db, p.tgtMy, "target", s)
	if err != nil {
		return nil, err
	}
	return mergeRows(src, tgt), nil
}

func (t *myTarget) groups(ctx context.Context, p *tablePlan) ([]hashCount, error) {
	return p.myGroups(ctx, t.db, p.tgtMy, "target")
}

func (t *myTarget) sampleRow(ctx context.Context, p *tablePlan, h uint64) ([]byte, error) {
	var text []byte
	err := t.db.QueryRowContext(ctx, "SELECT "+p.myRowText+" FROM "+p.tgtMy+" WHERE "+p.myHash(p.myRowText)+" = ? LIMIT 1", h).Scan(&text)
	return text, err
}

// myValue is the expression that turns parameter ? (bytes, sent on a
// binary-charset session) into the value of compared column i: text as
// the charset its bytes are in, so the server converts it to the column's
// charset if the target's differs (a no-op when it is the same).
func (p *tablePlan) myValue(i int) string {
	c := p.cols[i]
	switch c.Kind {
	case typemap.KindText, typemap.KindEnum, typemap.KindSet:
		cs := p.convs[i].Column.Charset
		if p.rawSelected(i) && cs != "" {
			return "CONVERT(? USING " + cs + ")"
		}
		return "CONVERT(? USING utf8mb4)"
	case typemap.KindJSON, typemap.KindUUID, typemap.KindInet:
		// MySQL's JSON refuses a binary string; UUID and INET columns would
		// take a binary string of their size as the packed value.
		return "CONVERT(? USING utf8mb4)"
	case typemap.KindYear:
		// A YEAR read with a parameter comes back over the binary protocol
		// as a number ("0"), and the string '0' is the year 2000: the number
		// 0 is 0000.
		return "CAST(? AS UNSIGNED)"
	}
	return "?"
}

// myKeyCond is "column = value" for key column k, a raw key value as
// myKeySel prints it: numbers compared as numbers, text in the column's
// collation (so the key index is used).
func (p *tablePlan) myKeyCond(k int, raw []byte) (string, any, error) {
	i := p.key[k]
	c := p.cols[i]
	col := p.convs[i].Column
	name := schema.QuoteMySQL(c.Name)
	switch c.Kind {
	case typemap.KindText, typemap.KindEnum, typemap.KindSet:
		x := p.myValue(i)
		if !p.rawSelected(i) && col.Charset != "" && !strings.EqualFold(col.Charset, "utf8mb4") {
			x = "CONVERT(" + x + " USING " + col.Charset + ")"
		}
		if col.Collation != "" {
			x += " COLLATE " + col.Collation
		}
		return name + " = " + x, bytes.Clone(raw), nil
	case typemap.KindBit:
		if len(raw) > 8 {
			return "", nil, fmt.Errorf("key %s: BIT value of %d bytes", c.Name, len(raw))
		}
		var b [8]byte
		copy(b[8-len(raw):], raw)
		return name + " = ?", binary.BigEndian.Uint64(b[:]), nil
	case typemap.KindUUID, typemap.KindInet, typemap.KindJSON:
		return name + " = " + p.myValue(i), bytes.Clone(raw), nil
	}
	v, err := p.myArg(k, raw)
	if err != nil {
		return "", nil, err
	}
	if b, ok := v.([]byte); ok {
		v = bytes.Clone(b)
	}
	return name + " = " + p.myPlaceholder(k), v, nil
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

func (p *tablePlan) myInsert() string {
	cols := make([]string, len(p.cols))
	vals := make([]string, len(p.cols))
	for i, c := range p.cols {
		cols[i] = schema.QuoteMySQL(c.Name)
		vals[i] = p.myValue(i)
	}
	return "INSERT INTO " + p.tgtMy + " (" + strings.Join(cols, ", ") + ") VALUES (" + strings.Join(vals, ", ") + ")"
}

// upsertRow updates every column on a duplicate key, the key's too: a key
// equal in the key's collation but not byte for byte ('a' vs 'A') takes
// the source's bytes. Columns are set explicitly, so ON UPDATE
// CURRENT_TIMESTAMP leaves them as the source has them.
func (t *myTarget) upsertRow(p *tablePlan, vals [][]byte) (stmt, error) {
	set := make([]string, len(p.cols))
	for i, c := range p.cols {
		set[i] = schema.QuoteMySQL(c.Name) + " = VALUES(" + schema.QuoteMySQL(c.Name) + ")"
	}
	return stmt{sql: p.myInsert() + " ON DUPLICATE KEY UPDATE " + strings.Join(set, ", "), args: rowArgs(vals)}, nil
}

func (t *myTarget) insertRow(p *tablePlan, vals [][]byte) (stmt, error) {
	return stmt{sql: p.myInsert(), args: rowArgs(vals)}, nil
}

func (t *myTarget) deleteTargetKey(p *tablePlan, key []string) (stmt, error) {
	raw := make([][]byte, len(key))
	for k := range key {
		raw[k] = []byte(key[k])
	}
	return t.deleteSourceKey(p, raw)
}

func (t *myTarget) deleteSourceKey(p *tablePlan, raw [][]byte) (stmt, error) {
	conds := make([]string, len(p.key))
	args := make([]any, len(p.key))
	for k := range p.key {
		var err error
		if conds[k], args[k], err = p.myKeyCond(k, raw[k]); err != nil {
			return stmt{}, err
		}
	}
	return stmt{sql: "DELETE FROM " + p.tgtMy + " WHERE " + strings.Join(conds, " AND "), args: args, delete: true}, nil
}

func (t *myTarget) deleteCopies(p *tablePlan, h uint64, n int64) stmt {
	return stmt{sql: "DELETE FROM " + p.tgtMy + " WHERE " + p.myHash(p.myRowText) + " = ? LIMIT " + strconv.FormatInt(n, 10),
		args: []any{h}, delete: true}
}

func (t *myTarget) jsonRows(ctx context.Context, p *tablePlan) (rowSource, error) {
	r, err := t.db.QueryContext(ctx, "SELECT "+strings.Join(p.jsonRowSelect(false), ", ")+" FROM "+p.tgtMy)
	if err != nil {
		return nil, fmt.Errorf("target rows of %s: %w", p.target, err)
	}
	return sqlRows{r}, nil
}

// deleteJSONCopies compares each JSON column's bytes as the target printed
// them (a MySQL JSON column compared with a string would take the string
// as a JSON string scalar).
func (t *myTarget) deleteJSONCopies(p *tablePlan, id jsonRowID, n int64) stmt {
	conds := []string{p.digest.my(p.myRowText) + " = ?"}
	args := []any{id.digest}
	for k, i := range p.json {
		conds = append(conds, "CAST("+p.cols[i].MySQLRaw+" AS BINARY) <=> ?")
		if id.raws[k] == nil {
			args = append(args, nil)
			continue
		}
		args = append(args, []byte(*id.raws[k]))
	}
	return stmt{sql: "DELETE FROM " + p.tgtMy + " WHERE " + strings.Join(conds, " AND ") + " LIMIT " + strconv.FormatInt(n, 10),
		args: args, delete: true}
}

// apply runs a table's repair statements in one target transaction, again
// when the server rolled it back for a lock conflict (a replicator or the
// application writing the same rows): nothing of a rolled-back attempt
// stays, and a repair is run against a live target.
func (t *myTarget) apply(ctx context.Context, p *tablePlan, stmts []stmt) error {
	return retryRolledBack(ctx, mysink.IsRetryable, func() error { return t.applyOnce(ctx, p, stmts) })
}

func (t *myTarget) applyOnce(ctx context.Context, p *tablePlan, stmts []stmt) error {
	tx, err := t.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", p.target, err)
	}
	defer tx.Rollback()
	for _, s := range stmts {
		if _, err := tx.ExecContext(ctx, s.sql, s.args...); err != nil {
			return fmt.Errorf("%s: %w", p.target, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("%s: %w", p.target, err)
	}
	return nil
}

// writeSQL writes the statements as one transaction of plain SQL for the
// mysql client, with the repair sessions' settings; values are literals.
func (t *myTarget) writeSQL(_ context.Context, p *tablePlan, w io.Writer, stmts []stmt) error {
	if len(stmts) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("SET NAMES binary;\nSET SESSION sql_mode = '" + repairSQLMode + "';\nSET time_zone = '+00:00';\nSTART TRANSACTION;\n")
	for _, s := range stmts {
		lits := make([]string, len(s.args))
		for i, a := range s.args {
			lits[i] = myLiteral(a)
		}
		b.WriteString(substituteMy(s.sql, lits) + ";\n")
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

func (t *myTarget) isForeignKeyViolation(err error) bool {
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

func (t *myTarget) parents(ctx context.Context, plans map[string]*tablePlan) (map[string][]string, error) {
	byName := map[string]string{}
	for name, p := range plans {
		byName[p.table.Name] = name
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

// streamRunning: a replicator into a MySQL target holds the stream's leader
// lock on it for its whole run (internal/sink/mysql, fence.go).
func (t *myTarget) streamRunning(ctx context.Context, stream string) (bool, error) {
	who, err := mysink.Replicator(ctx, t.db, stream)
	return who != "", err
}

// policyChanges: a MySQL target receives the source's values unchanged.
func (t *myTarget) policyChanges(context.Context, string) ([]PolicyChange, error) { return nil, nil }

func (t *myTarget) checkpoint(ctx context.Context, stream string) (*pipeline.State, error) {
	return mysqlstate.Load(ctx, t.db, stream, binlogpos.Decode)
}

// refuseRowPolicy refuses what a stream's row filters or column masks
// cover (verify compares and repairs whole tables in clear): the --stream
// itself when it recorded any, by its replicator's owner settings or its
// snapshot's fingerprint, and every table another stream filters or
// masks. A user that may not read sluice's state (a read-only account
// granted only the replica's database) compares without the check, told
// so; --repair, which would write clear values, is refused instead.
func (t *myTarget) refuseRowPolicy(ctx context.Context, o *openOptions) error {
	policies, err := mysqlstate.RowPolicies(ctx, t.db)
	switch {
	case mysqlstate.Denied(err) && o.repair:
		return exitcode.ConfigError(fmt.Errorf("verify --repair first checks that no stream filters or masks the tables it "+
			"would write, and this user may not read sluice's state on the target (%v); grant it SELECT ON sluice.*, "+
			"or verify without --repair", err))
	case mysqlstate.Denied(err):
		o.log.Warn("verify: this user may not read sluice's state on the target, so the tables a stream filters or "+
			"masks (--where, --mask) are not known; a masked table would show every row as different", "err", err)
		return nil
	case err != nil:
		return err
	}
	if p := policies[o.stream]; len(p) > 0 {
		return exitcode.ConfigError(checkpoint.RowPolicyRefusal(o.stream, strings.Join(p, "; ")))
	}
	return refuseRowPolicies(policies, o.tables)
}
