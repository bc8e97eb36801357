package verify

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/sluice-db/sluice/internal/schema"
)

// Repair makes the target rows equal to a fresh read of the source rows:
// rows only in the target are deleted, the others are upserted by key
// (INSERT ... ON CONFLICT DO UPDATE, so foreign keys that reference the row
// are never broken by a delete), with values converted by typemap exactly
// as the snapshot converts them. A row that disappeared from the source
// since it was compared is deleted. Each scope's statements run in one
// transaction that sets sluice.apply = 'on', which the ON UPDATE triggers
// sluice creates check so that they leave the copied values alone.

// stmt is one repair statement with its parameters.
type stmt struct {
	sql    string
	args   []any
	delete bool // removes a target row (ordered children first, repair_order.go)
}

// repairBatch is how many keys one fresh source read looks up.
const repairBatch = 200

func (e *engine) repair(ctx context.Context, p *tablePlan, diffs []rowDiff) error {
	var stmts []stmt
	var srcKeys [][]string
	for _, d := range diffs {
		if d.kind == OnlyInTarget {
			del, err := e.tgt.deleteTargetKey(p, d.tgt.key)
			if err != nil {
				return err
			}
			stmts = append(stmts, del)
			continue
		}
		srcKeys = append(srcKeys, d.src.key)
	}
	for i := 0; i < len(srcKeys); i += repairBatch {
		batch := srcKeys[i:min(i+repairBatch, len(srcKeys))]
		up, err := e.freshUpserts(ctx, p, batch)
		if err != nil {
			return err
		}
		stmts = append(stmts, up...)
	}
	return e.runRepair(ctx, p, stmts)
}

// runRepair writes a table's repair statements to --repair-sql, or runs
// them in one target transaction (targetDB.apply).
func (e *engine) runRepair(ctx context.Context, p *tablePlan, stmts []stmt) error {
	if e.o.RepairSQL != nil {
		e.collectSQL(p, stmts) // written in foreign key order at the end
		return nil
	}
	return e.tgt.apply(ctx, p, stmts)
}

// targetRow converts a row the source printed (the table's columns first,
// as fetched for a repair) to the values written to the target.
func (p *tablePlan) targetRow(vals [][]byte) ([]any, error) {
	row := make([]any, len(p.cols))
	for i, cc := range p.convs {
		var err error
		if row[i], err = cc.FromText(vals[i]); err != nil {
			return nil, fmt.Errorf("repair: %w", err)
		}
	}
	return row, nil
}

// deleteByText deletes a target row by its key as the target printed it.
func (p *tablePlan) deleteByText(key []string) stmt {
	cols := make([]string, len(p.key))
	ph := make([]string, len(p.key))
	args := make([]any, len(p.key))
	for k, i := range p.key {
		cols[k] = quotePG(p.cols[i].PGName)
		ph[k] = "$" + strconv.Itoa(k+1) + "::text::" + p.convs[i].PGType
		args[k] = key[k]
	}
	return stmt{sql: "DELETE FROM " + p.pgTable + " WHERE (" + strings.Join(cols, ", ") + ") = (" + strings.Join(ph, ", ") + ")", args: args, delete: true}
}

// deleteByValues deletes a target row by converted key values.
func (p *tablePlan) deleteByValues(vals []any) stmt {
	cols := make([]string, len(p.key))
	ph := make([]string, len(p.key))
	for k, i := range p.key {
		cols[k] = quotePG(p.cols[i].PGName)
		ph[k] = "$" + strconv.Itoa(k+1)
	}
	return stmt{sql: "DELETE FROM " + p.pgTable + " WHERE (" + strings.Join(cols, ", ") + ") = (" + strings.Join(ph, ", ") + ")", args: vals}
}

// upsertSQL is the INSERT ... ON CONFLICT DO UPDATE of every compared
// (writable: generated columns are never compared) column.
func (p *tablePlan) upsertSQL() string {
	cols := make([]string, len(p.cols))
	ph := make([]string, len(p.cols))
	var set, keys []string
	isKey := map[int]bool{}
	for _, i := range p.key {
		isKey[i] = true
		keys = append(keys, quotePG(p.cols[i].PGName))
	}
	for i, c := range p.cols {
		cols[i] = quotePG(c.PGName)
		ph[i] = "$" + strconv.Itoa(i+1)
		if !isKey[i] {
			set = append(set, cols[i]+" = EXCLUDED."+cols[i])
		}
	}
	conflict := "DO NOTHING"
	if len(set) > 0 {
		conflict = "DO UPDATE SET " + strings.Join(set, ", ")
	}
	return "INSERT INTO " + p.pgTable + " (" + strings.Join(cols, ", ") + ") OVERRIDING SYSTEM VALUE VALUES (" +
		strings.Join(ph, ", ") + ") ON CONFLICT (" + strings.Join(keys, ", ") + ") " + conflict
}

