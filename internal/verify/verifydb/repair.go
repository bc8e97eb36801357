package verifydb

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// Repair makes the target rows equal to a fresh read of the source rows:
// rows only in the target are deleted, the others are upserted by key
// (INSERT ... ON CONFLICT DO UPDATE, so foreign keys that reference the row
// are never broken by a delete), with values converted by typemap exactly
// as the snapshot converts them. A row that disappeared from the source
// since it was compared is deleted. Each scope's statements run in one
// transaction that sets sluice.apply = 'on', which the ON UPDATE triggers
// sluice creates check so that they leave the copied values alone.

// Stmt is one repair statement with its parameters.
type Stmt struct {
	SQL    string
	Args   []any
	Delete bool // removes a target row (ordered children first, repair_order.go)
}

// TargetRow converts a row the source printed (the table's columns first,
// as fetched for a repair) to the values written to the target.
func (p *Plan) TargetRow(vals [][]byte) ([]any, error) {
	row := make([]any, len(p.Cols))
	for i, cc := range p.Convs {
		var err error
		if row[i], err = cc.FromText(vals[i]); err != nil {
			return nil, fmt.Errorf("repair: %w", err)
		}
	}
	return row, nil
}

// DeleteByText deletes a target row by its key as the target printed it.
func (p *Plan) DeleteByText(key []string) Stmt {
	cols := make([]string, len(p.Key))
	ph := make([]string, len(p.Key))
	args := make([]any, len(p.Key))
	for k, i := range p.Key {
		cols[k] = QuotePG(p.Cols[i].PGName)
		ph[k] = "$" + strconv.Itoa(k+1) + "::text::" + p.Convs[i].PGType
		args[k] = key[k]
	}
	return Stmt{SQL: "DELETE FROM " + p.PGTable + " WHERE (" + strings.Join(cols, ", ") + ") = (" + strings.Join(ph, ", ") + ")", Args: args, Delete: true}
}

// DeleteByValues deletes a target row by converted key values.
func (p *Plan) DeleteByValues(vals []any) Stmt {
	cols := make([]string, len(p.Key))
	ph := make([]string, len(p.Key))
	for k, i := range p.Key {
		cols[k] = QuotePG(p.Cols[i].PGName)
		ph[k] = "$" + strconv.Itoa(k+1)
	}
	return Stmt{SQL: "DELETE FROM " + p.PGTable + " WHERE (" + strings.Join(cols, ", ") + ") = (" + strings.Join(ph, ", ") + ")", Args: vals}
}

// UpsertSQL is the INSERT ... ON CONFLICT DO UPDATE of every compared
// (writable: generated columns are never compared) column.
func (p *Plan) UpsertSQL() string {
	cols := make([]string, len(p.Cols))
	ph := make([]string, len(p.Cols))
	var set, keys []string
	isKey := map[int]bool{}
	for _, i := range p.Key {
		isKey[i] = true
		keys = append(keys, QuotePG(p.Cols[i].PGName))
	}
	for i, c := range p.Cols {
		cols[i] = QuotePG(c.PGName)
		ph[i] = "$" + strconv.Itoa(i+1)
		if !isKey[i] {
			set = append(set, cols[i]+" = EXCLUDED."+cols[i])
		}
	}
	conflict := "DO NOTHING"
	if len(set) > 0 {
		conflict = "DO UPDATE SET " + strings.Join(set, ", ")
	}
	return "INSERT INTO " + p.PGTable + " (" + strings.Join(cols, ", ") + ") OVERRIDING SYSTEM VALUE VALUES (" +
		strings.Join(ph, ", ") + ") ON CONFLICT (" + strings.Join(keys, ", ") + ") " + conflict
}

func RawKey(vals [][]byte) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = strconv.Quote(string(v))
	}
	return strings.Join(parts, ",")
}

// WriteSQL writes the statements as one transaction of plain SQL, values
// as literals in PostgreSQL's text format.
func (p *Plan) WriteSQL(ctx context.Context, pool interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, w io.Writer, stmts []Stmt) error {
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
		lits := make([]string, len(s.Args))
		for i := range s.Args {
			if lits[i], err = literal(m, oids, p, s, i); err != nil {
				return err
			}
		}
		text := Substitute(s.SQL, lits)
		b.WriteString(text + ";\n")
	}
	b.WriteString("COMMIT;\n")
	_, err = io.WriteString(w, b.String())
	return err
}

// literal renders argument i of s as an SQL literal.
func literal(m *pgtype.Map, oids []uint32, p *Plan, s Stmt, i int) (string, error) {
	v := s.Args[i]
	if v == nil {
		return "NULL", nil
	}
	switch x := v.(type) {
	case string:
		return QuoteLiteral(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	}
	// Upserts bind every column in order; deletes bind the key columns.
	col := i
	if !strings.HasPrefix(s.SQL, "INSERT") {
		col = p.Key[i]
	}
	oid := oids[col]
	if _, known := m.TypeForOID(oid); !known {
		oid = pgtype.TextOID // e.g. PostGIS geometry: its text form is EWKB hex
	}
	buf, err := m.Encode(oid, pgtype.TextFormatCode, v, nil)
	if err != nil {
		return "", fmt.Errorf("repair SQL: column %s: %w", p.Cols[col].Name, err)
	}
	if buf == nil {
		return "NULL", nil
	}
	return QuoteLiteral(string(buf)), nil
}

// Substitute replaces the parameters $1..$n of a statement by literals, in
// one pass so that a literal's own text is never substituted again.
func Substitute(q string, lits []string) string {
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

func QuoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// columnOIDs returns the target type OID of each compared column.
func (p *Plan) columnOIDs(ctx context.Context, pool interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) ([]uint32, error) {
	out := make([]uint32, len(p.Cols))
	for i, c := range p.Cols {
		err := pool.QueryRow(ctx, `SELECT atttypid FROM pg_attribute WHERE attrelid = $1::regclass AND attname = $2`,
			p.PGTable, c.PGName).Scan(&out[i])
		if err != nil {
			return nil, fmt.Errorf("repair SQL: type of %s.%s: %w", p.Target, c.PGName, err)
		}
	}
	return out, nil
}

// RetryRolledBack runs a repair transaction, again (up to 5 times, with a
// growing pause) while the target rolled it back for a lock conflict
// (rolledBack): nothing of the attempt stays, and a repair runs against a
// live target whose replicator may write the same rows.
func RetryRolledBack(ctx context.Context, rolledBack func(error) bool, run func() error) error {
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
