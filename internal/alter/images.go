package alter

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/sluice-db/sluice/internal/schema"
	mysqlsink "github.com/sluice-db/sluice/internal/sink/mysql"
	"github.com/sluice-db/sluice/internal/source/mysql/binlog"
)

// Apply modes of the changed keys. With row images (the default where it is
// exact) the binlog's after image of a key's last change is written to the
// shadow table, and a key whose last change removed it is deleted there:
// the table is never read, so the appliers take no lock the application
// could wait for, and a key costs one row of a multi-row REPLACE. Where a
// literal of the old column's value would not convert into the new column
// as INSERT … SELECT converts it (a changed ENUM, a TIMESTAMP made
// DATETIME, MySQL's JSON, spatial types, ...), or where two distinct key
// values can be one row (a key compared by a collation), keys are re-read
// from the table instead (applyKeys).
const (
	applyImages = "row images"
	applyReread = "re-read from the table"
)

// maxImageStatement bounds one multi-row REPLACE (max_allowed_packet is
// at least 16 MiB on the servers sluice supports; 4 MiB leaves room).
const maxImageStatement = 4 << 20

// imageWriter writes the shared columns of row images as the literals of a
// multi-row REPLACE into the shadow table.
type imageWriter struct {
	head string // REPLACE INTO shadow (cols) VALUES
	idx  []int  // position in the row image of each shared column
	enc  []func(buf []byte, v any) ([]byte, error)
	ncol int // columns of a row image
}

// imageApply decides the apply mode for the plan and, for row images,
// returns the writer; reason says why keys are re-read otherwise.
func (r *runner) imageApply(p *plan) (*imageWriter, string) {
	mysqlJSON := r.info.Flavor != binlog.FlavorMariaDB
	for _, k := range r.kc.cols {
		if !exactKeyType(k) {
			return nil, fmt.Sprintf("key column %s is %s: two of its values can be one row", k.Name, k.ColumnType)
		}
	}
	w := &imageWriter{ncol: len(r.src.Columns)}
	var cols []string
	for _, name := range p.shared {
		i := r.src.ColumnIndex(name)
		if i < 0 {
			return nil, fmt.Sprintf("column %s is not in the binlog's definition", name)
		}
		c := r.src.Columns[i]
		o, n := p.oldDef.column(name), p.newDef.column(name)
		if o == nil || n == nil {
			return nil, fmt.Sprintf("column %s is not in both definitions", name)
		}
		enc, why := literalOf(c, o, n, mysqlJSON)
		if enc == nil {
			return nil, fmt.Sprintf("column %s (%s to %s): %s", name, o.Type, n.Type, why)
		}
		w.idx, w.enc = append(w.idx, i), append(w.enc, enc)
		cols = append(cols, schema.QuoteMySQL(name))
	}
	w.head = "REPLACE INTO " + r.quoted(shadowName(r.id.Name)) + " (" + strings.Join(cols, ", ") + ") VALUES "
	return w, ""
}

// exactKeyType: a key column whose distinct binlog values are distinct rows
// (no collation, no padding makes two values one).
func exactKeyType(c schema.Column) bool {
	switch strings.ToLower(c.DataType) {
	case "tinyint", "smallint", "mediumint", "int", "integer", "bigint", "year",
		"date", "datetime", "timestamp", "time", "enum", "varbinary":
		return true
	}
	return false
}

