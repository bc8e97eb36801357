// Package mysql is the MySQL/MariaDB sink: it writes the source's row
// changes into one target database byte for byte (values as literals on
// binary-charset sessions: literal.go), replays the source's schema changes
// there (ddl.go, rewrite.go), and keeps the stream's state (checkpoint,
// applied records, schema history: internal/checkpoint/mysqlstate) in the
// same target transactions as the rows. Its snapshot writer (bulk*.go, the
// engine's bulkrun.Engine facet) creates the tables from the source's own
// CREATE TABLE, copies the chunks as multi-row INSERTs with their done
// records, and keeps the snapshot's run state in the target's database
// sluice.
package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/schema"
)

// Config configures the MySQL sink. Decode, SourceDB and TargetDB are required.
type Config struct {
	// Stream names the replication stream whose state is used.
	Stream string
	// Upsert is the tables applied as upserts (upsert.go); nil: none.
	Upsert *pipeline.UpsertTables
	// Decode reads the source's positions back from the state tables.
	Decode model.PositionDecoder
	// SourceDB is the one source database in scope; TargetDB receives its
	// tables. A change of another source database is refused.
	SourceDB, TargetDB string
	// Engine is --target-engine: the storage engine of every table the
	// replayed DDL creates or alters ("" keeps the source's), and of
	// sluice's state tables ("" = InnoDB).
	Engine string
	// Standby, StandbyLease, RunID, OwnedBefore, Settings: replicate
	// --standby, as in the PostgreSQL sink's Config (standby.go).
	Standby      bool
	StandbyLease time.Duration
	RunID        string
	OwnedBefore  bool
	Settings     []string
	// FenceTimeout bounds the wait at start for an earlier run of the
	// stream to let go of the target (default 15s).
	FenceTimeout time.Duration
	// SourceLogsFKActions: the source logs the rows its foreign key actions
	// change (MySQL 9, foreign keys in the SQL layer), so the target must
	// not run its own (conn.go).
	SourceLogsFKActions bool
	// SourceUTF8MB4Collation is a MySQL 8+ source's default utf8mb4
	// collation (@@default_collation_for_utf8mb4), "" otherwise: into a
	// MariaDB target, replayed DDL names its collations as MariaDB does (ddl.go).
	SourceUTF8MB4Collation string
	// SourceCharsetDefaults is the source's default collation of each
	// charset (binlog.SourceInfo.CharsetDefaults): a replayed charset clause
	// without COLLATE gets it, where the target's default may differ.
	SourceCharsetDefaults map[string]string
	// AppliedFirst writes each target transaction's applied record as its
	// first statement (the reverse stream PostgreSQL → MySQL): the forward
	// binlog reader of the same databases skips a transaction whose first
	// row event is on a table of database sluice, so with both directions
	// running a row the reverse stream wrote never goes forward again.
	AppliedFirst bool
	// UpdateChangedColumns: an UPDATE sets only the columns the change
	// altered (old and new value differ; a value the source did not have,
	// model.Unknown, counts as altered), and those with ON UPDATE
	// CURRENT_TIMESTAMP (their explicit value keeps MySQL from setting its
	// own): one row to a statement, or several in a CASE UPDATE whose runs
	// keep the columns without an ELSE changed in all rows or in none
	// (update_case.go). The reverse stream: what PostgreSQL
	// holds differently from MySQL (text whose NUL bytes the forward
	// stream stripped, a zero date a policy made NULL, MariaDB JSON text in
	// jsonb's order) stays as MySQL has it unless the application changed it.
	UpdateChangedColumns bool
	Log                  *slog.Logger
}

var engineName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

