package postgres

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/typemap"
)

// maxParams is PostgreSQL's limit on bind parameters per statement.
const maxParams = 65535

// insertBuckets are the row counts of the multi-row INSERT statements a plan
// prepares. Splitting any run into these sizes keeps the number of distinct
// prepared statements per table at five while still sending up to 256 rows
// per statement.
var insertBuckets = []int{256, 64, 16, 4, 1}

// ApplyPlan is the compiled form of one table version for the apply side:
// its SQL templates, which image values bind to which parameter, and the
// converters that turn the source's values (model.RowChange images) into
// PostgreSQL values as they are bound. It is immutable after NewApplyPlan
// and safe for concurrent use.
//
// Keyed tables (a primary key, or a unique key whose columns are all NOT
// NULL) update and delete by that key. Keyless tables match the full
// before image and change exactly one matching row through its ctid, so
// duplicate rows behave as in MySQL; that costs a scan of the table per
// change unless an index on some NOT NULL column narrows the search.
type ApplyPlan struct {
	Table  *schema.Table
	Ident  pgx.Identifier // target schema and table
	QTable string         // quoted "schema"."table"
	// Cols are the indexes into Table.Columns of the columns sluice writes
	// (generated columns of the target are left out).
	Cols []int
	// Key are the indexes of the row-identity columns; nil for keyless tables.
	Key []int
	// Keyless is true when updates and deletes match the whole before image.
	Keyless bool
	// conv converts source values column by column.
	conv *typemap.TableConv

	insert map[int]string // rows per statement → INSERT text
	delete map[int]string // rows per statement → DELETE text (keyed tables)
	// uniqueCols are the columns of every unique key (primary key included);
	// nil with updateMany false when a unique key has an expression part.
	uniqueCols []int
	updateMany bool // multi-row UPDATE allowed (keyed, unique keys of plain columns)
	maxRows    int
	updateSQL  string
	deleteSQL  string
	colList    string
	matchWhere string // WHERE clause for the before image, parameters from 1
}

// NewApplyPlan compiles the plan of table t, written to the target table
// ident, writing the columns whose indexes are in writable, converting
// source values with conv (compiled for t).
func NewApplyPlan(t *schema.Table, ident pgx.Identifier, writable []int, conv *typemap.TableConv) (*ApplyPlan, error) {
	if len(writable) == 0 {
		return nil, fmt.Errorf("apply plan %s: no writable columns", t.TableID)
	}
	if conv == nil || len(conv.Columns) != len(t.Columns) {
		return nil, fmt.Errorf("apply plan %s: no converters for the table version", t.TableID)
	}
	p := &ApplyPlan{Table: t, Ident: ident, QTable: ident.Sanitize(), Cols: writable, conv: conv,
		insert: map[int]string{}, delete: map[int]string{}}
	for _, name := range t.KeyColumns() {
		i := t.ColumnIndex(name)
		if i < 0 {
			return nil, fmt.Errorf("apply plan %s: key column %s is not in the table", t.TableID, name)
		}
		p.Key = append(p.Key, i)
	}
	p.Keyless = len(p.Key) == 0
	p.uniqueCols, p.updateMany = t.UniqueKeyColumns()
	p.updateMany = p.updateMany && !p.Keyless
	names := make([]string, len(writable))
	for i, c := range writable {
		if c < 0 || c >= len(t.Columns) {
			return nil, fmt.Errorf("apply plan %s: writable column index %d out of range", t.TableID, c)
		}
		names[i] = schema.QuoteIdent(t.Columns[c].Name)
	}
	p.colList = strings.Join(names, ", ")
	p.maxRows = maxParams / len(writable)
	p.matchWhere = p.buildMatch(1)
	p.updateSQL = p.buildUpdate()
	p.deleteSQL = p.buildDelete()
	for _, n := range insertBuckets {
		if n <= p.maxRows {
			p.insert[n] = p.buildInsert(n)
		}
		if !p.Keyless && n*len(p.Key) <= maxParams {
			p.delete[n] = p.buildDeleteMany(n)
		}
	}
	return p, nil
}

