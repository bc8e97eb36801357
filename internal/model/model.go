// Package model is the engine-neutral change model between a source and the
// pipeline: opaque positions, row changes, transactions, schema changes.
package model

import (
	"strconv"
	"time"

	"github.com/sluice-db/sluice/internal/schema"
)

// Position is a point in a source's change stream, opaque to everything but
// the source that made it: the pipeline and the sinks only order, identify,
// store and print positions. nil is "no position". Each source has its own
// type (a binlog file/offset/GTID set: internal/source/mysql/binlogpos; an
// LSN or a per-shard vector later) and a PositionDecoder for what Encode and
// Key wrote.
type Position interface {
	// Compare orders this position against q, a position of the same
	// source (negative: this one is earlier); nil sorts first.
	Compare(q Position) int
	// Key identifies a transaction boundary compactly (the end of a source
	// transaction): equal keys, same boundary. Sinks record applied
	// transactions by it; the decoder reads it back well enough to Compare.
	Key() string
	// Encode is the full position, from which its source can resume.
	Encode() string
	String() string
}

// PositionDecoder reads a position back from what its Encode or Key wrote;
// "" decodes to nil.
type PositionDecoder func(string) (Position, error)

// PositionString prints p, or "(none)" for nil.
func PositionString(p Position) string {
	if p == nil {
		return "(none)"
	}
	return p.String()
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

// RowChange is one row of a row event. Before and After hold the source's
// own values (for MySQL: what go-mysql decodes, detached from its buffers),
// in Table.Columns order; each sink converts them into its own types when it
// binds them. Before is nil for inserts, After nil for deletes.
type RowChange struct {
	Op     Op
	Table  *schema.Table // the schema version the event was decoded with
	Before []any
	After  []any
}

// Unknown is a value of an old row image that the source was not given
// (PostgreSQL's key-only old tuple: the columns outside the key). It equals
// no value, not even another Unknown, so nothing treats the column as
// unchanged; a sink never writes it.
type Unknown struct{}

// DDL is a schema change from a QUERY event, already parsed by the source
// (which needs the new table versions to decode later events). Statement is
// the source's own text; PG holds its PostgreSQL translation. A sink runs the
// statements it needs (PostgreSQL: PG; a MySQL sink replays Statement) and
// records Tables/Dropped as schema-history Version with the checkpoint.
type DDL struct {
	Database  string // default database of the statement
	Statement string // as written on the source
	// ClientCollation is the collation id (on the source) of the
	// character_set_client Statement was written in: its bytes are text in
	// that charset. 0 when the binlog did not say.
	ClientCollation uint16
	// CharsetCollations is MariaDB 11.2+'s character_set_collations of that session, when the
	// binlog gives it: pairs of collation ids, a charset's default collation and the one a
	// charset clause without COLLATE (CHARACTER SET utf8mb4) meant there.
	CharsetCollations [][2]uint16
	// NoForeignKeyChecks: the source session ran Statement with
	// foreign_key_checks = 0 (a DROP TABLE of a parent, a CREATE TABLE
	// before the table it references), which a MySQL target replays the same.
	NoForeignKeyChecks bool
	// At is when the source ran Statement (its CURRENT_TIMESTAMP, to the
	// microsecond when logged); zero when unknown. A MySQL target runs the
	// statement at that time, as a replica does.
	At      time.Time
	PG      []string // statements to run on the target, in order
	Version int64    // schema-history version this DDL creates
	Tables  []*schema.Table
	Dropped []schema.TableID
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
