package addtable

import (
	"encoding/json"
	"fmt"

	"github.com/sluice-db/sluice/internal/source/mysql/consistent"
)

// EncodeBound is a chunk's key bound as the add record's LastKey: JSON of
// each key column's bytes ("" for no bound).
func EncodeBound(b consistent.Bound) (string, error) {
	if b == nil {
		return "", nil
	}
	out, err := json.Marshal([][]byte(b))
	if err != nil {
		return "", fmt.Errorf("encode the key bound: %w", err)
	}
	return string(out), nil
}

// DecodeBound reads what EncodeBound wrote.
func DecodeBound(s string) (consistent.Bound, error) {
	if s == "" {
		return nil, nil
	}
	var b [][]byte
	if err := json.Unmarshal([]byte(s), &b); err != nil {
		return nil, fmt.Errorf("the add record's last key %q: %w", s, err)
	}
	return consistent.Bound(b), nil
}