func (c Config) withDefaults() (Config, error) {
	if c.Stream == "" {
		c.Stream = checkpoint.DefaultStream
	}
	if c.StandbyLease <= 0 {
		c.StandbyLease = 5 * time.Second
	}
	if c.RunID == "" {
		c.RunID = pipeline.NewRunID()
	}
	if c.FenceTimeout <= 0 {
		c.FenceTimeout = 15 * time.Second
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	if c.Decode == nil || c.SourceDB == "" || c.TargetDB == "" {
		return c, fmt.Errorf("apply: the MySQL sink needs a position decoder, the source database and the target database")
	}
	if c.Engine != "" && !engineName.MatchString(c.Engine) {
		return c, fmt.Errorf("apply: invalid storage engine name %q", c.Engine)
	}
	return c, nil
}

// Sink is the pipeline's MySQL/MariaDB target (pipeline.Sink).
type Sink struct {
	cfg Config
	db  *sql.DB
	// leader is the session holding the stream's leader lock from Open to
	// Close (fence.go); checkpoints are written through it.
	leader *sql.Conn
	// readCommitted says the sessions run READ COMMITTED (conn.go).
	readCommitted bool
	// rocksDB: the target has MyRocks; the sessions lift its row lock
	// bound (conn.go).
	rocksDB bool
	// mysqlJSON is true for a MySQL (not MariaDB) target: its JSON type
	// needs text in a character set, not binary strings.
	mysqlJSON bool
	// narrowTimestamp: the target's TIMESTAMP ends at 2038 (CheckTimestamp).
	narrowTimestamp bool
	// rowAlias: the target takes INSERT … AS new ON DUPLICATE KEY UPDATE
	// (MySQL 8.0.20+, which deprecates VALUES() there).
	rowAlias bool
	// pending is the end key of a schema change an earlier run started and
	// may not have finished (ddl.go); "" when none.
	pending string
	// collations are the target server's collations (a MySQL 8 source's
	// utf8mb4_0900_ai_ci is unknown to MariaDB).
	collations map[string]bool
	// charsets are the target's charsets by collation id: the charset a
	// replayed schema change's text is in (ddl.go, statementCharset).
	charsets map[uint16]string
	// collationNames are the target's collations by id (model.DDL.CharsetCollations).
	collationNames map[uint16]string
	// stmtBytes bounds a multi-row statement: maxStmtBytes, or less when the
	// target's max_allowed_packet is small.
	stmtBytes int

	// annotate is whether the sessions turned off the target's
	// Annotate_rows binlog events (conn.go: skipAnnotate).
	annotate atomic.Int32

	mu    sync.Mutex
	slots []bool // session lock slots in use (fence.go)
}

var _ pipeline.Sink = (*Sink)(nil)

// New returns a sink writing through db (from Open).
func New(cfg Config, db *sql.DB) (*Sink, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Sink{cfg: cfg, db: db}, nil
}

// Open fences earlier runs (fence.go), creates the target database and
// sluice's state tables when missing, and loads the stream's state.
func (a *Sink) Open(ctx context.Context) (*checkpoint.State, []checkpoint.AppliedRow, error) {
	leader, err := a.fence(ctx)
	if err != nil {
		return nil, nil, err
	}
	st, rows, err := a.load(ctx, leader)
	if err != nil {
		_ = leader.Close()
		return nil, nil, err
	}
	a.leader = leader
	return st, rows, nil
}

func (a *Sink) load(ctx context.Context, conn *sql.Conn) (*checkpoint.State, []checkpoint.AppliedRow, error) {
	var version string
	var err error
	if err = conn.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
		return nil, nil, fmt.Errorf("apply: target version: %w", err)
	}
	a.mysqlJSON = !isMariaDB(version)
	a.rowAlias = a.mysqlJSON && rowAliasSince(version)
	a.narrowTimestamp = NarrowTimestamp(version)
	var packet int64
	if err = conn.QueryRowContext(ctx, "SELECT @@max_allowed_packet").Scan(&packet); err != nil {
		return nil, nil, fmt.Errorf("apply: target max_allowed_packet: %w", err)
	}
	a.stmtBytes = int(min(maxStmtBytes, max(packet/2, 16<<10)))
	if a.collations, a.charsets, a.collationNames, err = readCollations(ctx, conn); err != nil {
		return nil, nil, err
	}
	if _, err := conn.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS "+schema.QuoteMySQL(a.cfg.TargetDB)); err != nil {
		return nil, nil, fmt.Errorf("apply: create the target database %s: %w", a.cfg.TargetDB, err)
	}
	// sluice's state tables were ensured by the fence (fence.go).
	st, err := mysqlstate.Load(ctx, conn, a.cfg.Stream, a.cfg.Decode)
	if err != nil {
		return nil, nil, err
	}
	rows, err := mysqlstate.LoadApplied(ctx, conn, a.cfg.Stream, a.cfg.Decode)
	if err != nil {
		return nil, nil, err
	}
	if a.pending, err = mysqlstate.LoadPending(ctx, conn, a.cfg.Stream); err != nil {
		return nil, nil, err
	}
	return st, rows, nil
}

