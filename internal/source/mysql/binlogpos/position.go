// Package binlogpos is the position of a MySQL/MariaDB change stream: a
// binlog file and offset, and the executed GTID set there when the server
// has GTIDs. Outside the MySQL source it is a model.Position: opaque,
// ordered, serialisable.
package binlogpos

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/sluice-db/sluice/internal/model"
)

// Kind names this position type in serialised positions.
const Kind = "mysql"

// Position is a point in the source's binlog. File/Pos is always set once
// the stream has read anything; GTIDSet is the executed GTID set at that
// point when the source has GTIDs (MariaDB "0-1-42,1-2-7" or MySQL
// "uuid:1-42"), with Flavor "mariadb" or "mysql".
type Position struct {
	File    string `json:"file"`
	Pos     uint32 `json:"pos"`
	GTIDSet string `json:"gtid_set,omitempty"`
	Flavor  string `json:"flavor,omitempty"`
	// ServerID is the @@server_id of the server whose binlog File/Pos
	// are in (0: not recorded, a position of an older sluice). File and
	// offset of two servers do not order: after a source failover
	// positions are ordered by their GTID sets (crossServer.go).
	ServerID uint32 `json:"server_id,omitempty"`
}

var _ model.Position = Position{}

func (p Position) String() string {
	s := p.File + ":" + strconv.FormatUint(uint64(p.Pos), 10)
	if p.GTIDSet != "" {
		s += " gtid " + p.GTIDSet
	}
	return s
}

// IsZero reports whether no position is set.
func (p Position) IsZero() bool { return p.File == "" && p.GTIDSet == "" }

// Key is the identity of a transaction boundary, "file:offset": the GTID
// set is left out because it is derived from them.
func (p Position) Key() string { return p.File + ":" + strconv.FormatUint(uint64(p.Pos), 10) }

// Encode is the whole position as JSON with the kind, which Decode reads back.
func (p Position) Encode() string {
	b, _ := json.Marshal(struct {
		Kind string `json:"kind"`
		Position
	}{Kind, p}) // cannot fail: strings and a number
	return string(b)
}

// Compare orders positions by binlog file sequence number, then offset.
// Binlog file names end in a zero-padded sequence number (mysql-bin.000042),
// which is compared numerically so that .999999 < .1000000. Positions in
// the binlogs of two servers with GTID sets are ordered by their sets
// instead (crossserver.go). A nil q (no position) sorts first. Positions of
// another kind cannot be compared: that is a programming error.
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
		panic(fmt.Sprintf("binlogpos: compare with a %T position", q))
	}
	if c, ok := compareAcrossServers(p, o); ok {
		return c
	}
	a, b := fileSeq(p.File), fileSeq(o.File)
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	case p.Pos < o.Pos:
		return -1
	case p.Pos > o.Pos:
		return 1
	}
	return 0
}

func fileSeq(name string) uint64 {
	i := strings.LastIndexByte(name, '.')
	n, err := strconv.ParseUint(name[i+1:], 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// Decode reads what Encode or Key wrote. An empty string is no position (nil).
func Decode(s string) (model.Position, error) {
	p, err := Parse(s)
	if err != nil || p.IsZero() {
		return nil, err
	}
	return p, nil
}

// Parse is Decode returning the concrete type (the zero Position for "").
func Parse(s string) (Position, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Position{}, nil
	}
	if strings.HasPrefix(s, "{") {
		var v struct {
			Kind string `json:"kind"`
			Position
		}
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			return Position{}, fmt.Errorf("binlog position %q: %w", s, err)
		}
		if v.Kind != "" && v.Kind != Kind {
			return Position{}, fmt.Errorf("position %q is a %s position, not a MySQL binlog position: "+
				"the state on the target was written by another kind of source", s, v.Kind)
		}
		return v.Position, nil
	}
	file, off, ok := strings.Cut(s, ":")
	n, err := strconv.ParseUint(off, 10, 32)
	if !ok || file == "" || err != nil {
		return Position{}, fmt.Errorf("binlog position %q: want file:offset, e.g. mysql-bin.000042:4", s)
	}
	return Position{File: file, Pos: uint32(n)}, nil
}

// From returns the binlog position inside p: the zero Position for nil, an
// error for a position of another kind of source.
func From(p model.Position) (Position, error) {
	switch x := p.(type) {
	case nil:
		return Position{}, nil
	case Position:
		return x, nil
	case *Position:
		return *x, nil
	}
	return Position{}, fmt.Errorf("position %s is not a MySQL binlog position (a %T): "+
		"the stream's state was written by another kind of source", p, p)
}

// Of wraps a binlog position as a model.Position, nil when it is zero (so
// that "no position" is always nil outside this package).
func Of(p Position) model.Position {
	if p.IsZero() {
		return nil
	}
	return p
}
