// Package model is the change model between the binlog source and the apply
// side: positions, row changes with PostgreSQL-ready values, transactions.
package model

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/sluice-db/sluice/internal/schema"
)

// Position is a point in the source's binlog. File/Pos is always set; GTIDSet
// is the executed GTID set at that point when the source has GTIDs (MariaDB
// "0-1-42,1-2-7" or MySQL "uuid:1-42"), with Flavor "mariadb" or "mysql".
type Position struct {
	File    string `json:"file"`
	Pos     uint32 `json:"pos"`
	GTIDSet string `json:"gtid_set,omitempty"`
	Flavor  string `json:"flavor,omitempty"`
}

func (p Position) String() string {
	s := fmt.Sprintf("%s:%d", p.File, p.Pos)
	if p.GTIDSet != "" {
		s += " gtid " + p.GTIDSet
	}
	return s
}

// IsZero reports whether no position is set.
func (p Position) IsZero() bool { return p.File == "" && p.GTIDSet == "" }

// Compare orders positions by binlog file sequence number, then offset.
// Binlog file names end in a zero-padded sequence number (mysql-bin.000042),
// which is compared numerically so that .999999 < .1000000.
func (p Position) Compare(q Position) int {
	a, b := fileSeq(p.File), fileSeq(q.File)
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	case p.Pos < q.Pos:
		return -1
	case p.Pos > q.Pos:
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

// Op is the kind of a row change.
type Op uint8

const (
	Insert Op = iota + 1
	Update
	Delete
)

func (o Op) String() string {
	switch o {
	case Insert:
		return "insert"
	case Update:
		return "update"
	case Delete:
		return "delete"
	}
	return "op(" + strconv.Itoa(int(o)) + ")"
}

// RowChange is one row of a row event. Before and After hold values already
// converted by typemap (pgx-encodable), in Table.Columns order; Before is nil
// for inserts, After nil for deletes.
type RowChange struct {
	Op     Op
	Table  *schema.Table // the schema version the event was decoded with
	Before []any
	After  []any
}

// DDL is a schema change from a QUERY event, already parsed and translated
// by the source (which needs the new table versions to decode later events).
// The apply side runs PG, persists Tables/Dropped as schema-history Version and
// the checkpoint in one target transaction.
type DDL struct {
	Database  string   // default database of the statement
	Statement string   // as written on the source
	PG        []string // statements to run on the target, in order
	Version   int64    // schema-history version this DDL creates
	Tables    []*schema.Table
	Dropped   []schema.TableID
}

// Txn is one source transaction, or one DDL statement (which MySQL commits
// on its own). End is the position right after its commit event, which is
// where a restart continues from once the Txn is applied.
type Txn struct {
	GTID      string // this transaction's GTID, when the source has them
	End       Position
	Timestamp time.Time // commit time on the source (event header)
	Changes   []RowChange
	DDL       *DDL
	// Bytes is the approximate size of the decoded changes, for memory bounds.
	Bytes int64
	// Seq numbers transactions in stream order (1, 2, ...), assigned by the source.
	Seq uint64
	// Partial marks a fragment of a transaction larger than the memory bound:
	// the source emits it as several Txn values with the same Seq, all but the
	// last with Partial=true (and no End); apply writes them in order into one
	// target transaction, so memory stays bounded and the commit stays atomic.
	Partial bool
}