// EnsureState creates sluice's state database and tables on the target
// (engine "" = InnoDB).
func EnsureState(ctx context.Context, q mysqlstate.Querier, engine string) error {
	if err := mysqlstate.Ensure(ctx, q, engine); err != nil {
		return err
	}
	return mysqlstate.EnsurePending(ctx, q, engine)
}

// Close releases the leader session (and with it the stream's lock).
func (a *Sink) Close() {
	if a.leader != nil {
		_ = a.leader.Close()
		a.leader = nil
	}
}

// SaveCheckpoint writes the checkpoint row and deletes the covered applied
// records in one transaction on the leader session. durable is the
// server's: InnoDB and MyRocks flush their log at commit by default.
func (a *Sink) SaveCheckpoint(ctx context.Context, st checkpoint.State, covered []model.Position, _ bool) error {
	return inTx(ctx, a.leader, func(tx *sql.Tx) error {
		if err := mysqlstate.Save(ctx, tx, a.cfg.Stream, st); err != nil {
			return err
		}
		return mysqlstate.DeleteAppliedRows(ctx, tx, a.cfg.Stream, covered)
	})
}

// DeleteApplied deletes applied records of another stream history.
func (a *Sink) DeleteApplied(ctx context.Context, lasts []model.Position) error {
	return mysqlstate.DeleteAppliedRows(ctx, a.leader, a.cfg.Stream, lasts)
}

// Sync has nothing to do on MySQL: an AUTO_INCREMENT counter moves past
// every id inserted explicitly by itself, so replicated rows never leave it
// behind (PostgreSQL's identity sequences do not).
func (a *Sink) Sync(context.Context, bool) error { return nil }

// TargetName names a target table as Cascades does: the target database
// and the table's name.
func (a *Sink) TargetName(id schema.TableID) string {
	return a.cfg.TargetDB + "\x00" + id.Name
}

// Cascades reads the foreign keys with an action of the target database:
// what the target will actually do when a parent row changes.
func (a *Sink) Cascades(ctx context.Context) (*pipeline.Cascades, error) {
	rows, err := a.db.QueryContext(ctx, `SELECT UNIQUE_CONSTRAINT_SCHEMA, REFERENCED_TABLE_NAME, CONSTRAINT_SCHEMA, TABLE_NAME
		FROM information_schema.REFERENTIAL_CONSTRAINTS
		WHERE CONSTRAINT_SCHEMA = ?
		  AND (DELETE_RULE IN ('CASCADE', 'SET NULL', 'SET DEFAULT') OR UPDATE_RULE IN ('CASCADE', 'SET NULL', 'SET DEFAULT'))`,
		a.cfg.TargetDB)
	if err != nil {
		return nil, fmt.Errorf("apply: read the target's foreign key actions: %w", err)
	}
	defer rows.Close()
	edges := map[string][]string{}
	for rows.Next() {
		var ps, pt, cs, ct string
		if err := rows.Scan(&ps, &pt, &cs, &ct); err != nil {
			return nil, fmt.Errorf("apply: read the target's foreign key actions: %w", err)
		}
		p := ps + "\x00" + pt
		edges[p] = append(edges[p], cs+"\x00"+ct)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("apply: read the target's foreign key actions: %w", err)
	}
	return pipeline.NewCascades(edges), nil
}