// UpdateManyAllowed says whether updates of this table may go several rows
// to a statement (UpdateManySQL): keyed, every unique key made of columns.
// Each update must still leave its unique-key columns unchanged
// (UniqueColumns), so that no statement can collide on a unique index in an
// order the source never had.
func (p *ApplyPlan) UpdateManyAllowed() bool { return p.updateMany }

// UniqueColumns are the indexes of the columns of every unique key.
func (p *ApplyPlan) UniqueColumns() []int { return p.uniqueCols }

// updateBuckets are the row counts of the multi-row UPDATEs.
var updateBuckets = []int{256, 64, 16, 4, 2}

// UpdateManyChunk returns the largest multi-row UPDATE size not above rows
// that fits the parameter limit, or 1.
func (p *ApplyPlan) UpdateManyChunk(rows int) int {
	per := len(p.Key) + len(p.Cols)
	for _, b := range updateBuckets {
		if b <= rows && b*per <= maxParams {
			return b
		}
	}
	return 1
}

// UpdateManySQL is an UPDATE of rows rows by key from a VALUES list:
//
//	UPDATE t AS sluice_t SET "a" = sluice_v.c0, ... FROM (VALUES ($1::integer, $2::text, ...), ...)
//	  AS sluice_v(k0, c0, ...) WHERE sluice_t."id" = sluice_v.k0
//
// types are the target's type names of the table's columns (by index into
// Table.Columns): VALUES needs them, parameters have no other context.
func (p *ApplyPlan) UpdateManySQL(rows int, types []string) string {
	var b strings.Builder
	b.WriteString("UPDATE ")
	b.WriteString(p.QTable)
	b.WriteString(" AS sluice_t SET ")
	for i, c := range p.Cols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(schema.QuoteIdent(p.Table.Columns[c].Name))
		b.WriteString(" = sluice_v.c")
		b.WriteString(strconv.Itoa(i))
	}
	b.WriteString(" FROM (VALUES ")
	n := 1
	cols := append(append([]int(nil), p.Key...), p.Cols...)
	for r := 0; r < rows; r++ {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for i, c := range cols {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			b.WriteString("::")
			b.WriteString(types[c])
			n++
		}
		b.WriteByte(')')
	}
	b.WriteString(") AS sluice_v(")
	for i := range p.Key {
		b.WriteString("k" + strconv.Itoa(i) + ", ")
	}
	for i := range p.Cols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("c" + strconv.Itoa(i))
	}
	b.WriteString(") WHERE ")
	for i, c := range p.Key {
		if i > 0 {
			b.WriteString(" AND ")
		}
		b.WriteString("sluice_t." + schema.QuoteIdent(p.Table.Columns[c].Name) + " = sluice_v.k" + strconv.Itoa(i))
	}
	return b.String()
}

// AppendUpdateManyArgs appends one row of UpdateManySQL: the key from the
// before image, then the written columns from the after image.
func (p *ApplyPlan) AppendUpdateManyArgs(dst, before, after []any) ([]any, error) {
	if len(before) < len(p.Table.Columns) {
		return dst, p.imageError("before", len(before))
	}
	if len(after) < len(p.Table.Columns) {
		return dst, p.imageError("after", len(after))
	}
	dst, err := p.appendValues(dst, p.Key, before)
	if err != nil {
		return dst, err
	}
	return p.appendValues(dst, p.Cols, after)
}

// appendValues appends the converted values of the given columns of an image.
func (p *ApplyPlan) appendValues(dst []any, cols []int, img []any) ([]any, error) {
	for _, c := range cols {
		v, err := p.conv.Columns[c].FromBinlog(img[c])
		if err != nil {
			return dst, err
		}
		dst = append(dst, v)
	}
	return dst, nil
}

