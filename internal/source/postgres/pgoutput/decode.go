package pgoutput

import (
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pglogrepl"

	"github.com/sluice-db/sluice/internal/model"
)

// RowError is a value of a PostgreSQL row that the MySQL column cannot hold.
type RowError struct {
	Table, Key, Column, Value string
	LSN                       pglogrepl.LSN // commit LSN of the transaction
	Err                       error
}

func (e *RowError) Error() string {
	return fmt.Sprintf("table %s, row %s, column %s, value %q, transaction committing at %s: %v "+
		"(nothing of this transaction is applied; fix the value on PostgreSQL, or run with --on-error skip-and-log to leave such rows out and log them)",
		e.Table, e.Key, e.Column, e.Value, e.LSN, e.Err)
}

func (e *RowError) Unwrap() error { return e.Err }

// decode turns one pgoutput row change into a RowChange in the MySQL
// table's column order, and its approximate size.
func (s *Stream) decode(r *relation, op model.Op, oldType uint8, oldT, newT []tupleCol) (model.RowChange, int64, error) {
	rc := model.RowChange{Op: op, Table: r.table}
	var size int64
	var err error
	name := r.msg.Namespace + "." + r.msg.RelationName
	if oldT != nil {
		if rc.Before, err = s.image(r, oldT, nil, &size); err != nil {
			return rc, 0, err
		}
	}
	if newT != nil {
		if rc.After, err = s.image(r, newT, rc.Before, &size); err != nil {
			return rc, 0, err
		}
	}
	full := oldType == 'O'
	switch op {
	case model.Update:
		if !full && (r.uniqueOther || len(r.key) == 0) {
			return rc, 0, fmt.Errorf("reverse source: an UPDATE of %s arrived without its old row: the table needs REPLICA IDENTITY FULL "+
				"(it has no primary key, or a unique key besides it, whose old values order the apply): ALTER TABLE %s REPLICA IDENTITY FULL", name, name)
		}
		if !full {
			// No old row, or a key-only one: the key from it (or from the
			// new row when the key did not change), the rest unknown (the
			// row is found by its primary key; the sink then writes every
			// column, not only those that changed).
			old := rc.Before
			if old == nil {
				old = rc.After
			}
			b := make([]any, len(rc.After))
			for i := range b {
				b[i] = model.Unknown{}
			}
			for _, k := range r.key {
				b[k] = old[k]
			}
			rc.Before = b
		}
	case model.Delete:
		if rc.Before == nil {
			return rc, 0, fmt.Errorf("reverse source: a DELETE of %s arrived without its old row: ALTER TABLE %s REPLICA IDENTITY FULL", name, name)
		}
		if !full && r.uniqueOther {
			return rc, 0, fmt.Errorf("reverse source: a DELETE of %s arrived with its key only: the table has a unique key besides the primary key, "+
				"whose old values order the apply: ALTER TABLE %s REPLICA IDENTITY FULL", name, name)
		}
	}
	return rc, size, nil
}

// image converts a tuple. An unchanged TOASTed value ('u') is taken from
// the old row when the message carries it whole (REPLICA IDENTITY FULL);
// otherwise the stream stops: writing anything else would change the row.
func (s *Stream) image(r *relation, t []tupleCol, before []any, size *int64) ([]any, error) {
	img := make([]any, len(r.table.Columns))
	for i, col := range t {
		if i >= len(r.col) {
			return nil, fmt.Errorf("reverse source: %s.%s: a tuple of %d columns, the relation has %d", r.msg.Namespace, r.msg.RelationName, len(t), len(r.col))
		}
		j := r.col[i]
		if j < 0 {
			continue
		}
		switch col.kind {
		case pglogrepl.TupleDataTypeNull:
			img[j] = nil
		case pglogrepl.TupleDataTypeToast:
			if before == nil {
				return nil, fmt.Errorf("reverse source: an UPDATE of %s.%s left the large (TOASTed) column %s unchanged, and without the old row "+
					"its value is not in the change: ALTER TABLE %s.%s REPLICA IDENTITY FULL (then PostgreSQL logs the whole old row)",
					r.msg.Namespace, r.msg.RelationName, r.msg.Columns[i].Name, r.msg.Namespace, r.msg.RelationName)
			}
			img[j] = before[j]
		case pglogrepl.TupleDataTypeText:
			v, err := r.convs[i](col.data)
			if err != nil {
				var ve *valueError
				if errors.As(err, &ve) {
					return nil, &RowError{Table: r.msg.Namespace + "." + r.msg.RelationName, Key: s.keyText(r, t),
						Column: r.msg.Columns[i].Name, Value: shorten(string(col.data)), LSN: s.cur.final, Err: err}
				}
				return nil, err
			}
			img[j] = v
			*size += int64(len(col.data)) + 16
		default:
			return nil, fmt.Errorf("reverse source: unexpected tuple data kind %q", col.kind)
		}
	}
	return img, nil
}

// keyText prints the primary key of a tuple (or its first columns).
func (s *Stream) keyText(r *relation, t []tupleCol) string {
	var parts []string
	for i, col := range t {
		if i >= len(r.col) || r.col[i] < 0 {
			continue
		}
		inKey := len(r.key) == 0 && len(parts) < 3
		for _, k := range r.key {
			inKey = inKey || k == r.col[i]
		}
		if !inKey {
			continue
		}
		v := "NULL"
		if col.kind == pglogrepl.TupleDataTypeText {
			v = shorten(string(col.data))
		}
		parts = append(parts, r.msg.Columns[i].Name+"="+v)
	}
	return strings.Join(parts, ", ")
}

func shorten(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}
