package binlog

import (
	"encoding/binary"
	"fmt"

	gomysql "github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/replication"
)

// decodeDiffs splits a diff vector and renders each diff's value with
// go-mysql's own binary JSON decoder, so that a value written by a diff
// renders exactly as it would inside a full document.
func decodeDiffs(e *replication.RowsEvent, data []byte) ([]jsonDiff, error) {
	raws, err := splitDiffs(data)
	if err != nil {
		return nil, err
	}
	out := make([]jsonDiff, len(raws))
	for i, d := range raws {
		out[i] = jsonDiff{op: d.op, path: d.path}
		if d.op == replication.JsonDiffOperationRemove {
			continue
		}
		if out[i].value, err = renderBinaryJSON(e, d.value); err != nil {
			return nil, fmt.Errorf("diff %d (%s %s): %w", i+1, d.op, d.path, err)
		}
	}
	return out, nil
}

// renderBinaryJSON renders one MySQL binary JSON document through go-mysql,
// with the settings of the event e (RenderJSONAsMySQLText). go-mysql exports
// its decoder only through RowsEvent.DecodeData, so the document is wrapped
// in a one-column row image of a copy of e: a before image holding the
// document and an after image holding NULL.
func renderBinaryJSON(e *replication.RowsEvent, doc []byte) (string, error) {
	if len(doc) == 0 {
		return "", fmt.Errorf("empty JSON value")
	}
	img := make([]byte, 0, len(doc)+8)
	img = append(img, 0)                                          // before: null bitmap, not NULL
	img = binary.LittleEndian.AppendUint32(img, uint32(len(doc))) // JSON length, 4 bytes (meta)
	img = append(img, doc...)                                     // the document
	if isPartialUpdate(e) {
		img = append(img, 0, 1) // after: no value options, NULL
	}
	cp := *e // a copy: DecodeData writes only Rows and SkippedColumns
	cp.Table = &replication.TableMapEvent{ColumnCount: 1, ColumnType: []byte{gomysql.MYSQL_TYPE_JSON}, ColumnMeta: []uint16{4}}
	cp.ColumnCount = 1
	cp.ColumnBitmap1, cp.ColumnBitmap2 = []byte{1}, []byte{1}
	if err := cp.DecodeData(0, img); err != nil {
		return "", err
	}
	if len(cp.Rows) == 0 || len(cp.Rows[0]) != 1 {
		return "", fmt.Errorf("decoded %d images", len(cp.Rows))
	}
	s, ok := cp.Rows[0][0].(string)
	if !ok {
		return "", fmt.Errorf("decoded %T, want a string", cp.Rows[0][0])
	}
	return s, nil
}

// renderKey renders an object key as go-mysql renders the keys of a
// document: it decodes the binary JSON object {key: null}.
func renderKey(e *replication.RowsEvent, key string) (string, error) {
	if len(key) > 0xffff {
		return "", fmt.Errorf("key of %d bytes", len(key))
	}
	// Small object: count, size, one key entry (offset, length), one value
	// entry (literal null, inlined), then the key.
	const header = 2 + 2 + 4 + 3
	size := header + len(key)
	if size > 0xffff {
		return "", fmt.Errorf("key of %d bytes", len(key))
	}
	doc := []byte{replication.JSONB_SMALL_OBJECT}
	doc = binary.LittleEndian.AppendUint16(doc, 1)
	doc = binary.LittleEndian.AppendUint16(doc, uint16(size))
	doc = binary.LittleEndian.AppendUint16(doc, header)
	doc = binary.LittleEndian.AppendUint16(doc, uint16(len(key)))
	doc = append(doc, replication.JSONB_LITERAL, replication.JSONB_NULL_LITERAL, 0)
	doc = append(doc, key...)
	s, err := renderBinaryJSON(e, doc)
	if err != nil {
		return "", err
	}
	n, err := parseJSONText(s)
	if err != nil {
		return "", err
	}
	if n.kind != '{' || len(n.keys) != 1 {
		return "", fmt.Errorf("key rendered as %q", s)
	}
	return n.keys[0].raw, nil
}