// buildDeleteMany deletes rows by key: "k" IN ($1, $2, ...) for one key
// column, ("a", "b") IN (($1, $2), ...) for several. Unlike updates, deletes
// of distinct rows cannot collide, so one statement may take many.
func (p *ApplyPlan) buildDeleteMany(rows int) string {
	if rows == 1 {
		return p.deleteSQL
	}
	names := make([]string, len(p.Key))
	for i, c := range p.Key {
		names[i] = schema.QuoteIdent(p.Table.Columns[c].Name)
	}
	var b strings.Builder
	b.WriteString("DELETE FROM ")
	b.WriteString(p.QTable)
	b.WriteString(" WHERE ")
	multi := len(names) > 1
	if multi {
		b.WriteString("(" + strings.Join(names, ", ") + ")")
	} else {
		b.WriteString(names[0])
	}
	b.WriteString(" IN (")
	n := 1
	for r := 0; r < rows; r++ {
		if r > 0 {
			b.WriteString(", ")
		}
		if multi {
			b.WriteByte('(')
		}
		for k := range names {
			if k > 0 {
				b.WriteString(", ")
			}
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			n++
		}
		if multi {
			b.WriteByte(')')
		}
	}
	b.WriteByte(')')
	return b.String()
}

func (p *ApplyPlan) buildInsert(rows int) string {
	var b strings.Builder
	b.Grow(32 + len(p.QTable) + len(p.colList) + rows*len(p.Cols)*5)
	b.WriteString("INSERT INTO ")
	b.WriteString(p.QTable)
	b.WriteString(" (")
	b.WriteString(p.colList)
	b.WriteString(") VALUES ")
	n := 1
	for r := 0; r < rows; r++ {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for c := range p.Cols {
			if c > 0 {
				b.WriteString(", ")
			}
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			n++
		}
		b.WriteByte(')')
	}
	return b.String()
}

// buildMatch returns the condition that finds the row of a before image,
// with parameters numbered from first.
func (p *ApplyPlan) buildMatch(first int) string {
	cols := p.Key
	if p.Keyless {
		cols = p.Cols
	}
	parts := make([]string, len(cols))
	for i, c := range cols {
		col := p.Table.Columns[c]
		q := schema.QuoteIdent(col.Name)
		ph := "$" + strconv.Itoa(first+i)
		if p.Keyless && col.Nullable {
			// IS NOT DISTINCT FROM matches NULL to NULL but no index serves
			// it; NOT NULL columns use = so an index on them can.
			parts[i] = q + " IS NOT DISTINCT FROM " + ph
		} else {
			parts[i] = q + " = " + ph
		}
	}
	return strings.Join(parts, " AND ")
}

func (p *ApplyPlan) whereClause(first int) string {
	match := p.buildMatch(first)
	if !p.Keyless {
		return match
	}
	// Exactly one of possibly several identical rows.
	return "ctid = (SELECT ctid FROM " + p.QTable + " WHERE " + match + " LIMIT 1)"
}

func (p *ApplyPlan) buildUpdate() string {
	sets := make([]string, len(p.Cols))
	for i, c := range p.Cols {
		sets[i] = schema.QuoteIdent(p.Table.Columns[c].Name) + " = $" + strconv.Itoa(i+1)
	}
	return "UPDATE " + p.QTable + " SET " + strings.Join(sets, ", ") + " WHERE " + p.whereClause(len(p.Cols)+1)
}

func (p *ApplyPlan) buildDelete() string {
	return "DELETE FROM " + p.QTable + " WHERE " + p.whereClause(1)
}

// InsertChunk returns the largest prepared multi-row INSERT not longer than
// rows, and its row count.
func (p *ApplyPlan) InsertChunk(rows int) (sql string, n int) {
	for _, b := range insertBuckets {
		if b <= rows {
			if s, ok := p.insert[b]; ok {
				return s, b
			}
		}
	}
	return p.insert[1], 1
}

