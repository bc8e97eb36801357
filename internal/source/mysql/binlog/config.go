// Package binlog reads the row binlog of MySQL or MariaDB and turns it into
// model.Txn values in source order: row images converted by typemap (the
// same converters the snapshot uses), schema changes translated and applied
// to an in-memory schema history so every event is decoded with the table
// definition of its time, and positions (file:pos and GTID set) after each
// transaction.
package binlog

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
)

// DDLResult is what a schema-changing statement does, as the translator
// (internal/ddl) reports it.
type DDLResult struct {
	PG      []string        // statements to run on the target, in order
	Tables  []*schema.Table // new versions of created or altered tables
	Dropped []schema.TableID
	// Ignored statements change nothing sluice replicates (out of scope,
	// GRANT, ANALYZE, ...); Reason says why.
	Ignored bool
	Reason  string
}

// Translator parses one statement of a QUERY event against the tables in
// force (cur must not be modified), the statement's default database and
// the time the source ran it (statementTime). Any error stops the stream;
// the message names the statement, its binlog position and --skip-ddl.
type Translator func(cur map[schema.TableID]*schema.Table, stmt, defaultDB string, at time.Time) (*DDLResult, error)

// Config says where to read from and how to decode.
type Config struct {
	Source   config.MySQL
	Info     SourceInfo // from Source.Info
	ServerID uint32
	// Stream names the replication stream; it is registered as the replica's
	// host name ("sluice:<stream>") so that a stale connection of an earlier
	// run is recognised as ours and not as a server-id clash.
	Stream string
	// Start is where reading begins: the End of the last applied Txn. With a
	// GTID set and a source with GTIDs the dump is positioned by GTID, else
	// by file:pos.
	Start binlogpos.Position
	// Tables is the schema in force at Start, SchemaVersion its version.
	Tables        map[schema.TableID]*schema.Table
	SchemaVersion int64
	// InScope says which tables are replicated; rows of other tables are not
	// even decoded. It is called from go-mysql's reader goroutine too.
	InScope func(schema.TableID) bool
	// SkipRows, when set, drops the row changes of a table at a position
	// (the rows event's own, inside its transaction): a table re-copied at
	// P skips its changes up to P (sluice snapshot --recopy).
	SkipRows func(id schema.TableID, at binlogpos.Position) bool
	// WrittenGenerated gives the columns of a table that the target is written rather than
	// computing them itself (indexes into Columns; generated columns among them matter).
	// MariaDB 11 leaves generated columns out of UPDATE and DELETE row images, so the stream
	// refuses such an image when it lacks a written one (checkSkipped). nil: every column is
	// written (Kafka, or any consumer of whole rows).
	WrittenGenerated func(*schema.Table) []int
	// SchemaChangeAt, when set, sees each translated schema change with
	// the position it ends at before it is emitted; it may clear res.PG
	// (the target already has the change) or stop the stream.
	SchemaChangeAt func(res *DDLResult, stmt string, at binlogpos.Position) error
	Translate      Translator
	// SkipLoopback skips every transaction whose first row event is on
	// database sluice (loopback.go): the reverse stream's writes, which a
	// forward replicator must not send back. Off for readers that need
	// sluice's own rows (sluice alter follows its markers there).
	SkipLoopback bool
	// SkipDDL reports statements to skip knowingly (--skip-ddl, see
	// ddl.MatchSkip); each skip is logged at WARN.
	SkipDDL func(stmt string) bool
	// KeepReplace keeps a MySQL 9 DELETE and re-INSERT of one primary key
	// as the two changes the binlog logged, which replace.go otherwise folds
	// into one UPDATE for targets with foreign keys. A change stream (Kafka)
	// sets it: Debezium's connector emits the delete, its tombstone and the
	// create, and a consumer counting or replaying events must see them.
	KeepReplace bool
	// Reload, when set, reads the current definitions of tables from the
	// source (a missing table is absent from the map). A statement skipped
	// with SkipDDL re-reads the tables it names with it.
	Reload func(ctx context.Context, ids []schema.TableID) (map[schema.TableID]*schema.Table, error)
	// Join, when set, is asked at each transaction boundary, on the
	// stream's goroutine, for tables to bring into the scope there (sluice
	// snapshot --add); it must return nil at once when none waits (join.go).
	Join func(ctx context.Context, cur map[schema.TableID]*schema.Table) (*Joining, error)
	// FragmentBytes: a transaction whose buffered changes reach this size is
	// emitted in fragments (Partial=true) so that memory stays bounded.
	// Default 32 MiB.
	FragmentBytes int64
	// ReadCoalesce, when set, makes the reader wait this long before reading
	// the connection again after a read that found little data (a stream
	// that keeps up with the source), so that events are read in bursts:
	// a reader woken for every small event spends more CPU on being woken
	// (syscalls, the runtime's scheduler) than on decoding. It adds at most
	// that much latency; a backlog is read without waiting. sluice alter
	// sets it: its reader shares the source's CPU with the application.
	ReadCoalesce time.Duration
	// Heartbeat is the source's heartbeat period while idle (default 1s): it
	// lets an idle stream report its position and zero lag.
	Heartbeat time.Duration
	// MaxBackoff caps the wait between reconnect attempts (default 30s).
	MaxBackoff time.Duration
	// Failover: the source URL names several servers (config.MySQL.Hosts)
	// and Source is the one chosen. A lost connection that one reconnect to
	// it does not restore ends Run with a *SourceLost, so that the caller
	// chooses the server again (failover.go).
	Failover bool
	Log      *slog.Logger
	// OnIdle, when set, is called from the stream goroutine (it must not
	// block) with the position read up to, each time the source reports it
	// has nothing more to send (a heartbeat), and at most once per heartbeat
	// period while the binlog carries only changes outside the scope: on a
	// shared server other databases' writes may never let it fall silent.
	OnIdle func(binlogpos.Position)

	// deadAfter is how long a binlog connection may stay silent (no event,
	// no heartbeat) before it is taken for dead and replaced; default
	// 3 heartbeats + 10s. Tests shorten it.
	deadAfter time.Duration
}

func (c *Config) withDefaults() (Config, error) {
	out := *c
	if out.Translate == nil {
		return out, errors.New("binlog: no DDL translator")
	}
	if out.ServerID == 0 {
		return out, errors.New("binlog: server id 0 is not allowed")
	}
	if out.Start.IsZero() {
		return out, errors.New("binlog: no start position")
	}
	if out.InScope == nil {
		out.InScope = func(schema.TableID) bool { return true }
	}
	if out.FragmentBytes <= 0 {
		out.FragmentBytes = 32 << 20
	}
	if out.Heartbeat <= 0 {
		out.Heartbeat = time.Second
	}
	if out.MaxBackoff <= 0 {
		out.MaxBackoff = 30 * time.Second
	}
	if out.deadAfter <= 0 {
		out.deadAfter = 3*out.Heartbeat + 10*time.Second
	}
	if out.Log == nil {
		out.Log = slog.New(slog.DiscardHandler)
	}
	if out.Stream == "" {
		out.Stream = "default"
	}
	return out, nil
}
