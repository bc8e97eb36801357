// Package lsnpos is the position of a PostgreSQL logical decoding stream
// (the reverse stream PostgreSQL → MySQL): the end LSN of a committed
// transaction. Outside the PostgreSQL source it is a model.Position:
// opaque, ordered, serialisable, and told apart from a MySQL binlog
// position by its kind.
package lsnpos

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jackc/pglogrepl"

	"github.com/sluice-db/sluice/internal/model"
)

// Kind names this position type in serialised positions.
const Kind = "pg"

// Position is an LSN in PostgreSQL's write-ahead log: the end of a
// transaction's commit record (pgoutput's commit end_lsn), from which the
// slot continues once that transaction is applied.
type Position struct {
	LSN pglogrepl.LSN
}

var _ model.Position = Position{}

func (p Position) String() string { return "lsn " + p.LSN.String() }

// Key is the LSN as PostgreSQL prints it ("16/B374D848").
func (p Position) Key() string { return p.LSN.String() }

// Encode is JSON with the kind: {"kind":"pg","lsn":"16/B374D848"}.
func (p Position) Encode() string {
	b, _ := json.Marshal(struct {
		Kind string `json:"kind"`
		LSN  string `json:"lsn"`
	}{Kind, p.LSN.String()}) // cannot fail: strings
	return string(b)
}

// Compare orders positions by LSN; nil sorts first. A position of another
// kind cannot be compared: that is a programming error.
func (p Position) Compare(q model.Position) int {
	var o Position
	switch x := q.(type) {
	case nil:
		return 1
	case Position:
		o = x
	case *Position:
		o = *x
	default:
		panic(fmt.Sprintf("lsnpos: compare with a %T position", q))
	}
	switch {
	case p.LSN < o.LSN:
		return -1
	case p.LSN > o.LSN:
		return 1
	}
	return 0
}

// Decode reads what Encode or Key wrote; "" (and LSN 0) is no position.
func Decode(s string) (model.Position, error) {
	p, err := Parse(s)
	if err != nil || p.LSN == 0 {
		return nil, err
	}
	return p, nil
}

// Parse is Decode returning the concrete type (LSN 0 for "").
func Parse(s string) (Position, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Position{}, nil
	}
	if strings.HasPrefix(s, "{") {
		var v struct {
			Kind string `json:"kind"`
			LSN  string `json:"lsn"`
		}
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			return Position{}, fmt.Errorf("PostgreSQL position %q: %w", s, err)
		}
		if v.Kind != Kind {
			return Position{}, fmt.Errorf("position %q is a %q position, not a PostgreSQL LSN: "+
				"the state on the target was written by another kind of source (use another --stream)", s, v.Kind)
		}
		s = v.LSN
	}
	lsn, err := pglogrepl.ParseLSN(s)
	if err != nil {
		return Position{}, fmt.Errorf("PostgreSQL position %q: want an LSN such as 16/B374D848: %w", s, err)
	}
	return Position{LSN: lsn}, nil
}

// From returns the LSN inside p: 0 for nil, an error for a position of
// another kind of source.
func From(p model.Position) (pglogrepl.LSN, error) {
	switch x := p.(type) {
	case nil:
		return 0, nil
	case Position:
		return x.LSN, nil
	case *Position:
		return x.LSN, nil
	}
	return 0, fmt.Errorf("position %s is not a PostgreSQL LSN (a %T): "+
		"the stream's state was written by another kind of source", p, p)
}

// Of wraps an LSN as a model.Position, nil for 0.
func Of(lsn pglogrepl.LSN) model.Position {
	if lsn == 0 {
		return nil
	}
	return Position{LSN: lsn}
}