// Session opens a prepared, registered session (fence.go) for one worker.
func (a *Sink) Session(ctx context.Context) (pipeline.Session, error) {
	conn, slot, err := a.acquire(ctx)
	if err != nil {
		return nil, err
	}
	return &session{a: a, conn: conn, slot: slot, plans: map[*schema.Table]*plan{}}, nil
}

// inTx runs f in a transaction on conn and commits it.
func inTx(ctx context.Context, conn *sql.Conn, f func(tx *sql.Tx) error) error {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("apply: begin: %w", err)
	}
	if err := f(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("apply: commit: %w", err)
	}
	return nil
}

// readCollations reads the target's collation names, and by id their charsets and names.
func readCollations(ctx context.Context, conn *sql.Conn) (map[string]bool, map[uint16]string, map[uint16]string, error) {
	fail := func(err error) (map[string]bool, map[uint16]string, map[uint16]string, error) {
		return nil, nil, nil, fmt.Errorf("apply: read the target's collations: %w", err)
	}
	rows, err := conn.QueryContext(ctx, "SELECT COLLATION_NAME, CHARACTER_SET_NAME, ID FROM information_schema.COLLATIONS")
	if err != nil {
		return fail(err)
	}
	defer rows.Close()
	names, charsets, byID := map[string]bool{}, map[uint16]string{}, map[uint16]string{}
	for rows.Next() {
		var c string
		var cs sql.NullString // MariaDB lists some collations without a charset or id
		var id sql.NullInt64
		if err := rows.Scan(&c, &cs, &id); err != nil {
			return fail(err)
		}
		names[strings.ToLower(c)] = true
		if cs.Valid && id.Valid && id.Int64 > 0 && id.Int64 <= 0xffff {
			charsets[uint16(id.Int64)] = cs.String
			byID[uint16(id.Int64)] = c
		}
	}
	if err := rows.Err(); err != nil {
		return fail(err)
	}
	// MariaDB 10.10+ lists its UCA 14 collations once for all charsets
	// (uca1400_ai_ci); their full names and ids are here: utf8mb4_uca1400_ai_ci,
	// id 2304, is MariaDB 11's default, the collation of its clients' sessions.
	// Older servers lack the columns.
	full, err := conn.QueryContext(ctx, "SELECT FULL_COLLATION_NAME, CHARACTER_SET_NAME, ID FROM information_schema.COLLATION_CHARACTER_SET_APPLICABILITY")
	if err != nil {
		return names, charsets, byID, nil
	}
	defer full.Close()
	for full.Next() {
		var c string
		var cs sql.NullString
		var id sql.NullInt64
		if err := full.Scan(&c, &cs, &id); err != nil {
			return fail(err)
		}
		names[strings.ToLower(c)] = true
		if _, known := charsets[uint16(id.Int64)]; cs.Valid && id.Valid && id.Int64 > 0 && id.Int64 <= 0xffff && !known {
			charsets[uint16(id.Int64)] = cs.String
			byID[uint16(id.Int64)] = c
		}
	}
	if err := full.Err(); err != nil {
		return fail(err)
	}
	return names, charsets, byID, nil
}

// hasCollation says whether the target has a collation (TargetCollation).
func (a *Sink) hasCollation(name string) bool { return a.collations[name] }

// rowAliasSince says whether a MySQL version string ("8.0.35-log",
// "9.7.4") is 8.0.20 or later.
func rowAliasSince(version string) bool {
	var major, minor, patch int
	if n, _ := fmt.Sscanf(version, "%d.%d.%d", &major, &minor, &patch); n < 3 {
		return major > 8
	}
	return major > 8 || major == 8 && (minor > 0 || patch >= 20)
}
