package binlog

import (
	"fmt"
	"strings"

	"github.com/sluice-db/sluice/internal/schema"
)

// resolvePartial replaces each partial JSON value of an after image by the
// full document: the before image's document with the diffs applied. It
// returns the memory the new documents hold.
func resolvePartial(t *schema.Table, before, after []any) (int64, error) {
	var size int64
	for i, v := range after {
		p, ok := v.(*partialJSON)
		if !ok {
			continue
		}
		c := t.Columns[i]
		if p.err != nil {
			return 0, fmt.Errorf("table %s column %s (%s): %w", t.TableID, c.Name, c.ColumnType, p.err)
		}
		doc, err := applyPartial(before[i], p, p.renderKey)
		if err != nil {
			return 0, fmt.Errorf("table %s column %s (%s): partial JSON update (binlog_row_value_options=PARTIAL_JSON): %w",
				t.TableID, c.Name, c.ColumnType, err)
		}
		after[i] = doc
		size += valueSize(doc)
	}
	return size, nil
}

// applyPartial applies p to the before value of its column.
func applyPartial(before any, p *partialJSON, renderKey func(string) (string, error)) (string, error) {
	var doc string
	switch b := before.(type) {
	case string:
		doc = b
	case nil:
		return "", fmt.Errorf("the before image holds NULL, the diffs need a document")
	case []byte:
		// go-mysql's rendering of an empty (invalid) document.
		return "", fmt.Errorf("the before image holds an empty document, the diffs need one")
	default:
		return "", fmt.Errorf("the before image holds %T, want a JSON document", before)
	}
	if len(p.diffs) == 0 {
		return strings.Clone(doc), nil
	}
	return applyDiffs(doc, p.diffs, renderKey)
}
