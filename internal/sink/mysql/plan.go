package mysql

import (
	"fmt"
	"strings"

	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/schema"
)

// plan is how one table version is written: the columns sluice writes
// (generated columns are the server's), the key that finds a row for UPDATE
// and DELETE (the primary key; without one, every written column compared
// with <=> and LIMIT 1: any of several identical rows is the same row), and
// each column's literal encoder.
type plan struct {
	table  *schema.Table
	qtable string
	cols   []int // written columns, by index in table.Columns
	key    []int // primary key columns; nil for a keyless table
	enc    []encoder
	// where holds, for a keyless table, the comparison of each written
	// column: text compared as bytes (the column's collation would find a
	// row differing in case or trailing spaces), JSON of a MySQL target as
	// JSON.
	where [][2]string // text before and after the literal
	// tuple is, for a keyless table whose columns compare with = as with
	// <=> (no JSON of a MySQL target, ENUM or SET), its written columns as
	// compared in where, "(`a`,CAST(`b` AS BINARY))": rows without NULL are
	// found by "tuple IN (row, …)" (keyless.go); "" otherwise.
	tuple string
	// insertHead is "INSERT INTO t (cols) VALUES ".
	insertHead string
	// params convert the written columns' values to the parameters of a
	// prepared INSERT (prepared.go), nil when a column has none; unsigned
	// are the bits of each UNSIGNED integer column (0 otherwise).
	params   []param
	unsigned []int
	// setNames are "`c`=" per written column.
	setNames []string
	// setCols are the written columns outside the primary key; updateMany
	// says whether updates may go several rows to a statement, those that
	// leave the uniqueCols (of every unique key) unchanged (update_many.go).
	setCols                        []int
	updateMany                     bool
	uniqueCols                     []int
	updateManyHead, updateManyTail string
	// upsertMany: the multi-row updates go as INSERT … ON DUPLICATE KEY
	// UPDATE (upsertTail after the rows).
	upsertMany bool
	upsertTail string
	// updateCase: the multi-row updates go as one UPDATE … SET c = CASE
	// pk WHEN … END (update_case.go), for a primary key of one integer
	// column; caseHead is "UPDATE t SET ", caseKey the quoted key column,
	// setPos[k] the index in setNames of setCols[k], caseElse[k] the
	// ELSE of its CASE ("" for none: every row lists the column).
	updateCase        bool
	caseHead, caseKey string
	setPos            []int
	caseElse          []string
	// changedOnly: an UPDATE sets only the columns the change altered
	// (Config.UpdateChangedColumns).
	changedOnly bool
}

func newPlan(t *schema.Table, targetDB string, mysqlJSON, rowAlias bool) (*plan, error) {
	p := &plan{table: t, qtable: schema.QuoteMySQL(targetDB) + "." + schema.QuoteMySQL(t.Name)}
	byName := map[string]int{}
	names := make([]string, 0, len(t.Columns))
	p.enc = make([]encoder, len(t.Columns))
	for i, c := range t.Columns {
		byName[c.Name] = i
		p.enc[i] = encoderOf(c, mysqlJSON)
		if c.GenerationExpr != "" {
			continue
		}
		p.cols = append(p.cols, i)
		names = append(names, schema.QuoteMySQL(c.Name))
		p.setNames = append(p.setNames, schema.QuoteMySQL(c.Name)+"=")
	}
	if len(p.cols) == 0 {
		return nil, fmt.Errorf("table %s has no column sluice can write", t.TableID)
	}
	for _, k := range t.PrimaryKey {
		i, ok := byName[k]
		if !ok {
			return nil, fmt.Errorf("table %s: primary key column %s is not a column", t.TableID, k)
		}
		p.key = append(p.key, i)
	}
	if len(p.key) == 0 {
		tuple, tupleOK := make([]string, 0, len(p.cols)), true
		for _, i := range p.cols {
			c := t.Columns[i]
			q := schema.QuoteMySQL(c.Name)
			switch {
			case c.DataType == "json" && mysqlJSON:
				p.where = append(p.where, [2]string{q + " <=> CAST(", " AS JSON)"})
				tupleOK = false
			case c.DataType == "enum" || c.DataType == "set":
				p.where = append(p.where, [2]string{q + " <=> ", ""}) // by index and bit mask, as they arrive
				tupleOK = false
			case c.Charset != "" && c.Charset != "binary":
				p.where = append(p.where, [2]string{"CAST(" + q + " AS BINARY) <=> ", ""})
				tuple = append(tuple, "CAST("+q+" AS BINARY)")
			default:
				p.where = append(p.where, [2]string{q + " <=> ", ""})
				tuple = append(tuple, q)
			}
		}
		if tupleOK {
			p.tuple = "(" + strings.Join(tuple, ",") + ")"
		}
	}
	p.insertHead = "INSERT INTO " + p.qtable + " (" + strings.Join(names, ",") + ") VALUES "
	if p.params = paramsOf(t, p.cols); p.params != nil {
		p.unsigned = make([]int, len(p.cols))
		for n, i := range p.cols {
			if t.Columns[i].Unsigned {
				p.unsigned[n] = intBits[t.Columns[i].DataType]
			}
		}
	}
	if p.key != nil {
		inKey := map[int]bool{}
		for _, i := range p.key {
			inKey[i] = true
		}
		for _, i := range p.cols {
			if !inKey[i] {
				p.setCols = append(p.setCols, i)
			}
		}
	}
	if p.uniqueCols, p.updateMany = updateManyOK(t, p); p.updateMany {
		p.buildUpdateMany(rowAlias)
	}
	return p, nil
}