// freshUpserts reads the rows of the given source keys again and returns
// their upserts, and deletes for keys the source no longer has.
func (e *engine) freshUpserts(ctx context.Context, p *tablePlan, keys [][]string) ([]stmt, error) {
	sel := make([]string, len(p.cols))
	for i := range p.convs {
		sel[i] = selectExprOf(p, i)
	}
	var ors []string
	var args []any
	for _, key := range keys {
		ands := make([]string, len(p.key))
		for k, i := range p.key {
			ands[k] = schema.QuoteMySQL(p.cols[i].Name) + " = " + p.myPlaceholder(k)
			v, err := p.myArg(k, []byte(key[k]))
			if err != nil {
				return nil, err
			}
			args = append(args, v)
		}
		ors = append(ors, "("+strings.Join(ands, " AND ")+")")
	}
	sel = append(sel, p.myKeySel...)
	q := "SELECT " + strings.Join(sel, ", ") + " FROM " + p.myTable + " WHERE " + strings.Join(ors, " OR ")
	rows, err := e.src.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("repair: read %s: %w", p.name, err)
	}
	src := sqlRows{rows}
	defer src.Close()
	found := map[string]bool{}
	var out []stmt
	for src.Next() {
		vals, err := src.Values(len(sel))
		if err != nil {
			return nil, err
		}
		up, err := e.tgt.upsertRow(p, vals[:len(p.cols)])
		if err != nil {
			return nil, err
		}
		found[rawKey(vals[len(p.cols):])] = true
		out = append(out, up)
	}
	if err := src.Err(); err != nil {
		return nil, fmt.Errorf("repair: read %s: %w", p.name, err)
	}
	for _, key := range keys {
		raw := make([][]byte, len(key))
		for k := range key {
			raw[k] = []byte(key[k])
		}
		if found[rawKey(raw)] {
			continue
		}
		del, err := e.tgt.deleteSourceKey(p, raw)
		if err != nil {
			return nil, err
		}
		out = append(out, del)
	}
	return out, nil
}

func rawKey(vals [][]byte) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = strconv.Quote(string(v))
	}
	return strings.Join(parts, ",")
}

// writeSQL writes the statements as one transaction of plain SQL, values
// as literals in PostgreSQL's text format.
func (p *tablePlan) writeSQL(ctx context.Context, pool interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, w io.Writer, stmts []stmt) error {
	if len(stmts) == 0 {
		return nil
	}
	oids, err := p.columnOIDs(ctx, pool)
	if err != nil {
		return err
	}
	m := pgtype.NewMap()
	var b strings.Builder
	b.WriteString("BEGIN;\nSET LOCAL sluice.apply = 'on';\n")
	for _, s := range stmts {
		lits := make([]string, len(s.args))
		for i := range s.args {
			if lits[i], err = literal(m, oids, p, s, i); err != nil {
				return err
			}
		}
		text := substitute(s.sql, lits)
		b.WriteString(text + ";\n")
	}
	b.WriteString("COMMIT;\n")
	_, err = io.WriteString(w, b.String())
	return err
}

// literal renders argument i of s as an SQL literal.
func literal(m *pgtype.Map, oids []uint32, p *tablePlan, s stmt, i int) (string, error) {
	v := s.args[i]
	if v == nil {
		return "NULL", nil
	}
	switch x := v.(type) {
	case string:
		return quoteLiteral(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	}
	// Upserts bind every column in order; deletes bind the key columns.
	col := i
	if !strings.HasPrefix(s.sql, "INSERT") {
		col = p.key[i]
	}
	oid := oids[col]
	if _, known := m.TypeForOID(oid); !known {
		oid = pgtype.TextOID // e.g. PostGIS geometry: its text form is EWKB hex
	}
	buf, err := m.Encode(oid, pgtype.TextFormatCode, v, nil)
	if err != nil {
		return "", fmt.Errorf("repair SQL: column %s: %w", p.cols[col].Name, err)
	}
	if buf == nil {
		return "NULL", nil
	}
	return quoteLiteral(string(buf)), nil
}

// substitute replaces the parameters $1..$n of a statement by literals, in
// one pass so that a literal's own text is never substituted again.
func substitute(q string, lits []string) string {
	var b strings.Builder
	for i := 0; i < len(q); i++ {
		if q[i] != '$' {
			b.WriteByte(q[i])
			continue
		}
		j := i + 1
		for j < len(q) && q[j] >= '0' && q[j] <= '9' {
			j++
		}
		n, err := strconv.Atoi(q[i+1 : j])
		if err != nil || n < 1 || n > len(lits) {
			b.WriteByte(q[i])
			continue
		}
		b.WriteString(lits[n-1])
		i = j - 1
	}
	return b.String()
}

func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// columnOIDs returns the target type OID of each compared column.
func (p *tablePlan) columnOIDs(ctx context.Context, pool interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) ([]uint32, error) {
	out := make([]uint32, len(p.cols))
	for i, c := range p.cols {
		err := pool.QueryRow(ctx, `SELECT atttypid FROM pg_attribute WHERE attrelid = $1::regclass AND attname = $2`,
			p.pgTable, c.PGName).Scan(&out[i])
		if err != nil {
			return nil, fmt.Errorf("repair SQL: type of %s.%s: %w", p.target, c.PGName, err)
		}
	}
	return out, nil
}

// retryRolledBack runs a repair transaction, again (up to 5 times, with a
// growing pause) while the target rolled it back for a lock conflict
// (rolledBack): nothing of the attempt stays, and a repair runs against a
// live target whose replicator may write the same rows.
func retryRolledBack(ctx context.Context, rolledBack func(error) bool, run func() error) error {
	for attempt := 1; ; attempt++ {
		err := run()
		if err == nil || !rolledBack(err) || attempt >= 5 || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(attempt) * 100 * time.Millisecond):
		}
	}
}