// literalOf returns how a value of old column c (o in the old definition,
// n in the new) is written so that storing it into the new column gives what
// INSERT … SELECT from the old column gives; nil and why when sluice does not
// know that it does.
func literalOf(c schema.Column, o, n *colDef, mysqlJSON bool) (func([]byte, any) ([]byte, error), string) {
	if o.Generated {
		return nil, "a generated column of the old table"
	}
	dt := strings.ToLower(c.DataType)
	same := strings.EqualFold(o.Type, n.Type) && strings.EqualFold(o.Collation, n.Collation)
	// MariaDB's JSON is LONGTEXT: its value is the text as written.
	mariaJSON := dt == "json" && !mysqlJSON
	switch {
	case mariaJSON || isTextType(dt) && !strings.EqualFold(c.Charset, "binary") && c.Charset != "":
		if !isTextType(baseType(n.Type)) && !(mariaJSON && same) {
			return nil, "text changed into another kind of type"
		}
		// The introducer names the old column's charset: the server converts
		// the bytes into the new column's charset as INSERT … SELECT does.
		intro := "_" + c.Charset
		if c.Charset == "" {
			intro = "_utf8mb4"
		}
		return func(buf []byte, v any) ([]byte, error) {
			switch x := v.(type) {
			case nil:
				return append(buf, "NULL"...), nil
			case string:
				return mysqlsink.Quote(append(buf, intro...), x), nil
			case []byte:
				return mysqlsink.Quote(append(buf, intro...), x), nil
			}
			return buf, fmt.Errorf("unexpected value %T of text column %s", v, c.Name)
		}, ""
	case intFamily(dt):
		if !same && !intFamily(baseType(n.Type)) {
			return nil, "an integer changed into another kind of type"
		}
	case dt == "decimal" || dt == "numeric":
		if !same && baseType(n.Type) != "decimal" {
			return nil, "a decimal changed into another kind of type"
		}
	case dt == "set":
		if !same {
			return nil, "a SET whose definition changes (its bit mask would name other members)"
		}
		// The bit mask, unsigned: a 64th member sets the sign bit.
		other := mysqlsink.ColumnLiteral(c, mysqlJSON)
		return func(buf []byte, v any) ([]byte, error) {
			if x, ok := v.(int64); ok {
				return strconv.AppendUint(buf, uint64(x), 10), nil
			}
			return other(buf, v)
		}, ""
	case dt == "json" && mysqlJSON:
		return nil, "MySQL's JSON is re-read (its binlog form is binary)"
	case !imageType(dt):
		return nil, "sluice writes no row image of this type"
	case !same:
		return nil, "its definition changes"
	}
	return mysqlsink.ColumnLiteral(c, mysqlJSON), ""
}

// imageType: types whose binlog value ColumnLiteral writes exactly.
func imageType(dt string) bool {
	switch dt {
	case "float", "double", "real", "bit", "enum", "year", "date", "datetime", "timestamp", "time",
		"binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob", "json", "inet4", "inet6", "uuid":
		return true
	}
	return false
}

func isTextType(dt string) bool {
	switch dt {
	case "char", "varchar", "tinytext", "text", "mediumtext", "longtext":
		return true
	}
	return false
}

func intFamily(dt string) bool {
	switch dt {
	case "tinyint", "smallint", "mediumint", "int", "integer", "bigint":
		return true
	}
	return false
}

// baseType is the lower-case type name of a SHOW COLUMNS type text
// ("int(10) unsigned" → "int").
func baseType(t string) string {
	t = strings.ToLower(strings.TrimSpace(t))
	if i := strings.IndexAny(t, "( "); i >= 0 {
		t = t[:i]
	}
	return t
}

// appendRow appends one row image's values, parenthesised.
func (w *imageWriter) appendRow(buf []byte, img []any) ([]byte, error) {
	if len(img) != w.ncol {
		return buf, fmt.Errorf("a row image of %d columns, the table has %d", len(img), w.ncol)
	}
	buf = append(buf, '(')
	for j, i := range w.idx {
		if j > 0 {
			buf = append(buf, ", "...)
		}
		var err error
		if buf, err = w.enc[j](buf, img[i]); err != nil {
			return buf, err
		}
	}
	return append(buf, ')'), nil
}

// applyImages writes the keys' last row images into the shadow table and
// deletes the keys whose last change removed them. A batch's keys are
// distinct, so their order does not matter; each key is in flight on this
// applier only (keySet), so no later image of it is written before.
func (r *runner) applyImages(ctx context.Context, q querier, vals [][]any, imgs [][]any) error {
	var gone [][]any
	var args []any
	buf := make([]byte, 0, 64<<10)
	flush := func() error {
		if len(buf) == 0 {
			return nil
		}
		if _, err := execRetry(ctx, q, string(buf)); err != nil {
			return fmt.Errorf("alter: apply changed rows: %w", err)
		}
		buf = buf[:0]
		return nil
	}
	for i, img := range imgs {
		if img == nil {
			gone = append(gone, vals[i])
			args = append(args, vals[i]...)
			continue
		}
		if len(buf) == 0 {
			buf = append(buf, r.images.head...)
		} else {
			buf = append(buf, ", "...)
		}
		var err error
		if buf, err = r.images.appendRow(buf, img); err != nil {
			return fmt.Errorf("alter: row image of %s: %w", r.id, err)
		}
		if len(buf) >= maxImageStatement {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	if len(gone) > 0 {
		shadow := r.quoted(shadowName(r.id.Name))
		del := "DELETE FROM " + shadow + " WHERE " + r.key.OneOfWhere(shadow+".", gone)
		if _, err := execRetry(ctx, q, del, args...); err != nil {
			return fmt.Errorf("alter: apply removed keys: %w", err)
		}
	}
	r.applied.Add(int64(len(vals)))
	return nil
}