// appendRow appends "(v1,v2,...)" of the written columns of an image.
func (p *plan) appendRow(buf []byte, img []any) ([]byte, error) {
	if len(img) < len(p.table.Columns) {
		return buf, fmt.Errorf("row image has %d values, table %s has %d columns", len(img), p.table.TableID, len(p.table.Columns))
	}
	buf = append(buf, '(')
	for n, i := range p.cols {
		if n > 0 {
			buf = append(buf, ',')
		}
		var err error
		if buf, err = p.enc[i](buf, img[i]); err != nil {
			return buf, fmt.Errorf("column %s: %w", p.table.Columns[i].Name, err)
		}
	}
	return append(buf, ')'), nil
}

// appendWhere appends the condition that finds the row of a before image.
func (p *plan) appendWhere(buf []byte, img []any) ([]byte, error) {
	if len(img) < len(p.table.Columns) {
		return buf, fmt.Errorf("row image has %d values, table %s has %d columns", len(img), p.table.TableID, len(p.table.Columns))
	}
	if p.key != nil {
		for n, i := range p.key {
			if n > 0 {
				buf = append(buf, " AND "...)
			}
			buf = append(buf, schema.QuoteMySQL(p.table.Columns[i].Name)...)
			buf = append(buf, '=')
			var err error
			if buf, err = p.enc[i](buf, img[i]); err != nil {
				return buf, fmt.Errorf("column %s: %w", p.table.Columns[i].Name, err)
			}
		}
		return buf, nil
	}
	for n, i := range p.cols {
		if n > 0 {
			buf = append(buf, " AND "...)
		}
		buf = append(buf, p.where[n][0]...)
		var err error
		if buf, err = p.enc[i](buf, img[i]); err != nil {
			return buf, fmt.Errorf("column %s: %w", p.table.Columns[i].Name, err)
		}
		buf = append(buf, p.where[n][1]...)
	}
	return buf, nil
}

// appendUpdate appends the statement of one updated row.
func (p *plan) appendUpdate(buf []byte, before, after []any) ([]byte, error) {
	buf = append(buf, "UPDATE "...)
	buf = append(buf, p.qtable...)
	buf = append(buf, " SET "...)
	if len(after) < len(p.table.Columns) {
		return buf, fmt.Errorf("row image has %d values, table %s has %d columns", len(after), p.table.TableID, len(p.table.Columns))
	}
	set := 0
	for n, i := range p.cols {
		// Changed-only: a column that did not change is left out.
		if p.changedOnly && !p.setsColumn(i, before, after) {
			continue
		}
		var err error
		if buf, err = p.appendSet(buf, set, n, i, after); err != nil {
			return buf, err
		}
		set++
	}
	if set == 0 {
		// Nothing changed: the last column is set to its value, so that
		// the statement still finds, and counts, the row.
		n := len(p.cols) - 1
		var err error
		if buf, err = p.appendSet(buf, 0, n, p.cols[n], after); err != nil {
			return buf, err
		}
	}
	buf = append(buf, " WHERE "...)
	buf, err := p.appendWhere(buf, before)
	if err != nil {
		return buf, err
	}
	if p.key == nil {
		buf = append(buf, " LIMIT 1"...)
	}
	return buf, nil
}

// setsColumn says whether a changed-only UPDATE sets column i: its value
// changed, or MySQL would set it itself (ON UPDATE CURRENT_TIMESTAMP).
func (p *plan) setsColumn(i int, before, after []any) bool {
	return i >= len(before) || !pipeline.ValueEqual(before[i], after[i]) || p.table.Columns[i].OnUpdateCurrentTS
}

// appendSet appends "c = value" of column i (p.cols[n]), the set-th one.
func (p *plan) appendSet(buf []byte, set, n, i int, after []any) ([]byte, error) {
	if set > 0 {
		buf = append(buf, ',')
	}
	buf = append(buf, p.setNames[n]...)
	buf, err := p.enc[i](buf, after[i])
	if err != nil {
		return buf, fmt.Errorf("column %s: %w", p.table.Columns[i].Name, err)
	}
	return buf, nil
}

// keyString prints the key of an image for error messages.
func (p *plan) keyString(img []any) string {
	cols := p.key
	if cols == nil {
		cols = p.cols
	}
	var parts []string
	for _, i := range cols {
		if i >= len(img) {
			break
		}
		s := fmt.Sprint(img[i])
		if b, ok := img[i].([]byte); ok {
			s = string(b)
		}
		if len(s) > 40 {
			s = s[:40] + "…"
		}
		parts = append(parts, p.table.Columns[i].Name+"="+s)
	}
	return strings.Join(parts, ", ")
}