// DeleteChunk returns the largest prepared multi-row DELETE by key not
// longer than rows, and its row count; keyless tables delete one row at a
// time.
func (p *ApplyPlan) DeleteChunk(rows int) (sql string, n int) {
	for _, b := range insertBuckets {
		if b <= rows {
			if s, ok := p.delete[b]; ok {
				return s, b
			}
		}
	}
	return p.deleteSQL, 1
}

// UpdateSQL is the single-row UPDATE: SET all written columns from the after
// image, WHERE the key (or, keyless, the whole before image) matches.
func (p *ApplyPlan) UpdateSQL() string { return p.updateSQL }

// DeleteSQL is the single-row DELETE by key (or, keyless, by before image).
func (p *ApplyPlan) DeleteSQL() string { return p.deleteSQL }

// ColumnNames returns the quoted written column list, for COPY and messages.
func (p *ApplyPlan) ColumnNames() []string {
	out := make([]string, len(p.Cols))
	for i, c := range p.Cols {
		out[i] = p.Table.Columns[c].Name
	}
	return out
}

// AppendInsertArgs appends the bind values of one inserted row.
func (p *ApplyPlan) AppendInsertArgs(dst []any, after []any) ([]any, error) {
	if len(after) < len(p.Table.Columns) {
		return dst, p.imageError("after", len(after))
	}
	return p.appendValues(dst, p.Cols, after)
}

// UpdateArgs returns the bind values of one update.
func (p *ApplyPlan) UpdateArgs(before, after []any) ([]any, error) {
	if len(after) < len(p.Table.Columns) {
		return nil, p.imageError("after", len(after))
	}
	args, err := p.appendValues(make([]any, 0, len(p.Cols)*2), p.Cols, after)
	if err != nil {
		return nil, err
	}
	return p.appendMatchArgs(args, before)
}

// DeleteArgs returns the bind values of one delete.
func (p *ApplyPlan) DeleteArgs(before []any) ([]any, error) {
	return p.appendMatchArgs(make([]any, 0, len(p.Key)+1), before)
}

// AppendDeleteArgs appends the bind values of one deleted row.
func (p *ApplyPlan) AppendDeleteArgs(dst, before []any) ([]any, error) {
	return p.appendMatchArgs(dst, before)
}

func (p *ApplyPlan) appendMatchArgs(dst, before []any) ([]any, error) {
	if len(before) < len(p.Table.Columns) {
		return nil, p.imageError("before", len(before))
	}
	cols := p.Key
	if p.Keyless {
		cols = p.Cols
	}
	return p.appendValues(dst, cols, before)
}

// KeyString describes the row a before (or after) image identifies, for
// error messages: "id=42" or, keyless, the first columns; values are cut to
// 64 characters and the whole to about 256.
func (p *ApplyPlan) KeyString(img []any) string {
	cols := p.Key
	if p.Keyless {
		cols = p.Cols
	}
	var b strings.Builder
	for i, c := range cols {
		if i > 0 {
			b.WriteString(", ")
		}
		if b.Len() > 256 {
			b.WriteString("…")
			break
		}
		b.WriteString(p.Table.Columns[c].Name)
		b.WriteByte('=')
		if c < len(img) {
			b.WriteString(shortValue(img[c]))
		} else {
			b.WriteString("?")
		}
	}
	return b.String()
}

func shortValue(v any) string {
	var s string
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		s = strconv.Quote(x)
	case []byte:
		s = fmt.Sprintf("%x", x)
	default:
		s = fmt.Sprint(x)
	}
	if r := []rune(s); len(r) > 64 {
		s = string(r[:64]) + "…"
	}
	return s
}

func (p *ApplyPlan) imageError(which string, n int) error {
	return fmt.Errorf("apply plan %s: %s image has %d values, the table version has %d columns",
		p.Table.TableID, which, n, len(p.Table.Columns))
}
